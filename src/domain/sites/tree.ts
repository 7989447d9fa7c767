/**
 * Who may read a site, and the site's structure read whole and put in order.
 *
 * The structure: a site either has sections or not. Without sections its site spaces sit at its root. With
 * sections, the top level holds sections and section groups (ordered together); a group holds sections; each
 * section holds site spaces. Each container has one default item (the first one unless another was chosen).
 * Siblings are ordered by a numeric `position` (domain/content/positions.ts places items among them).
 */
import type { Context, Caller } from '../context.js';
import { NotFound } from '../errors.js';
import { isMember, loadOrgAccess, sitePermissions, strongest, type OrgAccess } from '../permissions.js';
import { spaceCounters, spaceViewOf, type SpaceView } from '../content/spaces.js';
import type { Ordered } from '../content/positions.js';
import { findSpaces } from '../../store/sql/spaces.js';
import { shareKeyOpensSite } from './share-keys.js';
import {
  findSite,
  sectionGroupsOfSite,
  sectionsOfSite,
  siteSpaceCounts,
  siteSpacesOfSite,
  type SiteRow,
  type SiteSectionGroupRow,
  type SiteSectionRow,
  type SiteSpaceRow,
  type StructureTable,
} from '../../store/sql/sites.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/sql/schema.js';

export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
export type SiteVisibility = (typeof SITE_VISIBILITIES)[number];

/** A site and how the caller reaches it. */
export interface SiteReader {
  site: SiteRow;
  access: OrgAccess;
  /** `member`: through the organization. `visitor`: a published site read as its public, or with a share key. */
  via: 'member' | 'visitor';
}

/** What a reader who is not a member brings to a site. */
export interface SiteVisitorKeys {
  /** The token of a share link (share-link sites). */
  shareKey?: string;
  /** True when the reader brought a visitor token signed with this site's key (visitor-auth sites; visitor-auth.ts). */
  authenticated?: boolean;
  /**
   * True when the reader brought a valid preview link of this site (site-previews.ts) or of a change request of one
   * of its spaces: it opens the site whatever its visibility, published or not.
   */
  preview?: boolean;
}

/** True when the site has something to show: at least one site space (Site.published). */
export async function isPublished(ctx: Context, siteId: string): Promise<boolean> {
  return ((await siteSpaceCounts(ctx.db, [siteId])).get(siteId) ?? 0) > 0;
}

/**
 * The site and the caller's way in. Members who are not guests read every site of the organization. With `visitor`,
 * operations that publish a site (the published view, its sections, site spaces and structure) also let anyone else
 * read a published site whose visibility is public or unlisted, a share-link site with the key of one of its active
 * share links, or a visitor-auth site with a valid visitor token (published pages only). 404 otherwise (existence is
 * not leaked).
 */
export async function loadSite(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  options: { visitor?: SiteVisitorKeys } = {},
): Promise<SiteReader> {
  return openSite(ctx, await loadOrgAccess(ctx, organizationId, caller.user.id), organizationId, siteId, options);
}

/** loadSite for whoever `access` describes: a member, a user of another organization, or an anonymous reader. */
export async function openSite(
  ctx: Context,
  access: OrgAccess,
  organizationId: string,
  siteId: string,
  options: { visitor?: SiteVisitorKeys } = {},
): Promise<SiteReader> {
  const hidden = new NotFound(`siteId: no site "${siteId}" is visible to you`);
  if (sitePermissions(access).view) {
    const site = await findSite(ctx.db, organizationId, siteId);
    if (!site) throw new NotFound(`siteId: no site "${siteId}" in this organization`);
    return { site, access, via: 'member' };
  }
  if (options.visitor) {
    const site = await findSite(ctx.db, organizationId, siteId);
    if (site && options.visitor.preview === true) return { site, access, via: 'visitor' };
    if (!site || !(await isPublished(ctx, site.id))) throw hidden;
    const open =
      site.visibility === 'public' || site.visibility === 'unlisted' || (site.visibility === 'visitor-auth' && options.visitor.authenticated === true);
    if (open || (await shareKeyOpensSite(ctx, options.visitor.shareKey, site.id))) return { site, access, via: 'visitor' };
    throw hidden;
  }
  if (isMember(access)) throw hidden;
  throw new NotFound(`organizationId: no organization "${organizationId}" is visible to you`);
}

// ---- the structure

export type StructureType = 'site-space' | 'site-section' | 'site-section-group';

export interface StructurePointer {
  type: StructureType;
  id: string;
}

export interface Structure {
  site: SiteRow;
  /** Top-level order. */
  groups: SiteSectionGroupRow[];
  /** Structure order: top-level order, a group's sections in its place. */
  sections: SiteSectionRow[];
  /** Structure order: root site spaces, then each section's in section order. */
  siteSpaces: SiteSpaceRow[];
  /** The default section (null when the site has none). */
  defaultSection: string | null;
  /** The default site space of each container. */
  defaultSiteSpaces: Set<string>;
}

function byPosition<T extends { position: number; created_at: string; id: string }>(a: T, b: T): number {
  return Number(a.position) - Number(b.position) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
}

export interface TopLevelItem {
  type: 'site-section' | 'site-section-group';
  row: SiteSectionRow | SiteSectionGroupRow;
}

