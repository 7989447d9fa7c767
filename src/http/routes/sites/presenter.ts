import type { SiteView, AgentsContext, SiteType } from '../../../domain/sites/sites.js';
import { topLevel, type SiteTree, type SiteVisibility } from '../../../domain/sites/tree.js';
import type { StructureItemView } from '../../../domain/sites/structure.js';
import type { ShareLinkView } from '../../../domain/sites/share-links.js';
import type { SiteRow, SiteSectionGroupRow, SiteSectionRow, SiteSpaceRow } from '../../../store/sql/sites.js';
import type { Urls } from '../../urls.js';
import { presentSpace } from '../spaces/presenter.js';

function siteApi(urls: Urls, site: SiteRow, path = ''): string {
  return urls.api(`/orgs/${site.organization_id}/sites/${site.id}${path}`);
}

/** Where Quire itself serves the site: /sites/<organization>/<basename or id>. */
export function servedAt(urls: Urls, site: SiteRow): string {
  return urls.base(`/sites/${site.organization_id}/${encodeURIComponent(site.basename ?? site.id)}`);
}

/** The site's public address: its proxy origin when it has one, else where Quire serves it. */
export function publishedBase(urls: Urls, site: SiteRow): string {
  return site.proxy ? `https://${site.proxy}` : servedAt(urls, site);
}

export function presentSite(urls: Urls, view: SiteView) {
  const { site } = view;
  const published = view.siteSpaces > 0;
  return {
    object: 'site' as const,
    id: site.id,
    type: site.type as SiteType,
    title: site.title,
    ...(site.basename ? { basename: site.basename } : {}),
    ...(site.proxy ? { proxy: { origin: site.proxy, target: servedAt(urls, site) } } : {}),
    visibility: site.visibility as SiteVisibility,
    published,
    siteSpaces: view.siteSpaces,
    createdAt: site.created_at,
    adaptiveContent: { enabled: site.adaptive_content === 1 },
    agentsContext: site.agents_context as AgentsContext,
    features: [] as Array<{ id: string; plan: SiteType; frozen: boolean }>,
    urls: {
      location: siteApi(urls, site),
      app: urls.app(`/o/${site.organization_id}/sites/${site.id}`),
      ...(published ? { published: publishedBase(urls, site) } : {}),
    },
  };
}

function published(tree: SiteTree): boolean {
  return tree.siteSpaces.length > 0;
}

/** The public URL of a section: the site's for the default section, else one segment more. */
function sectionUrl(urls: Urls, tree: SiteTree, section: SiteSectionRow | undefined): string {
  const base = publishedBase(urls, tree.site);
  return !section || tree.defaultSection === section.id ? base : `${base}/${encodeURIComponent(section.path)}`;
}

export function presentSiteSpace(urls: Urls, tree: SiteTree, row: SiteSpaceRow) {
  const view = tree.spaces.get(row.space_id)!;
  const section = row.section_id ? tree.sections.find((s) => s.id === row.section_id) : undefined;
  const isDefault = tree.defaultSiteSpaces.has(row.id);
  const base = sectionUrl(urls, tree, section);
  return {
    object: 'site-space' as const,
    id: row.id,
    path: row.path,
    ...(row.section_id ? { section: row.section_id } : {}),
    space: presentSpace(urls, view),
    title: view.space.title,
    default: isDefault,
    ...(row.condition ? { condition: row.condition } : {}),
    hasAdvancedCustomizationFeature: false,
    urls: {
      location: siteApi(urls, tree.site, `/site-spaces/${row.id}`),
      ...(published(tree) ? { published: isDefault ? base : `${base}/${encodeURIComponent(row.path)}` } : {}),
    },
  };
}

export function presentSection(urls: Urls, tree: SiteTree, row: SiteSectionRow) {
  return {
    object: 'site-section' as const,
    id: row.id,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    default: tree.defaultSection === row.id,
    path: row.path,
    ...(row.condition ? { condition: row.condition } : {}),
    ...(row.group_id ? { sectionGroup: row.group_id } : {}),
    ...(row.icon ? { icon: row.icon } : {}),
    siteSpaces: tree.siteSpaces.filter((s) => s.section_id === row.id).map((s) => presentSiteSpace(urls, tree, s)),
    urls: {
      location: siteApi(urls, tree.site, `/sections/${row.id}`),
      ...(published(tree) ? { published: sectionUrl(urls, tree, row) } : {}),
    },
  };
}

