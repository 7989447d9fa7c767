/**
 * Sites: creation (with existing spaces or a new one), settings, deletion, the published view (getPublishedContentSite)
 * and the adaptive (visitor claims) schema. The structure inside a site is in structure.ts, share links in
 * share-links.ts.
 *
 * A site is `published` when it has at least one site space: there is no publish operation in the spec, and a
 * site with content is live for the audience its visibility sets. New sites default to the `share-link`
 * visibility, so nothing is public until someone chooses so.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../store/sql/schema.js';
import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument, NotFound, PermissionDenied } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { requireOrgPermission, requireSitePermission, sitePermissions, spaceRole, type OrgAccess } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { createSpace } from '../content/spaces.js';
import { slugify } from '../../content/paths.js';
import { findSpace, type SpaceRow } from '../../store/sql/spaces.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import { findOrganizationById, updateOrganizationRow } from '../../store/sql/organizations.js';
import {
  clearDefaultSection,
  clearDefaultSiteSpace,
  deleteSiteRow,
  insertSite,
  insertSiteSpace,
  listSites as listSiteRows,
  lockSiteRow,
  siteSpaceCounts,
  updateSectionRow,
  updateSiteRow,
  updateSiteSpaceRow,
  type SiteListFilter,
  type SiteRow,
} from '../../store/sql/sites.js';
import { checkAdaptiveSchema, storedClaims, templateConditions } from './adaptive-schema.js';
import { checkCondition } from './conditions.js';
import { loadSite, loadTree, readStructure, siteSpacesIn, type SiteTree, type SiteVisibility } from './tree.js';

export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;
export type SiteType = (typeof SITE_TYPES)[number];
export type AgentsContext = 'included' | 'excluded';

export interface SiteView {
  site: SiteRow;
  /** Number of site spaces. */
  siteSpaces: number;
}

async function siteView(ctx: Context, site: SiteRow): Promise<SiteView> {
  return { site, siteSpaces: (await siteSpaceCounts(ctx.db, [site.id])).get(site.id) ?? 0 };
}

/**
 * A space a body field names: a live space of the organization that the caller can see. 400 naming the field
 * otherwise (the space is an argument, not the resource of the path). Read in `db`: inside a transaction, its own
 * connection (SQLite has one).
 */
export async function spaceForSite(db: Kysely<Database>, access: OrgAccess, spaceId: string, field: string): Promise<SpaceRow> {
  const space = await findSpace(db, spaceId);
  if (!space || space.deleted_at || space.organization_id !== access.organizationId || !spaceRole(access, space)) {
    throw new InvalidArgument(`${field}: no space "${spaceId}" in this organization is visible to you`);
  }
  return space;
}

