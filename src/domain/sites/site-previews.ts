/**
 * Previews of a site (the reference's getSitePublishingPreviewById): a link that opens the site as it is published,
 * for one hour, to whoever holds it, without an account, whatever its visibility and even before it is published, as
 * a visitor with the claims the editor chose (adaptive content). The link's token is signed with the instance's link
 * secret (signing.ts) and names the site, the site space and the claims; a forged, altered or expired one opens
 * nothing (the site answers as it does to anyone).
 */
import type { Caller, Context } from '../context.js';
import { DomainError, InvalidArgument } from '../errors.js';
import { requireSitePermission } from '../permissions.js';
import { MAX_RISON_LENGTH, parseRison, RisonError } from '../../content/rison.js';
import type { VisitorClaims } from './conditions.js';
import { loadSite, readStructure } from './tree.js';
import type { SiteRow } from '../../store/sql/sites.js';

/** How long a preview link opens the site (the reference's one hour). */
export const SITE_PREVIEW_MS = 60 * 60 * 1000;

const KIND = 'site-preview';

export interface SitePreviewLink {
  site: SiteRow;
  /** The URL segments below the site that lead to the site space previewed ('' segments left out). */
  prefix: string[];
  token: string;
  expiresAt: number;
}

/** What a valid preview token opens. */
export interface SitePreview {
  siteId: string;
  siteSpaceId: string | null;
  claims: VisitorClaims;
}

/** The visitor claims of `claims` (Rison, an object at its top); 400 naming `claims` otherwise. */
export function parsePreviewClaims(claims: string | undefined): VisitorClaims {
  if (claims === undefined || claims === '') return {};
  if (claims.length > MAX_RISON_LENGTH) throw new InvalidArgument(`claims: is longer than ${MAX_RISON_LENGTH} characters`);
  let parsed: unknown;
  try {
    parsed = parseRison(claims);
  } catch (error) {
    if (error instanceof RisonError) throw new InvalidArgument(`claims: is not Rison (${error.message})`);
    throw error;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new InvalidArgument('claims: must be a Rison object, such as (plan:premium)');
  return parsed as VisitorClaims;
}

/** A preview link of the site (its default site space, or `siteSpace`), for those who may edit the site. */
export async function createSitePreviewLink(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  options: { siteSpace?: string; claims?: string },
): Promise<SitePreviewLink> {
  const { site, access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'edit', 'preview it');
  const claims = parsePreviewClaims(options.claims);
  const structure = await readStructure(ctx.db, site);
  const prefix: string[] = [];
  let siteSpaceId: string | null = null;
  if (options.siteSpace !== undefined) {
    const siteSpace = structure.siteSpaces.find((s) => s.id === options.siteSpace);
    if (!siteSpace) throw new InvalidArgument(`siteSpace: no site space "${options.siteSpace}" in this site`);
    const section = siteSpace.section_id === null ? undefined : structure.sections.find((s) => s.id === siteSpace.section_id);
    if (section && section.id !== structure.defaultSection) prefix.push(section.path);
    if (!structure.defaultSiteSpaces.has(siteSpace.id)) prefix.push(siteSpace.path);
    siteSpaceId = siteSpace.id;
  }
  const expiresAt = Date.now() + SITE_PREVIEW_MS;
  const token = ctx.downloadLinks.create({ kind: KIND, site: site.id, siteSpace: siteSpaceId, claims }, expiresAt);
  return { site, prefix, token, expiresAt };
}

/** What `token` previews when it is a valid, unexpired preview token of the site `siteId`; undefined otherwise. */
export function openSitePreview(ctx: Context, siteId: string, token: string): SitePreview | undefined {
  let data: Record<string, unknown>;
  try {
    data = ctx.downloadLinks.open(token);
  } catch (error) {
    if (error instanceof DomainError) return undefined;
    throw error;
  }
  if (data.kind !== KIND || data.site !== siteId) return undefined;
  const claims = typeof data.claims === 'object' && data.claims !== null && !Array.isArray(data.claims) ? (data.claims as VisitorClaims) : {};
  return { siteId, siteSpaceId: typeof data.siteSpace === 'string' ? data.siteSpace : null, claims };
}
