/**
 * A site's site spaces (a space published in a section, or at the root of a site without sections): listed, added,
 * updated, deleted, moved. The rules are at the top of ./structure.ts, with the machinery every change shares.
 */
import type { Context, Caller } from '../context.js';
import { Conflict } from '../errors.js';
import { nowIso } from '../ids.js';
import { collectPage, fetchInMemory, type Page, type PageRequest } from '../lists.js';
import {
  clearDefaultSiteSpace,
  deleteSiteSpaceRow,
  updateSiteSpaceRow,
  type SiteSpaceRow,
} from '../../store/sql/sites.js';
import { checkCondition } from './conditions.js';
import { checkPath, siteClaimNames, spaceForSite } from './sites.js';
import { loadSite, loadTree, siteSpacesIn, type SiteTree, type Structure } from './tree.js';
import {
  changeStructure,
  itemView,
  findSection,
  findSiteSpace,
  addSiteSpaceRow,
  moveItem,
  type Anchor,
  type StructureItemView,
} from './structure.js';

function checkSiteSpacePath(structure: Structure, sectionId: string | null, path: string, except: string): void {
  checkPath(path);
  if (siteSpacesIn(structure, sectionId).some((s) => s.id !== except && s.path === path)) {
    throw new Conflict(`path: another site space ${sectionId ? 'of this section' : 'at the root of this site'} already uses "${path}"`);
  }
}

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
