/**
 * The structure of a site: sections (./site-sections.ts), section groups (./site-section-groups.ts), site spaces
 * (./site-spaces.ts), and here what they share, one item read and sortSiteStructure. Every change runs in a
 * transaction that first locks the site's row, reads the structure and writes what changes (changeStructure), so
 * defaults and positions are computed from a current picture.
 *
 * Rules (README "Sites"):
 * - A site without sections keeps its site spaces at its root. Adding the first section to a site whose spaces
 *   sit at the root moves them into a first, default section (titled like the site), then adds the new one.
 * - Without `sectionId` a new site space goes to the default section, or to the root of a site without sections.
 * - The first item of a container is its default; deleting the default makes the first remaining one default.
 * - Section paths are unique in the site, site space paths in their section (or the root): a clash is 409.
 *   Paths made from titles get `-2`, `-3`... instead.
 * - Moves and sorts reorder siblings (the items of one container) and nothing else: a pointer to an item of
 *   another container is 400.
 * - Deleting a section deletes its site spaces; deleting a group puts its sections back at the top level, in its place.
 */
import type { Kysely } from 'kysely';
import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { requireSitePermission } from '../permissions.js';
import { placeAmong, type Ordered } from '../content/positions.js';
import type { Database } from '../../store/sql/schema.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import {
  insertSiteSpace,
  lockSiteRow,
  setStructurePosition,
  type SiteSectionGroupRow,
  type SiteSectionRow,
  type SiteSpaceRow,
} from '../../store/sql/sites.js';
import { uniquePath } from './sites.js';
import {
  keyOf,
  loadSite,
  loadTree,
  readStructure,
  siblingsOf,
  siteSpacesIn,
  TABLE_OF,
  topLevel,
  type SiteReader,
  type SiteTree,
  type Structure,
  type StructurePointer,
  type StructureType,
} from './tree.js';

/** An item of the structure and the tree to present it in. */
export interface StructureItemView {
  tree: SiteTree;
  item: StructurePointer;
}

export type Trx = Kysely<Database>;

/** Loads the site for a change (edit), then runs `work` in a transaction on the locked, freshly read structure. */
export async function changeStructure<T>(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  action: string,
  work: (trx: Trx, structure: Structure, reader: SiteReader) => Promise<T>,
): Promise<{ reader: SiteReader; result: T }> {
  const reader = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(reader.access, siteId, 'edit', action);
  try {
    const result = await ctx.db.transaction().execute(async (trx) => {
      await lockSiteRow(trx, siteId);
      return work(trx, await readStructure(trx, reader.site), reader);
    });
    return { reader, result };
  } catch (error) {
    // The unique indexes on paths back the checks below against a concurrent writer in another process.
    if (isUniqueViolation(error)) throw new Conflict('path: another item beside this one already uses that path');
    throw error;
  }
}

export async function itemView(ctx: Context, reader: SiteReader, item: StructurePointer): Promise<StructureItemView> {
  return { tree: await loadTree(ctx, reader), item };
}

export function ordered(type: StructureType, rows: ReadonlyArray<{ id: string; position: number }>): Ordered[] {
  return rows.map((row) => ({ key: keyOf({ type, id: row.id }), position: Number(row.position) }));
}

export function topOrdered(structure: Structure): Ordered[] {
  return topLevel(structure.groups, structure.sections).map((t) => ({ key: keyOf({ type: t.type, id: t.row.id }), position: Number(t.row.position) }));
}

export function endOf(siblings: readonly Ordered[]): number {
  return siblings.length === 0 ? 1 : siblings[siblings.length - 1].position + 1;
}

function parseKey(key: string): StructurePointer {
  const at = key.indexOf(':');
  return { type: key.slice(0, at) as StructureType, id: key.slice(at + 1) };
}

export async function writeRenumbered(trx: Trx, renumbered: readonly Ordered[] | null): Promise<void> {
  for (const sibling of renumbered ?? []) {
    const { type, id } = parseKey(sibling.key);
    await setStructurePosition(trx, TABLE_OF[type], id, sibling.position);
  }
}

export interface Anchor {
  pointer: StructurePointer;
  side: 'before' | 'after';
  /** The request field that names the pointer, for the 400. */
  field: string;
}

