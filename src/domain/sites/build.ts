/**
 * Sites made from a plan (src/content/monorepo.ts's SitePlan): what a repository import reads in docs.yaml and
 * what `quire migrate` reads from its source, built with the functions every API request uses.
 */
import type { Caller, Context } from '../context.js';
import { createSite, updateSite } from './sites.js';
import { addSection, updateSection } from './site-sections.js';
import { addSectionGroup } from './site-section-groups.js';
import { addSiteSpace, updateSiteSpace } from './site-spaces.js';
import { readStructure, siteSpacesIn } from './tree.js';
import { findSiteById } from '../../store/sql/sites.js';
import type { SitePlan, SiteSectionItem, SiteSpaceItem } from '../../content/monorepo.js';

/**
 * Builds a planned site (docs.yaml's, or a migrated site's) with the domain's own site functions, in the plan's
 * order. `spaceOf` maps the plan's space keys to spaces of the organization; `record` learns the site's id as soon
 * as it exists (for a caller that must be able to remove it again).
 */
export async function buildSite(ctx: Context, caller: Caller, organizationId: string, site: SitePlan, spaceOf: Map<string, string>, fallbackTitle: string, record: (siteId: string) => Promise<void>): Promise<string> {
  const title = (site.title ?? fallbackTitle).slice(0, 128);
  const rootSpaces = site.structure.filter((item): item is SiteSpaceItem => item.type === 'space');
  const created = await createSite(ctx, caller, organizationId, { title, spaces: rootSpaces.map((s) => spaceOf.get(s.key)!) });
  const siteId = created.site.id;
  await record(siteId);
  const siteSpaceRows = async (sectionId: string | null) => {
    const row = await findSiteById(ctx.db, siteId);
    return siteSpacesIn(await readStructure(ctx.db, row!), sectionId);
  };
  /** Paths and the default of the site spaces of a container, made in the order of `items`. */
  const finishSpaces = async (items: SiteSpaceItem[], sectionId: string | null) => {
    const rows = await siteSpaceRows(sectionId);
    for (const [i, item] of items.entries()) {
      if (item.path !== undefined && rows[i].path !== item.path) await updateSiteSpace(ctx, caller, organizationId, siteId, rows[i].id, { path: item.path });
    }
    const chosen = items.findIndex((item) => item.default);
    if (chosen > 0 && sectionId) await updateSection(ctx, caller, organizationId, siteId, sectionId, { defaultSiteSpace: rows[chosen].id });
    if (chosen > 0 && !sectionId) await updateSite(ctx, caller, organizationId, siteId, { defaultSiteSpace: rows[chosen].id });
  };
  if (rootSpaces.length > 0) {
    await finishSpaces(rootSpaces, null);
    return siteId;
  }
  const addPlannedSection = async (section: SiteSectionItem): Promise<string> => {
    const [first, ...others] = section.children;
    const { item } = await addSection(ctx, caller, organizationId, siteId, { spaceId: spaceOf.get(first.key)!, title: (section.title ?? section.key).slice(0, 128), icon: section.icon ?? null });
    const patch = { ...(section.path !== undefined ? { path: section.path } : {}), ...(section.description !== undefined ? { description: section.description } : {}) };
    if (Object.keys(patch).length > 0) await updateSection(ctx, caller, organizationId, siteId, item.id, patch);
    for (const other of others) await addSiteSpace(ctx, caller, organizationId, siteId, { spaceId: spaceOf.get(other.key)!, sectionId: item.id });
    await finishSpaces(section.children, item.id);
    return item.id;
  };
  let defaultSection: string | undefined;
  for (const entry of site.structure) {
    if (entry.type === 'section') {
      const id = await addPlannedSection(entry);
      if (entry.default) defaultSection = id;
    } else if (entry.type === 'section-group') {
      const sections: string[] = [];
      for (const section of entry.children) {
        const id = await addPlannedSection(section);
        if (section.default) defaultSection = id;
        sections.push(id);
      }
      await addSectionGroup(ctx, caller, organizationId, siteId, { title: (entry.title ?? entry.key).slice(0, 128), icon: entry.icon ?? null, sections });
    }
  }
  if (defaultSection) await updateSite(ctx, caller, organizationId, siteId, { defaultSiteSection: defaultSection });
  return siteId;
}