/** `base`, or `base-2`, `base-3`... : the first that no sibling uses (paths are at most 100 characters). */
export function uniquePath(text: string, taken: Iterable<string>, fallback: string): string {
  const used = new Set(taken);
  const base = slugify(text, fallback).slice(0, 90);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** A path is one URL segment: what the spec's length limits allow, without `/`, `?`, `#` or white space. */
export function checkPath(path: string, field = 'path'): void {
  if (!/^[^/?#\s]+$/u.test(path)) throw new InvalidArgument(`${field}: must be one URL path segment (no "/", "?", "#" or spaces)`);
}

function sampleFiles(title: string): Array<{ path: string; content: string }> {
  return [
    { path: 'README.md', content: `# ${title}\n\nWelcome to ${title}. This page is the landing page of the site.\n` },
    { path: 'getting-started.md', content: '# Getting started\n\nEdit these pages through the API, or clone the space with git and push.\n' },
    // SUMMARY.md's link text is a page's title (docs/git-format.md): the same as the pages' H1s.
    { path: 'SUMMARY.md', content: `# Table of contents\n\n* [${title.replace(/[\\[\]]/g, '\\$&')}](README.md)\n* [Getting started](getting-started.md)\n` },
  ];
}

export interface CreateSiteInput {
  type?: SiteType;
  title?: string;
  visibility?: SiteVisibility;
  spaces?: string[] | 'sample' | 'empty';
}

/**
 * Creates a site (org permission `createContent`). `spaces` lists spaces to publish, at the site's root in that
 * order (the first is the default), or asks for a new space: `empty` (a README page) or `sample` (a few pages).
 */
export async function createSite(ctx: Context, caller: Caller, organizationId: string, input: CreateSiteInput): Promise<SiteView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'createContent', 'create sites');
  const title = input.title ?? 'Untitled site';
  let spaces: SpaceRow[] = [];
  if (Array.isArray(input.spaces)) {
    const seen = new Set<string>();
    for (const [i, id] of input.spaces.entries()) {
      if (seen.has(id)) throw new InvalidArgument(`spaces[${i}]: space "${id}" is listed twice`);
      seen.add(id);
      spaces.push(await spaceForSite(ctx.db, access, id, `spaces[${i}]`));
    }
  } else if (input.spaces) {
    const files = input.spaces === 'sample' ? sampleFiles : undefined;
    const created = await createSpace(ctx, caller, organizationId, { title: title.slice(0, 50) }, { files });
    spaces = [created.space];
  }
  const now = nowIso();
  const site: SiteRow = {
    id: newId(),
    organization_id: organizationId,
    type: input.type ?? 'basic',
    title,
    visibility: input.visibility ?? 'share-link',
    basename: null,
    proxy: null,
    // Docs for agents are on by default (published.ts servesAgents): a site that is not open to everyone shows them to
    // no one who may not read it anyway.
    agents_context: 'included',
    adaptive_content: 0,
    adaptive_schema: null,
    adaptive_schema_updated_at: null,
    created_at: now,
    updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await insertSite(trx, site);
    const paths: string[] = [];
    for (const [i, space] of spaces.entries()) {
      const path = uniquePath(space.title, paths, 'space');
      paths.push(path);
      await insertSiteSpace(trx, {
        id: newId(),
        site_id: site.id,
        section_id: null,
        space_id: space.id,
        path,
        condition: null,
        is_default: i === 0 ? 1 : 0,
        position: i + 1,
        created_at: now,
        updated_at: now,
      });
    }
  });
  return siteView(ctx, site);
}

export async function getSite(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<SiteView> {
  const { site } = await loadSite(ctx, caller, organizationId, siteId);
  return siteView(ctx, site);
}

/** Sites of the organization, oldest first (members who are not guests). */
export async function listSites(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  request: PageRequest & SiteListFilter,
): Promise<Page<SiteView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  if (!sitePermissions(access).view) throw new PermissionDenied('you need a role in the organization (guests have none) to list its sites');
  const filter: SiteListFilter = { title: request.title, space: request.space, published: request.published, types: request.types };
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `sites:${organizationId}:${JSON.stringify(filter)}`,
    request,
    fetch: (after, n) => listSiteRows(ctx.db, organizationId, filter, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => row,
  });
  const counts = await siteSpaceCounts(ctx.db, page.items.map((s) => s.id));
  return { items: page.items.map((site) => ({ site, siteSpaces: counts.get(site.id) ?? 0 })), next: page.next };
}

export interface SitePatch {
  title?: string;
  visibility?: SiteVisibility;
  basename?: string;
  adaptiveContent?: { enabled: boolean };
  agentsContext?: AgentsContext;
  defaultSiteSpace?: string;
  defaultSiteSection?: string;
  proxy?: string | null;
}

/**
 * Updates a site (edit). `defaultSiteSpace` is a site space at the root of a site without sections, or in the
 * default section of a site with sections; `defaultSiteSection` is a section of the site.
 */
export async function updateSite(ctx: Context, caller: Caller, organizationId: string, siteId: string, patch: SitePatch): Promise<SiteView> {
  const { site, access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'edit', 'update it');
  const changes: Partial<SiteRow> = { updated_at: nowIso() };
  if (patch.title !== undefined) changes.title = patch.title;
  if (patch.visibility !== undefined) changes.visibility = patch.visibility;
  if (patch.basename !== undefined) {
    checkPath(patch.basename, 'basename');
    changes.basename = patch.basename;
  }
  if (patch.adaptiveContent !== undefined) changes.adaptive_content = patch.adaptiveContent.enabled ? 1 : 0;
  if (patch.agentsContext !== undefined) changes.agents_context = patch.agentsContext;
  if (patch.proxy !== undefined) changes.proxy = patch.proxy;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await lockSiteRow(trx, siteId);
      const structure = await readStructure(trx, site);
      if (patch.defaultSiteSection !== undefined) {
        const section = structure.sections.find((s) => s.id === patch.defaultSiteSection);
        if (!section) throw new InvalidArgument(`defaultSiteSection: no section "${patch.defaultSiteSection}" in this site`);
        await clearDefaultSection(trx, siteId);
        await updateSectionRow(trx, section.id, { is_default: 1 });
        structure.defaultSection = section.id;
      }
      if (patch.defaultSiteSpace !== undefined) {
        const container = structure.sections.length > 0 ? structure.defaultSection : null;
        const siteSpace = siteSpacesIn(structure, container).find((s) => s.id === patch.defaultSiteSpace);
        if (!siteSpace) {
          const where = container ? 'in the default section of this site' : 'at the root of this site';
          throw new InvalidArgument(`defaultSiteSpace: no site space "${patch.defaultSiteSpace}" ${where}`);
        }
        await clearDefaultSiteSpace(trx, siteId, container);
        await updateSiteSpaceRow(trx, siteSpace.id, { is_default: 1 });
      }
      await updateSiteRow(trx, siteId, changes);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(`basename: "${patch.basename}" is already used by another site of the organization`);
    throw error;
  }
  return getSite(ctx, caller, organizationId, siteId);
}