/** Moves an item among its siblings: just before or after `anchor`, or to their end without one. */
export async function moveAmongSiblings(trx: Trx, structure: Structure, item: StructurePointer, anchor: Anchor | undefined): Promise<void> {
  const siblings = siblingsOf(structure, item)!.filter((s) => s.key !== keyOf(item));
  const placement = placeAmong(siblings, anchor && { key: keyOf(anchor.pointer), side: anchor.side });
  if (!placement) {
    throw new InvalidArgument(`${anchor!.field}: ${anchor!.pointer.type} "${anchor!.pointer.id}" is not a sibling of the moved ${item.type} in the site's structure`);
  }
  await writeRenumbered(trx, placement.renumbered);
  await setStructurePosition(trx, TABLE_OF[item.type], item.id, placement.position);
}

export function findSection(structure: Structure, id: string, field: string, status: 'notFound' | 'invalid'): SiteSectionRow {
  const section = structure.sections.find((s) => s.id === id);
  if (section) return section;
  const message = `${field}: no section "${id}" in this site`;
  throw status === 'notFound' ? new NotFound(message) : new InvalidArgument(message);
}

export function findGroup(structure: Structure, id: string): SiteSectionGroupRow {
  const group = structure.groups.find((g) => g.id === id);
  if (!group) throw new NotFound(`siteSectionGroupId: no section group "${id}" in this site`);
  return group;
}

export function findSiteSpace(structure: Structure, id: string): SiteSpaceRow {
  const siteSpace = structure.siteSpaces.find((s) => s.id === id);
  if (!siteSpace) throw new NotFound(`siteSpaceId: no site space "${id}" in this site`);
  return siteSpace;
}

/** Inserts a site space at the end of a container; the first of a container becomes its default. */
export async function addSiteSpaceRow(trx: Trx, structure: Structure, sectionId: string | null, space: { id: string; title: string }): Promise<SiteSpaceRow> {
  const siblings = siteSpacesIn(structure, sectionId);
  const now = nowIso();
  const row: SiteSpaceRow = {
    id: newId(),
    site_id: structure.site.id,
    section_id: sectionId,
    space_id: space.id,
    path: uniquePath(space.title, siblings.map((s) => s.path), 'space'),
    condition: null,
    is_default: siblings.length === 0 ? 1 : 0,
    position: endOf(ordered('site-space', siblings)),
    created_at: now,
    updated_at: now,
  };
  await insertSiteSpace(trx, row);
  structure.siteSpaces.push(row);
  return row;
}

/**
 * One item of the site's structure, for whoever may list it (members; the public or share-key holders of a published
 * site): the reads behind each item's `urls.location`.
 */
export async function getStructureItem(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  item: StructurePointer,
  shareKey?: string,
): Promise<StructureItemView> {
  const reader = await loadSite(ctx, caller, organizationId, siteId, { visitor: { shareKey } });
  const view = await itemView(ctx, reader, item);
  if (item.type === 'site-section') findSection(view.tree, item.id, 'siteSectionId', 'notFound');
  else if (item.type === 'site-section-group') findGroup(view.tree, item.id);
  else findSiteSpace(view.tree, item.id);
  return view;
}

/** sortSiteStructure: moves any item of the structure among its siblings (404 when the item is not in the site). */
export async function sortStructure(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  item: StructurePointer,
  anchor: Anchor | undefined,
): Promise<StructureItemView> {
  return moveItem(ctx, caller, organizationId, siteId, item, anchor, 'sort its structure', (structure) => {
    if (!siblingsOf(structure, item)) throw new NotFound(`item: no ${item.type} "${item.id}" in this site`);
  });
}

/**
 * Moves an item among its siblings: what sortSiteStructure and the deprecated moves share. `requireItem` throws the
 * 404 the operation answers when the item is not in the site.
 */
export async function moveItem(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  item: StructurePointer,
  anchor: Anchor | undefined,
  action: string,
  requireItem: (structure: Structure) => unknown,
): Promise<StructureItemView> {
  const { reader } = await changeStructure(ctx, caller, organizationId, siteId, action, async (trx, structure) => {
    requireItem(structure);
    await moveAmongSiblings(trx, structure, item, anchor);
  });
  return itemView(ctx, reader, item);
}
