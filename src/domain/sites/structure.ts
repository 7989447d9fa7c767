/**
 * The structure of a site: sections, section groups, site spaces and
 * sortSiteStructure. Every change runs in a transaction that first locks the site's row, reads the structure
 * and writes what changes, so defaults and positions are computed from a current picture.
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
import { collectPage, fetchInMemory, type Page, type PageRequest } from '../lists.js';
import { requireSitePermission } from '../permissions.js';
import { placeAmong, type Ordered } from '../content/positions.js';
import type { Database } from '../../store/sql/schema.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import {
  clearDefaultSection,
  clearDefaultSiteSpace,
  deleteSectionGroupRow,
  deleteSectionRow,
  deleteSiteSpaceRow,
  insertSection,
  insertSectionGroup,
  insertSiteSpace,
  lockSiteRow,
  moveRootSiteSpacesInto,
  setStructurePosition,
  updateSectionGroupRow,
  updateSectionRow,
  updateSiteSpaceRow,
  type SiteSectionGroupRow,
  type SiteSectionRow,
  type SiteSpaceRow,
} from '../../store/sql/sites.js';
import { checkCondition } from './conditions.js';
import { checkPath, siteClaimNames, spaceForSite, uniquePath } from './sites.js';
import {
  keyOf,
  loadSite,
  loadTree,
  readStructure,
  sectionsOfGroup,
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

type Trx = Kysely<Database>;

/** Loads the site for a change (edit), then runs `work` in a transaction on the locked, freshly read structure. */
async function changeStructure<T>(
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

async function itemView(ctx: Context, reader: SiteReader, item: StructurePointer): Promise<StructureItemView> {
  return { tree: await loadTree(ctx, reader), item };
}

function ordered(type: StructureType, rows: ReadonlyArray<{ id: string; position: number }>): Ordered[] {
  return rows.map((row) => ({ key: keyOf({ type, id: row.id }), position: Number(row.position) }));
}

function topOrdered(structure: Structure): Ordered[] {
  return topLevel(structure.groups, structure.sections).map((t) => ({ key: keyOf({ type: t.type, id: t.row.id }), position: Number(t.row.position) }));
}

function endOf(siblings: readonly Ordered[]): number {
  return siblings.length === 0 ? 1 : siblings[siblings.length - 1].position + 1;
}

function parseKey(key: string): StructurePointer {
  const at = key.indexOf(':');
  return { type: key.slice(0, at) as StructureType, id: key.slice(at + 1) };
}

async function writeRenumbered(trx: Trx, renumbered: readonly Ordered[] | null): Promise<void> {
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
async function moveAmongSiblings(trx: Trx, structure: Structure, item: StructurePointer, anchor: Anchor | undefined): Promise<void> {
  const siblings = siblingsOf(structure, item)!.filter((s) => s.key !== keyOf(item));
  const placement = placeAmong(siblings, anchor && { key: keyOf(anchor.pointer), side: anchor.side });
  if (!placement) {
    throw new InvalidArgument(`${anchor!.field}: ${anchor!.pointer.type} "${anchor!.pointer.id}" is not a sibling of the moved ${item.type} in the site's structure`);
  }
  await writeRenumbered(trx, placement.renumbered);
  await setStructurePosition(trx, TABLE_OF[item.type], item.id, placement.position);
}

function findSection(structure: Structure, id: string, field: string, status: 'notFound' | 'invalid'): SiteSectionRow {
  const section = structure.sections.find((s) => s.id === id);
  if (section) return section;
  const message = `${field}: no section "${id}" in this site`;
  throw status === 'notFound' ? new NotFound(message) : new InvalidArgument(message);
}

function findGroup(structure: Structure, id: string): SiteSectionGroupRow {
  const group = structure.groups.find((g) => g.id === id);
  if (!group) throw new NotFound(`siteSectionGroupId: no section group "${id}" in this site`);
  return group;
}

function findSiteSpace(structure: Structure, id: string): SiteSpaceRow {
  const siteSpace = structure.siteSpaces.find((s) => s.id === id);
  if (!siteSpace) throw new NotFound(`siteSpaceId: no site space "${id}" in this site`);
  return siteSpace;
}

function checkSectionPath(structure: Structure, path: string, except: string): void {
  checkPath(path);
  if (structure.sections.some((s) => s.id !== except && s.path === path)) {
    throw new Conflict(`path: another section of this site already uses "${path}"`);
  }
}

function checkSiteSpacePath(structure: Structure, sectionId: string | null, path: string, except: string): void {
  checkPath(path);
  if (siteSpacesIn(structure, sectionId).some((s) => s.id !== except && s.path === path)) {
    throw new Conflict(`path: another site space ${sectionId ? 'of this section' : 'at the root of this site'} already uses "${path}"`);
  }
}

/** Inserts a site space at the end of a container; the first of a container becomes its default. */
async function addSiteSpaceRow(trx: Trx, structure: Structure, sectionId: string | null, space: { id: string; title: string }): Promise<SiteSpaceRow> {
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

// ---- sections

/** Sections of the site in structure order (members; the public or share-key holders of a published site). */
export async function listSections(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  request: PageRequest & { shareKey?: string },
): Promise<{ tree: SiteTree; page: Page<SiteSectionRow> }> {
  const reader = await loadSite(ctx, caller, organizationId, siteId, { visitor: { shareKey: request.shareKey } });
  const tree = await loadTree(ctx, reader);
  const groups = new Map(tree.groups.map((g) => [g.id, Number(g.position)]));
  const positionOf = (s: SiteSectionRow) =>
    s.group_id && groups.has(s.group_id) ? [groups.get(s.group_id)!, Number(s.position), s.id] : [Number(s.position), 0, s.id];
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `site-sections:${siteId}`,
    request,
    fetch: fetchInMemory(tree.sections, positionOf),
    positionOf,
    present: (row) => row,
  });
  return { tree, page };
}

export interface AddSectionInput {
  spaceId: string;
  title?: string | null;
  icon?: string | null;
}

/**
 * Adds a section holding one site space of `spaceId`, at the end of the top level. The first section of a site
 * whose spaces sit at its root first gathers them in a default section.
 */
export async function addSection(ctx: Context, caller: Caller, organizationId: string, siteId: string, input: AddSectionInput): Promise<StructureItemView> {
  const { reader, result } = await changeStructure(ctx, caller, organizationId, siteId, 'add sections', async (trx, structure, { access, site }) => {
    const space = await spaceForSite(trx, access, input.spaceId, 'spaceId');
    const now = nowIso();
    const newSection = (title: string, isDefault: boolean): SiteSectionRow => ({
      id: newId(),
      site_id: site.id,
      group_id: null,
      title,
      description: null,
      path: uniquePath(title, structure.sections.map((s) => s.path), 'section'),
      condition: null,
      icon: null,
      is_default: isDefault ? 1 : 0,
      position: endOf(topOrdered(structure)),
      created_at: now,
      updated_at: now,
    });
    const rootSpaces = siteSpacesIn(structure, null);
    if (structure.sections.length === 0 && rootSpaces.length > 0) {
      const first = newSection(site.title, true);
      await insertSection(trx, first);
      await moveRootSiteSpacesInto(trx, site.id, first.id);
      structure.sections.push(first);
      for (const s of rootSpaces) s.section_id = first.id;
    }
    const title = input.title ?? (space.title.trim().length >= 2 ? space.title.slice(0, 128) : 'Section');
    const section = { ...newSection(title, structure.sections.length === 0), icon: input.icon ?? null };
    await insertSection(trx, section);
    structure.sections.push(section);
    await addSiteSpaceRow(trx, structure, section.id, space);
    return section.id;
  });
  return itemView(ctx, reader, { type: 'site-section', id: result });
}

export interface SectionPatch {
  title?: string;
  path?: string;
  defaultSiteSpace?: string;
  condition?: string | null;
  icon?: string | null;
  description?: string | null;
}

/** Updates a section; an absent `condition` (or icon, description) is kept, null removes it. */
export async function updateSection(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  sectionId: string,
  patch: SectionPatch,
): Promise<StructureItemView> {
  const { reader } = await changeStructure(ctx, caller, organizationId, siteId, 'update its sections', async (trx, structure, { site }) => {
    const section = findSection(structure, sectionId, 'siteSectionId', 'notFound');
    const changes: Partial<SiteSectionRow> = { updated_at: nowIso() };
    if (patch.title !== undefined) changes.title = patch.title;
    if (patch.path !== undefined) {
      checkSectionPath(structure, patch.path, section.id);
      changes.path = patch.path;
    }
    if (patch.condition !== undefined) {
      if (patch.condition !== null) checkCondition(patch.condition, siteClaimNames(site));
      changes.condition = patch.condition;
    }
    if (patch.icon !== undefined) changes.icon = patch.icon;
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.defaultSiteSpace !== undefined) {
      const siteSpace = siteSpacesIn(structure, section.id).find((s) => s.id === patch.defaultSiteSpace);
      if (!siteSpace) throw new InvalidArgument(`defaultSiteSpace: no site space "${patch.defaultSiteSpace}" in this section`);
      await clearDefaultSiteSpace(trx, site.id, section.id);
      await updateSiteSpaceRow(trx, siteSpace.id, { is_default: 1 });
    }
    await updateSectionRow(trx, section.id, changes);
  });
  return itemView(ctx, reader, { type: 'site-section', id: sectionId });
}

