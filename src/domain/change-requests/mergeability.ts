/**
 * Merge rules (a Quire extension) as set and as checked. An organization sets its default rules; a space sets its own
 * or inherits the organization's; with neither, the defaults (./merge-rules.ts) block nothing. Reading an
 * organization's rules needs membership, setting them its `admin`; a space's, read on the space and its `admin`.
 *
 * The facts the rules are checked against are gathered here only for the rules that are on: the reviews' current
 * verdicts, the broken links the change request adds compared with its merge base (the link index, both revisions
 * indexed first), and the content problems of its head.
 */
import type { Context, Caller } from '../context.js';
import { InvalidArgument } from '../errors.js';
import { nowIso } from '../ids.js';
import { requireOrgPermission, requireSpacePermission } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { loadSpace } from '../content/spaces.js';
import { revisionProblems } from '../content/revisions.js';
import { brokenLinksAdded } from '../content/link-index.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { currentReviewVerdicts, type ReviewFact } from './review-verdicts.js';
import { blockingMergeRules, DEFAULT_MERGE_RULES, MAX_REQUIRED_APPROVALS, type BlockingRule, type MergeRules } from './merge-rules.js';
import { formatProblem } from '../../content/problems.js';
import { allReviews } from '../../store/sql/reviews.js';
import { deleteMergeRules, findMergeRules, upsertMergeRules, type MergeRulesRow } from '../../store/sql/merge-rules.js';
import type { ChangeRequestRow } from '../../store/sql/change-requests.js';
import type { SpaceRow } from '../../store/sql/spaces.js';

export type MergeRulesSource = 'space' | 'organization' | 'default';

export interface EffectiveMergeRules extends MergeRules {
  source: MergeRulesSource;
}

/** A `PUT`: the rules (a field left out takes its default), or `inherit: true` (a space's only). */
export interface MergeRulesInput {
  requiredApprovals?: number;
  noNewBrokenLinks?: boolean;
  noContentProblems?: boolean;
  inherit?: boolean;
}

function rulesOf(row: MergeRulesRow): MergeRules {
  return { requiredApprovals: row.required_approvals, noNewBrokenLinks: row.no_new_broken_links === 1, noContentProblems: row.no_content_problems === 1 };
}

async function organizationRules(ctx: Context, organizationId: string): Promise<EffectiveMergeRules> {
  const row = await findMergeRules(ctx.db, organizationId);
  return row ? { ...rulesOf(row), source: 'organization' } : { ...DEFAULT_MERGE_RULES, source: 'default' };
}

/** The rules a space's change requests are merged under. */
export async function effectiveMergeRules(ctx: Context, space: Pick<SpaceRow, 'id' | 'organization_id'>): Promise<EffectiveMergeRules> {
  const row = await findMergeRules(ctx.db, space.id);
  return row ? { ...rulesOf(row), source: 'space' } : organizationRules(ctx, space.organization_id);
}

/** The input's rules, checked; 400 naming the field otherwise. */
function validRules(input: MergeRulesInput): MergeRules {
  const rules = { ...DEFAULT_MERGE_RULES, ...Object.fromEntries(Object.entries(input).filter(([key, value]) => key !== 'inherit' && value !== undefined)) } as MergeRules;
  const n = rules.requiredApprovals;
  if (!Number.isInteger(n) || n < 0 || n > MAX_REQUIRED_APPROVALS) {
    throw new InvalidArgument(`requiredApprovals: must be a whole number from 0 to ${MAX_REQUIRED_APPROVALS}`, { field: 'requiredApprovals' });
  }
  return rules;
}

function rowOf(owner: { organizationId: string } | { spaceId: string }, rules: MergeRules, caller: Caller): MergeRulesRow {
  const organizationId = 'organizationId' in owner ? owner.organizationId : null;
  const spaceId = 'spaceId' in owner ? owner.spaceId : null;
  return {
    owner_id: organizationId ?? spaceId!,
    organization_id: organizationId,
    space_id: spaceId,
    required_approvals: rules.requiredApprovals,
    no_new_broken_links: rules.noNewBrokenLinks ? 1 : 0,
    no_content_problems: rules.noContentProblems ? 1 : 0,
    updated_by: caller.user.id,
    updated_at: nowIso(),
  };
}

