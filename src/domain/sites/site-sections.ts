/**
 * A site's sections: listed, added (the first one gathering the site spaces at the root), updated, deleted, moved.
 * The rules are at the top of ./structure.ts, with the machinery every change of the structure shares.
 */
import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, fetchInMemory, type Page, type PageRequest } from '../lists.js';
import {
  clearDefaultSection,
  clearDefaultSiteSpace,
  deleteSectionRow,
  insertSection,
  moveRootSiteSpacesInto,
  updateSectionRow,
  updateSiteSpaceRow,
  type SiteSectionRow,
} from '../../store/sql/sites.js';
import { checkCondition } from './conditions.js';
import { checkPath, siteClaimNames, spaceForSite, uniquePath } from './sites.js';
import { loadSite, loadTree, siteSpacesIn, type SiteTree, type Structure } from './tree.js';
import {
  changeStructure,
  itemView,
  topOrdered,
  endOf,
  findSection,
  addSiteSpaceRow,
  moveItem,
  type Anchor,
  type StructureItemView,
} from './structure.js';

function checkSectionPath(structure: Structure, path: string, except: string): void {
  checkPath(path);
  if (structure.sections.some((s) => s.id !== except && s.path === path)) {
    throw new Conflict(`path: another section of this site already uses "${path}"`);
  }
}

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