export function presentGroup(urls: Urls, tree: SiteTree, row: SiteSectionGroupRow) {
  return {
    object: 'site-section-group' as const,
    id: row.id,
    title: row.title,
    ...(row.icon ? { icon: row.icon } : {}),
    sections: tree.sections.filter((s) => s.group_id === row.id).map((s) => presentSection(urls, tree, s)),
  };
}

/** `sections` (top-level sections and groups, in order) when the site has sections, else its root `siteSpaces`. */
export function presentStructure(urls: Urls, tree: SiteTree) {
  if (tree.sections.length === 0) {
    return { type: 'siteSpaces' as const, structure: tree.siteSpaces.map((s) => presentSiteSpace(urls, tree, s)) };
  }
  return {
    type: 'sections' as const,
    structure: topLevel(tree.groups, tree.sections).map((item) =>
      item.type === 'site-section' ? presentSection(urls, tree, item.row as SiteSectionRow) : presentGroup(urls, tree, item.row as SiteSectionGroupRow),
    ),
  };
}

/** The section, group or site space a structure operation answers with. */
export function presentSectionOf(urls: Urls, { tree, item }: StructureItemView) {
  return presentSection(urls, tree, tree.sections.find((s) => s.id === item.id)!);
}

export function presentGroupOf(urls: Urls, { tree, item }: StructureItemView) {
  return presentGroup(urls, tree, tree.groups.find((g) => g.id === item.id)!);
}

export function presentSiteSpaceOf(urls: Urls, { tree, item }: StructureItemView) {
  return presentSiteSpace(urls, tree, tree.siteSpaces.find((s) => s.id === item.id)!);
}

export function presentStructureItem(urls: Urls, view: StructureItemView) {
  switch (view.item.type) {
    case 'site-space':
      return presentSiteSpaceOf(urls, view);
    case 'site-section':
      return presentSectionOf(urls, view);
    case 'site-section-group':
      return presentGroupOf(urls, view);
  }
}

const SAME_COLOR = (color: string) => ({ light: color, dark: color });

/** SiteCustomizationSettings at Quire's defaults: every member the reference requires, nothing configurable yet. */
function defaultCustomization(title: string) {
  return {
    title,
    styling: {
      theme: 'clean',
      primaryColor: SAME_COLOR('#346DDB'),
      infoColor: SAME_COLOR('#787878'),
      successColor: SAME_COLOR('#00C950'),
      warningColor: SAME_COLOR('#FE9A00'),
      dangerColor: SAME_COLOR('#FB2C36'),
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: 'Inter',
      monospaceFont: 'IBMPlexMono',
      background: 'plain',
      icons: 'regular',
      sidebar: { background: 'default', list: 'default' },
      search: 'subtle',
    },
    internationalization: { locale: 'en' },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'light', toggeable: true },
    pdf: { enabled: false },
    feedback: { enabled: false },
    ai: { mode: 'none' },
    advancedCustomization: { enabled: false },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { externalAI: false, markdown: false },
    git: { showEditLink: false },
    privacyPolicy: {},
    socialPreview: {},
    insights: { trackingCookie: false },
  };
}

export function presentPublished(urls: Urls, tree: SiteTree) {
  return {
    object: 'published-content-site' as const,
    site: presentSite(urls, { site: tree.site, siteSpaces: tree.siteSpaces.length }),
    structure: presentStructure(urls, tree),
    customizations: { site: defaultCustomization(tree.site.title), siteSpaces: {} as Record<string, Record<string, unknown>> },
    scripts: [] as Array<{ script: string; cookies: boolean }>,
  };
}

export function presentShareLink(urls: Urls, view: ShareLinkView) {
  const { link, site } = view;
  return {
    object: 'share-link' as const,
    id: link.id,
    createdAt: link.created_at,
    name: link.name,
    active: link.active === 1,
    urls: { published: `${publishedBase(urls, site)}?share=${encodeURIComponent(link.token)}` },
  };
}