/** Deletes a section and its site spaces; false when there was none. A deleted default passes to the first remaining section. */
export async function deleteSection(ctx: Context, caller: Caller, organizationId: string, siteId: string, sectionId: string): Promise<boolean> {
  const { result } = await changeStructure(ctx, caller, organizationId, siteId, 'delete its sections', async (trx, structure, { site }) => {
    if (!(await deleteSectionRow(trx, site.id, sectionId))) return false;
    const remaining = structure.sections.filter((s) => s.id !== sectionId);
    if (structure.defaultSection === sectionId && remaining.length > 0) {
      await clearDefaultSection(trx, site.id);
      await updateSectionRow(trx, remaining[0].id, { is_default: 1 });
    }
    return true;
  });
  return result;
}

/** Moves a section among its siblings (the top level, or its group). Deprecated: sortSiteStructure does the same. */
export async function moveSection(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  sectionId: string,
  anchor: Anchor | undefined,
): Promise<StructureItemView> {
  return moveItem(ctx, caller, organizationId, siteId, { type: 'site-section', id: sectionId }, anchor, 'move its sections', (structure) =>
    findSection(structure, sectionId, 'siteSectionId', 'notFound'),
  );
}

// ---- section groups

export async function listSectionGroups(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  request: PageRequest,
): Promise<{ tree: SiteTree; page: Page<SiteSectionGroupRow> }> {
  const reader = await loadSite(ctx, caller, organizationId, siteId);
  const tree = await loadTree(ctx, reader);
  const positionOf = (g: SiteSectionGroupRow) => [Number(g.position), g.id];
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `site-section-groups:${siteId}`,
    request,
    fetch: fetchInMemory(tree.groups, positionOf),
    positionOf,
    present: (row) => row,
  });
  return { tree, page };
}