/** Sections outside groups and groups, in their shared order. */
export function topLevel(groups: readonly SiteSectionGroupRow[], sections: readonly SiteSectionRow[]): TopLevelItem[] {
  const groupIds = new Set(groups.map((g) => g.id));
  const items: Array<TopLevelItem & { sort: SiteSectionRow | SiteSectionGroupRow }> = [
    ...groups.map((row) => ({ type: 'site-section-group' as const, row, sort: row })),
    ...sections.filter((s) => !s.group_id || !groupIds.has(s.group_id)).map((row) => ({ type: 'site-section' as const, row, sort: row })),
  ];
  return items.sort((a, b) => byPosition(a.sort, b.sort)).map(({ type, row }) => ({ type, row }));
}

/** The site's structure, read in `db` (a transaction when it is about to change). */
export async function readStructure(db: Kysely<Database>, site: SiteRow): Promise<Structure> {
  const [groupRows, sectionRows, siteSpaceRows] = await Promise.all([
    sectionGroupsOfSite(db, site.id),
    sectionsOfSite(db, site.id),
    siteSpacesOfSite(db, site.id),
  ]);
  const groups = [...groupRows].sort(byPosition);
  const top = topLevel(groups, sectionRows);
  const sections: SiteSectionRow[] = [];
  for (const item of top) {
    if (item.type === 'site-section') sections.push(item.row as SiteSectionRow);
    else sections.push(...sectionRows.filter((s) => s.group_id === item.row.id).sort(byPosition));
  }
  const containers: Array<string | null> = [null, ...sections.map((s) => s.id)];
  const siteSpaces: SiteSpaceRow[] = [];
  const defaultSiteSpaces = new Set<string>();
  for (const container of containers) {
    const inside = siteSpaceRows.filter((s) => s.section_id === container).sort(byPosition);
    siteSpaces.push(...inside);
    const chosen = inside.find((s) => s.is_default === 1) ?? inside[0];
    if (chosen) defaultSiteSpaces.add(chosen.id);
  }
  const defaultSection = (sections.find((s) => s.is_default === 1) ?? sections[0])?.id ?? null;
  return { site, groups, sections, siteSpaces, defaultSection, defaultSiteSpaces };
}

/** The site spaces of a container (a section id, or null for the root), in order. */
export function siteSpacesIn(structure: Structure, sectionId: string | null): SiteSpaceRow[] {
  return structure.siteSpaces.filter((s) => s.section_id === sectionId);
}

/** The sections of a group, in order. */
export function sectionsOfGroup(structure: Structure, groupId: string): SiteSectionRow[] {
  return structure.sections.filter((s) => s.group_id === groupId);
}

export function keyOf(pointer: StructurePointer): string {
  return `${pointer.type}:${pointer.id}`;
}

export const TABLE_OF: Record<StructureType, StructureTable> = {
  'site-space': 'site_spaces',
  'site-section': 'site_sections',
  'site-section-group': 'site_section_groups',
};

/** The items sharing a container with `item` (the item included), in order; undefined when the item is unknown. */
export function siblingsOf(structure: Structure, item: StructurePointer): Ordered[] | undefined {
  const ordered = (type: StructureType, rows: ReadonlyArray<{ id: string; position: number }>): Ordered[] =>
    rows.map((row) => ({ key: keyOf({ type, id: row.id }), position: Number(row.position) }));
  const topOrdered = () => topLevel(structure.groups, structure.sections).map((t) => ({ key: keyOf({ type: t.type, id: t.row.id }), position: Number(t.row.position) }));
  switch (item.type) {
    case 'site-space': {
      const row = structure.siteSpaces.find((s) => s.id === item.id);
      return row ? ordered('site-space', siteSpacesIn(structure, row.section_id)) : undefined;
    }
    case 'site-section': {
      const row = structure.sections.find((s) => s.id === item.id);
      if (!row) return undefined;
      return row.group_id ? ordered('site-section', sectionsOfGroup(structure, row.group_id)) : topOrdered();
    }
    case 'site-section-group':
      return structure.groups.some((g) => g.id === item.id) ? topOrdered() : undefined;
  }
}

/** The structure with what presenting it needs: the spaces of the site spaces as the caller sees them. */
export interface SiteTree extends Structure {
  via: SiteReader['via'];
  spaces: Map<string, SpaceView>;
}

/**
 * Reads the structure and the spaces it publishes. Whoever reads a site reads the spaces it publishes: their
 * role is at least `read` here (members who are not guests already read every space of the organization).
 * `published` (the published site, and visitors through the API; by default for visitors): without the site spaces
 * of deleted spaces, so that deleting a space stops publishing it at once, and restoring it publishes it again
 * (members managing the site still see them in its structure).
 */
export async function loadTree(ctx: Context, reader: SiteReader, options: { counters?: boolean; published?: boolean } = {}): Promise<SiteTree> {
  const structure = await readStructure(ctx.db, reader.site);
  const spaceIds = [...new Set(structure.siteSpaces.map((s) => s.space_id))];
  // Readers of the published site never see the spaces' counters (comments, change requests): not counted for them.
  const [rows, counters] = await Promise.all([findSpaces(ctx.db, spaceIds), options.counters === false ? new Map() : spaceCounters(ctx, spaceIds)]);
  const spaces = new Map<string, SpaceView>();
  for (const space of rows) {
    const view = spaceViewOf(reader.access, space, counters.get(space.id));
    spaces.set(space.id, { ...view, role: strongest(view.role, 'read') });
  }
  if (!(options.published ?? reader.via === 'visitor')) return { ...structure, via: reader.via, spaces };
  const live = new Set(rows.filter((space) => space.deleted_at === null).map((space) => space.id));
  return { ...structure, siteSpaces: structure.siteSpaces.filter((siteSpace) => live.has(siteSpace.space_id)), via: reader.via, spaces };
}