/** An organization's default rules (any member). */
export async function getOrganizationMergeRules(ctx: Context, caller: Caller, organizationId: string): Promise<EffectiveMergeRules> {
  await organizationAccess(ctx, caller, organizationId);
  return organizationRules(ctx, organizationId);
}

/** Sets an organization's default rules (its admins). */
export async function setOrganizationMergeRules(ctx: Context, caller: Caller, organizationId: string, input: MergeRulesInput): Promise<EffectiveMergeRules> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', 'set its merge rules');
  if (input.inherit !== undefined) throw new InvalidArgument('inherit: only a space inherits merge rules (from its organization)', { field: 'inherit' });
  const rules = validRules(input);
  await upsertMergeRules(ctx.db, rowOf({ organizationId }, rules, caller));
  return { ...rules, source: 'organization' };
}

/** A space's effective rules and where they come from (read on the space). */
export async function getSpaceMergeRules(ctx: Context, caller: Caller, spaceId: string): Promise<EffectiveMergeRules> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'view', 'read its merge rules');
  return effectiveMergeRules(ctx, space);
}

/** Sets a space's own rules, or (`inherit: true`) drops them for the organization's (the space's admins). */
export async function setSpaceMergeRules(ctx: Context, caller: Caller, spaceId: string, input: MergeRulesInput): Promise<EffectiveMergeRules> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'admin', 'set its merge rules');
  const { inherit, ...rest } = input;
  if (inherit === true) {
    const named = Object.keys(rest).filter((key) => rest[key as keyof typeof rest] !== undefined);
    if (named.length > 0) throw new InvalidArgument(`${named[0]}: a space that inherits its organization's merge rules sets none of its own`, { field: named[0] });
    await deleteMergeRules(ctx.db, space.id);
    return organizationRules(ctx, space.organization_id);
  }
  const rules = validRules(rest);
  await upsertMergeRules(ctx.db, rowOf({ spaceId: space.id }, rules, caller));
  return { ...rules, source: 'space' };
}

/**
 * The rules that block merging the change request now ([] when none does), with the rules they come from. Reads only
 * (the link index may index the two revisions it compares).
 */
export async function mergeBlockers(ctx: Context, space: SpaceRow, changeRequest: ChangeRequestRow): Promise<{ rules: EffectiveMergeRules; blocking: BlockingRule[] }> {
  const rules = await effectiveMergeRules(ctx, space);
  if (rules.requiredApprovals === 0 && !rules.noNewBrokenLinks && !rules.noContentProblems) return { rules, blocking: [] };
  const head = (await ctx.reader.resolveRef(space.id, branchOf(changeRequest.number))) ?? changeRequest.revision_initial;
  const reviews: ReviewFact[] =
    rules.requiredApprovals > 0
      ? (await allReviews(ctx.db, changeRequest.id)).map((r) => ({ id: r.id, reviewer: r.reviewer_id, status: r.status as ReviewFact['status'], revision: r.revision, createdAt: r.created_at }))
      : [];
  let added: string[] = [];
  if (rules.noNewBrokenLinks) {
    const main = await ctx.reader.resolveRef(space.id, MAIN_REF);
    const base = (main && (await ctx.git.mergeBase(space.id, head, main))) || changeRequest.revision_initial;
    added = await brokenLinksAdded(ctx, space.id, head, base);
  }
  const problems = rules.noContentProblems ? (await revisionProblems(ctx, space.id, head)).map(formatProblem) : [];
  const blocking = blockingMergeRules(rules, { verdicts: currentReviewVerdicts(reviews, head), brokenLinksAdded: added, contentProblems: problems });
  return { rules, blocking };
}
