/**
 * `quire migrate`'s sites step, run last: each site's structure (sections, section groups, site spaces over the
 * spaces copied), its settings and share links. The structure is copied once; later changes are reported. Apart
 * from the spaces step, whose map of ids it reads.
 */
import { updateSite } from '../sites/sites.js';
import { buildSite } from '../sites/build.js';
import { createShareLink, updateShareLink } from '../sites/share-links.js';
import { fingerprintOf, type MigrationRun } from './migration-run.js';
import type { SourceSection, SourceSectionGroup, SourceShareLink, SourceSite, SourceSiteSpace } from './source-resources.js';
import type { SitePlan, SiteSectionGroupItem, SiteSectionItem, SiteSpaceItem } from '../../content/monorepo.js';

export async function copySites(run: MigrationRun, o: string, target: string, spaces: Map<string, string>): Promise<void> {
  const sites = await run.copyOrSkip('sites', o, () => run.source.list<SourceSite>(`sites of ${o}`, (c, p) => c.orgs.listSites(o, p)));
  for (const site of sites ?? []) await run.copyOrSkip('site', site.id, () => copySite(run, o, target, site, spaces));
}

async function copySite(run: MigrationRun, o: string, target: string, site: SourceSite, spaces: Map<string, string>): Promise<void> {
  const s = site.id;
  const sections = await run.source.list<SourceSection>(`sections of site ${s}`, (c, p) => c.orgs.listSiteSections(o, s, p));
  const groups = await run.source.list<SourceSectionGroup>(`section groups of site ${s}`, (c, p) => c.orgs.listSiteSectionGroups(o, s, p));
  const siteSpaces = await run.source.list<SourceSiteSpace>(`site spaces of site ${s}`, (c, p) => c.orgs.listSiteSpaces(o, s, p));
  const shareLinks = await run.source.list<SourceShareLink>(`share links of site ${s}`, (c, p) => c.orgs.listSiteShareLinks(o, s, p));
  // What is copied, and nothing that moves by itself (the site space's embedded space carries its revision).
  const fingerprint = fingerprintOf({
    site: { title: site.title, visibility: site.visibility, basename: site.basename },
    sections: sections.map((x) => [x.id, x.title, x.path, x.icon, x.description, x.default]),
    groups: groups.map((g) => [g.id, g.title, g.icon, (g.sections ?? []).map((x) => x.id)]),
    siteSpaces: siteSpaces.map((x) => [x.id, x.path, x.default, x.section, x.space?.id]),
    shareLinks: shareLinks.map((l) => [l.id, l.name, l.active]),
  });
  const existing = await run.mapped('site', s);
  if (existing?.fingerprint === fingerprint) return;
  if (existing) {
    // The structure is copied once: rebuilding it would give its site spaces and share links new ids and keys.
    await updateSite(run.ctx, run.actor, target, existing.target_id, { title: site.title.slice(0, 128) });
    await run.remember('site', s, existing.target_id, fingerprint);
    run.skip('site', s, 'changed at the source since the last migration: its title was updated here; changes of its sections, site spaces and share links are not copied again');
    return;
  }
  const spaceOf = new Map<string, string>();
  const item = (siteSpace: SourceSiteSpace): SiteSpaceItem | undefined => {
    const space = siteSpace.space?.id ? spaces.get(siteSpace.space.id) : undefined;
    if (!space) {
      run.skip('site-space', siteSpace.id, `its space "${siteSpace.space?.id ?? '?'}" was not copied`);
      return undefined;
    }
    spaceOf.set(siteSpace.id, space);
    return { type: 'space', key: siteSpace.id, directory: '', default: siteSpace.default === true, ...(siteSpace.path ? { path: siteSpace.path } : {}) };
  };
  const sectionItem = (section: SourceSection): SiteSectionItem | undefined => {
    const children = siteSpaces.filter((ss) => ss.section === section.id).map(item).filter((c): c is SiteSpaceItem => !!c);
    if (children.length === 0) {
      run.skip('site-section', section.id, 'none of its site spaces was copied');
      return undefined;
    }
    return {
      type: 'section',
      key: section.id,
      default: section.default === true,
      children,
      ...(section.title ? { title: section.title } : {}),
      ...(section.path ? { path: section.path } : {}),
      ...(section.icon ? { icon: section.icon } : {}),
      ...(section.description ? { description: section.description } : {}),
    };
  };
  const structure: SitePlan['structure'] = [];
  if (sections.length === 0) structure.push(...siteSpaces.map(item).filter((c): c is SiteSpaceItem => !!c));
  else {
    const groupOf = new Map(groups.flatMap((g) => (g.sections ?? []).map((section) => [section.id, g] as const)));
    const emitted = new Set<string>();
    for (const section of sections) {
      const group = groupOf.get(section.id);
      if (!group) {
        const made = sectionItem(section);
        if (made) structure.push(made);
      } else if (!emitted.has(group.id)) {
        emitted.add(group.id);
        const children = sections.filter((other) => groupOf.get(other.id) === group).map(sectionItem).filter((c): c is SiteSectionItem => !!c);
        if (children.length > 0) {
          const made: SiteSectionGroupItem = { type: 'section-group', key: group.id, children, ...(group.title ? { title: group.title } : {}), ...(group.icon ? { icon: group.icon } : {}) };
          structure.push(made);
        }
      }
    }
  }
  let siteId: string | undefined;
  siteId = await buildSite(run.ctx, run.actor, target, { title: site.title, structure }, spaceOf, site.title, async (id) => {
    siteId = id;
    await run.remember('site', s, id, null);
  });
  const patch = {
    ...(site.visibility && site.visibility !== 'private' ? { visibility: site.visibility as never } : {}),
    ...(site.basename ? { basename: site.basename } : {}),
  };
  if (Object.keys(patch).length > 0) await updateSite(run.ctx, run.actor, target, siteId, patch).catch((error: unknown) => run.skip('site-settings', s, error));
  for (const link of shareLinks) {
    await run.copyOrSkip('share-link', link.id, async () => {
      const made = await createShareLink(run.ctx, run.actor, target, siteId!, { name: link.name.slice(0, 50) });
      if (link.active === false) await updateShareLink(run.ctx, run.actor, target, siteId!, made.link.id, { active: false });
      await run.remember('share-link', link.id, made.link.id, null);
      run.count('shareLinks');
    });
  }
  await run.remember('site', s, siteId, fingerprint);
  run.count('sites');
}
