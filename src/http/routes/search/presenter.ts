import type { PageHit, SpaceHit } from '../../../domain/search/search-queries.js';
import type { Urls } from '../../urls.js';
import { pageAppUrl } from '../content/presenter.js';

/** A page result (SearchPageResult) with its matching sections. */
export function presentPageHit(urls: Urls, hit: PageHit) {
  const app = pageAppUrl(urls, hit.spaceId, hit.path);
  return {
    id: hit.id,
    title: hit.title,
    path: hit.path,
    sections: hit.sections.map((section) => ({ ...section, urls: { app: `${app}#${encodeURIComponent(section.id)}` } })),
    urls: { app },
  };
}

/** A space result (SearchSpaceResult) of an organization search. */
export function presentSpaceHit(urls: Urls, hit: SpaceHit) {
  return { id: hit.space.id, title: hit.space.title, pages: hit.pages.map((page) => presentPageHit(urls, page)) };
}