/** Adds a group at the end of the top level; the listed sections move into it, in that order. */
export async function addSectionGroup(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  input: { title: string; icon?: string | null; sections?: string[] },
): Promise<StructureItemView> {
  const { reader, result } = await changeStructure(ctx, caller, organizationId, siteId, 'add section groups', async (trx, structure, { site }) => {
    const sections = (input.sections ?? []).map((id, i) => findSection(structure, id, `sections[${i}]`, 'invalid'));
    sections.forEach((section, i) => {
      if (sections.indexOf(section) !== i) throw new InvalidArgument(`sections[${i}]: section "${section.id}" is listed twice`);
    });
    const now = nowIso();
    const group: SiteSectionGroupRow = {
      id: newId(),
      site_id: site.id,
      title: input.title,
      icon: input.icon ?? null,
      position: endOf(topOrdered(structure)),
      created_at: now,
      updated_at: now,
    };
    await insertSectionGroup(trx, group);
    for (const [i, section] of sections.entries()) await updateSectionRow(trx, section.id, { group_id: group.id, position: i + 1, updated_at: now });
    return group.id;
  });
  return itemView(ctx, reader, { type: 'site-section-group', id: result });
}

export async function updateSectionGroup(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  groupId: string,
  patch: { title?: string; icon?: string | null },
): Promise<StructureItemView> {
  const { reader } = await changeStructure(ctx, caller, organizationId, siteId, 'update its section groups', async (trx, structure) => {
    findGroup(structure, groupId);
    const changes: Partial<SiteSectionGroupRow> = { updated_at: nowIso() };
    if (patch.title !== undefined) changes.title = patch.title;
    if (patch.icon !== undefined) changes.icon = patch.icon;
    await updateSectionGroupRow(trx, groupId, changes);
  });
  return itemView(ctx, reader, { type: 'site-section-group', id: groupId });
}

