import type { ContentPage } from '../types.js';

/** A revision's pages in SUMMARY's order, as links to `hrefOf(page)`; the current one marked. */
export function PageTree({ pages, hrefOf, current }: { pages: ContentPage[]; hrefOf: (page: ContentPage) => string; current?: string }) {
  return (
    <ul class="page-tree">
      {pages.map((page) => (
        <li key={page.id}>
          {page.type === 'group' ? (
            <span class="page-group">{page.title}</span>
          ) : page.type === 'link' ? (
            <a href={page.href ?? '#'} rel="noopener">
              {page.title} <span class="visually-hidden">(link)</span>↗
            </a>
          ) : (
            <a href={hrefOf(page)} aria-current={page.id === current ? 'page' : undefined}>
              {page.title}
            </a>
          )}
          {page.pages && page.pages.length > 0 && <PageTree pages={page.pages} hrefOf={hrefOf} current={current} />}
        </li>
      ))}
    </ul>
  );
}

/** The document pages of a tree, in reading order. */
export function documents(pages: ContentPage[]): ContentPage[] {
  return pages.flatMap((page) => [...(page.type === 'document' ? [page] : []), ...documents(page.pages ?? [])]);
}
