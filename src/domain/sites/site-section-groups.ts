/**
 * A site's section groups: listed, added, updated, deleted (their sections back at the top level), sections put in
 * and taken out, moved. The rules are at the top of ./structure.ts, with the machinery every change shares.
 */
import type { Context, Caller } from '../context.js';
import { InvalidArgument } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, fetchInMemory, type Page, type PageRequest } from '../lists.js';
import { placeAmong } from '../content/positions.js';
import {
  deleteSectionGroupRow,
  insertSectionGroup,
  updateSectionGroupRow,
  updateSectionRow,
  type SiteSectionGroupRow,
} from '../../store/sql/sites.js';
import { keyOf, loadSite, loadTree, sectionsOfGroup, type SiteTree } from './tree.js';
import {
  changeStructure,
  itemView,
  ordered,
  topOrdered,
  endOf,
  writeRenumbered,
  findSection,
  findGroup,
  moveItem,
  type Anchor,
  type StructureItemView,
} from './structure.js';

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