/** Deletes a group; its sections return to the top level where the group was, in their order. False when there was none. */
export async function deleteSectionGroup(ctx: Context, caller: Caller, organizationId: string, siteId: string, groupId: string): Promise<boolean> {
  const { result } = await changeStructure(ctx, caller, organizationId, siteId, 'delete its section groups', async (trx, structure, { site }) => {
    const groupKey = keyOf({ type: 'site-section-group', id: groupId });
    const top = topOrdered(structure);
    let at = top.findIndex((t) => t.key === groupKey);
    if (at < 0) return false;
    let list = top.filter((t) => t.key !== groupKey);
    for (const section of sectionsOfGroup(structure, groupId)) {
      const anchor = at > 0 ? { key: list[at - 1].key, side: 'after' as const } : list[at] ? { key: list[at].key, side: 'before' as const } : undefined;
      const placement = placeAmong(list, anchor)!;
      if (placement.renumbered) {
        await writeRenumbered(trx, placement.renumbered);
        list = placement.renumbered;
      }
      await updateSectionRow(trx, section.id, { group_id: null, position: placement.position, updated_at: nowIso() });
      list.splice(at, 0, { key: keyOf({ type: 'site-section', id: section.id }), position: placement.position });
      at += 1;
    }
    return deleteSectionGroupRow(trx, site.id, groupId);
  });
  return result;
}

/** Puts a section at the end of a group (it leaves the top level or its former group). */
export async function addSectionToGroup(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  groupId: string,
  sectionId: string,
): Promise<StructureItemView> {
  const { reader } = await changeStructure(ctx, caller, organizationId, siteId, 'group its sections', async (trx, structure) => {
    findGroup(structure, groupId);
    const section = findSection(structure, sectionId, 'sectionId', 'invalid');
    if (section.group_id === groupId) return;
    const position = endOf(ordered('site-section', sectionsOfGroup(structure, groupId)));
    await updateSectionRow(trx, section.id, { group_id: groupId, position, updated_at: nowIso() });
  });
  return itemView(ctx, reader, { type: 'site-section-group', id: groupId });
}

/** Takes a section out of its group, to the top level just after the group. False when it was not in the group. */
export async function removeSectionFromGroup(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  groupId: string,
  sectionId: string,
): Promise<boolean> {
  const { result } = await changeStructure(ctx, caller, organizationId, siteId, 'ungroup its sections', async (trx, structure) => {
    findGroup(structure, groupId);
    const section = structure.sections.find((s) => s.id === sectionId);
    if (!section || section.group_id !== groupId) return false;
    const placement = placeAmong(topOrdered(structure), { key: keyOf({ type: 'site-section-group', id: groupId }), side: 'after' })!;
    await writeRenumbered(trx, placement.renumbered);
    await updateSectionRow(trx, section.id, { group_id: null, position: placement.position, updated_at: nowIso() });
    return true;
  });
  return result;
}

/** Moves a group among the top-level items. Deprecated: sortSiteStructure does the same. */
export async function moveSectionGroup(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  groupId: string,
  anchor: Anchor | undefined,
): Promise<StructureItemView> {
  return moveItem(ctx, caller, organizationId, siteId, { type: 'site-section-group', id: groupId }, anchor, 'move its section groups', (structure) =>
    findGroup(structure, groupId),
  );
}

// ---- site spaces

/**
 * Site spaces in structure order (members; the public or share-key holders of a published site). `default`:
 * true keeps the default of each container only, false the others.
 */