/**
 * Deletes a site and everything in it (edit); its share links stop working at once, and the organization's
 * `defaultContent` forgets it. False when there was no such site.
 */
export async function deleteSite(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<boolean> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireSitePermission(access, siteId, 'edit', 'delete it');
  return ctx.db.transaction().execute(async (trx) => {
    const organization = await findOrganizationById(trx, organizationId);
    const current = organization?.default_content ? (JSON.parse(organization.default_content) as { site?: string }) : null;
    if (current?.site === siteId) await updateOrganizationRow(trx, organizationId, { default_content: null, updated_at: nowIso() });
    return deleteSiteRow(trx, organizationId, siteId);
  });
}

/** What getPublishedContentSite answers: the site and its structure, for members and for the public or share-key holders of a published site. */
export async function getPublishedSite(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  shareKey: string | undefined,
): Promise<SiteTree> {
  const reader = await loadSite(ctx, caller, organizationId, siteId, { visitor: { shareKey } });
  return loadTree(ctx, reader);
}

// ---- adaptive schema

export interface AdaptiveSchemaView {
  jsonSchema: Record<string, unknown>;
  updatedAt: string;
}

export async function getAdaptiveSchema(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<AdaptiveSchemaView> {
  const { site } = await loadSite(ctx, caller, organizationId, siteId);
  if (!site.adaptive_schema || !site.adaptive_schema_updated_at) throw new NotFound('siteId: no visitor attributes schema found for the site');
  return { jsonSchema: JSON.parse(site.adaptive_schema) as Record<string, unknown>, updatedAt: site.adaptive_schema_updated_at };
}

/**
 * Sets the site's visitor-claims schema (edit). Refused (400) when it breaks the spec's constraints, or when a
 * condition of the site still uses a claim the new schema drops.
 */
export async function updateAdaptiveSchema(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  jsonSchema: unknown,
): Promise<AdaptiveSchemaView> {
  const { site, access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'edit', 'change its adaptive schema');
  const claims = checkAdaptiveSchema(jsonSchema);
  const signed = new Set(claims.signed.keys());
  await ctx.db.transaction().execute(async (trx) => {
    await lockSiteRow(trx, siteId);
    const structure = await readStructure(trx, site);
    const conditions = [
      ...structure.sections.map((s) => ({ what: `section "${s.id}"`, condition: s.condition })),
      ...structure.siteSpaces.map((s) => ({ what: `site space "${s.id}"`, condition: s.condition })),
    ];
    for (const { what, condition } of conditions) {
      if (!condition) continue;
      try {
        checkCondition(condition, signed);
      } catch (error) {
        if (!(error instanceof InvalidArgument)) throw error;
        throw new InvalidArgument(`jsonSchema.properties: the condition of ${what} would no longer be valid (${error.message})`);
      }
    }
    const now = nowIso();
    await updateSiteRow(trx, siteId, { adaptive_schema: JSON.stringify(jsonSchema), adaptive_schema_updated_at: now, updated_at: now });
  });
  return getAdaptiveSchema(ctx, caller, organizationId, siteId);
}

/** Conditions suggested from the site's claims (none without a schema). */
export async function listTemplateConditions(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
): Promise<Array<{ description: string; condition: string }>> {
  const { site } = await loadSite(ctx, caller, organizationId, siteId);
  return templateConditions(storedClaims(site.adaptive_schema));
}

/** The names of the signed claims conditions of the site may use. */
export function siteClaimNames(site: SiteRow): Set<string> {
  return new Set(storedClaims(site.adaptive_schema).signed.keys());
}
