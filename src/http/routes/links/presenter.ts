/**
 * Link records (ContentReferenceUsage) and content locations (ContentLocation) as the API shows them. Embedded
 * objects are complete, as the reference requires: a page or file location carries the full organization, space
 * and page or file; a change request's lists say so in `versionContext`.
 */
import type { LinkContext, LinkItem, LinkList, LinkTarget } from '../../../domain/content/link-lists.js';
import type { Page as ListPage } from '../../../domain/lists.js';
import type { Page } from '../../../content/model.js';
import type { Urls } from '../../urls.js';
import { presentList } from '../../present.js';
import { ContentPresenter } from '../content/presenter.js';
import { presentOrganization } from '../organizations/presenter.js';
import { presentSpace } from '../spaces/presenter.js';
import { presentChangeRequest } from '../change-requests/presenter.js';

export class LinkPresenter {
  private readonly content: ContentPresenter;
  private readonly where: Record<string, unknown>;
  private readonly pages = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly urls: Urls,
    context: LinkContext,
  ) {
    this.content = new ContentPresenter(urls, context.content);
    const versionContext = context.changeRequest
      ? { versionContext: { type: 'changeRequest', changeRequest: presentChangeRequest(urls, context.changeRequest) } }
      : {};
    this.where = { organization: presentOrganization(urls, context.organization), space: presentSpace(urls, context.space), ...versionContext };
  }

  /** A page of the revision as a location (one presentation per page and answer). */
  pageLocation(page: Page): Record<string, unknown> {
    let presented = this.pages.get(page.id);
    if (!presented) {
      presented = this.content.page(page);
      this.pages.set(page.id, presented);
    }
    return { kind: 'page', ...this.where, page: presented };
  }

  target(target: LinkTarget): Record<string, unknown> {
    switch (target.kind) {
      case 'page':
        return { ...this.pageLocation(target.page), ...(target.anchor ? { internalLocation: { type: 'anchor', anchor: target.anchor } } : {}) };
      case 'file':
        return { kind: 'file', ...this.where, file: this.content.file(target.file) };
      case 'reusable-content':
        return { kind: 'reusable-content', ...this.where, reusableContent: this.content.reusableContent(target.reusableContent) };
      case 'space':
        return { kind: 'space', organization: presentOrganization(this.urls, target.organization), space: presentSpace(this.urls, target.space) };
      case 'url':
        return { kind: 'url', url: target.url };
    }
  }

  item(item: LinkItem): Record<string, unknown> {
    return {
      status: item.status,
      relation: item.relation,
      targetReference: this.target(item.target),
      locationReferences: item.locations.map((page) => this.pageLocation(page)),
    };
  }

  list(list: LinkList) {
    const { stats } = list;
    return {
      ...presentList(list, (item) => this.item(item)),
      stats: { total: stats.total, broken: { total: stats.broken, changeRequest: stats.brokenInChangeRequest } },
    };
  }

  backlinks(list: ListPage<Page>) {
    return presentList(list, (page) => this.pageLocation(page));
  }
}