export async function listSiteSpaces(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  request: PageRequest & { shareKey?: string; default?: boolean },
): Promise<{ tree: SiteTree; page: Page<SiteSpaceRow> }> {
  const reader = await loadSite(ctx, caller, organizationId, siteId, { visitor: { shareKey: request.shareKey } });
  const tree = await loadTree(ctx, reader);
  const rank = new Map<string, number[]>();
  const groups = new Map(tree.groups.map((g) => [g.id, Number(g.position)]));
  for (const s of tree.sections) {
    rank.set(s.id, s.group_id && groups.has(s.group_id) ? [groups.get(s.group_id)!, Number(s.position)] : [Number(s.position), 0]);
  }
  const positionOf = (s: SiteSpaceRow) => [...(s.section_id ? rank.get(s.section_id) ?? [0, 0] : [0, 0]), Number(s.position), s.id];
  const rows = tree.siteSpaces.filter((s) => request.default === undefined || tree.defaultSiteSpaces.has(s.id) === request.default);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `site-spaces:${siteId}:${request.default ?? ''}`,
    request,
    fetch: fetchInMemory(rows, positionOf),
    positionOf,
    present: (row) => row,
  });
  return { tree, page };
}

/** Publishes a space in the site: in `sectionId`, else the default section, else the site's root. */
export async function addSiteSpace(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  input: { spaceId: string; sectionId?: string },
): Promise<StructureItemView> {
  const { reader, result } = await changeStructure(ctx, caller, organizationId, siteId, 'add spaces to it', async (trx, structure, { access }) => {
    const space = await spaceForSite(trx, access, input.spaceId, 'spaceId');
    const sectionId = input.sectionId !== undefined ? findSection(structure, input.sectionId, 'sectionId', 'invalid').id : structure.defaultSection;
    return (await addSiteSpaceRow(trx, structure, sectionId, space)).id;
  });
  return itemView(ctx, reader, { type: 'site-space', id: result });
}

/** Updates a site space; an absent `condition` is kept, null removes it. */
export async function updateSiteSpace(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  patch: { path?: string; condition?: string | null; spaceId?: string },
): Promise<StructureItemView> {
  const { reader } = await changeStructure(ctx, caller, organizationId, siteId, 'update its site spaces', async (trx, structure, { access, site }) => {
    const siteSpace = findSiteSpace(structure, siteSpaceId);
    const changes: Partial<SiteSpaceRow> = { updated_at: nowIso() };
    if (patch.path !== undefined) {
      checkSiteSpacePath(structure, siteSpace.section_id, patch.path, siteSpace.id);
      changes.path = patch.path;
    }
    if (patch.condition !== undefined) {
      if (patch.condition !== null) checkCondition(patch.condition, siteClaimNames(site));
      changes.condition = patch.condition;
    }
    if (patch.spaceId !== undefined) changes.space_id = (await spaceForSite(trx, access, patch.spaceId, 'spaceId')).id;
    await updateSiteSpaceRow(trx, siteSpace.id, changes);
  });
  return itemView(ctx, reader, { type: 'site-space', id: siteSpaceId });
}

/** Removes a space from the site; false when there was no such site space. A deleted default passes to the first remaining one. */
export async function deleteSiteSpace(ctx: Context, caller: Caller, organizationId: string, siteId: string, siteSpaceId: string): Promise<boolean> {
  const { result } = await changeStructure(ctx, caller, organizationId, siteId, 'remove spaces from it', async (trx, structure, { site }) => {
    const siteSpace = structure.siteSpaces.find((s) => s.id === siteSpaceId);
    if (!siteSpace || !(await deleteSiteSpaceRow(trx, site.id, siteSpaceId))) return false;
    const remaining = siteSpacesIn(structure, siteSpace.section_id).filter((s) => s.id !== siteSpaceId);
    if (structure.defaultSiteSpaces.has(siteSpaceId) && remaining.length > 0) {
      await clearDefaultSiteSpace(trx, site.id, siteSpace.section_id);
      await updateSiteSpaceRow(trx, remaining[0].id, { is_default: 1 });
    }
    return true;
  });
  return result;
}

/** Moves a site space among the site spaces of its section (or root). Deprecated: sortSiteStructure does the same. */
export async function moveSiteSpace(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  anchor: Anchor | undefined,
): Promise<StructureItemView> {
  return moveItem(ctx, caller, organizationId, siteId, { type: 'site-space', id: siteSpaceId }, anchor, 'move its site spaces', (structure) =>
    findSiteSpace(structure, siteSpaceId),
  );
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
async function moveItem(
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
