/**
 * What a `shareKey` opens: the token of an active share link of a site whose visibility is `share-link` opens that
 * site (when published) and the spaces it publishes, for anyone holding it. Read from the database each time (no
 * cache): deactivating or deleting the link ends the access at once.
 */
import type { Context } from '../context.js';
import { findShareLinkByToken, findSiteById, sitePublishesSpace, type SiteRow } from '../../store/sql/sites.js';

/** The site `shareKey` opens, if any. */
async function siteOfShareKey(ctx: Pick<Context, 'db'>, shareKey: string): Promise<SiteRow | undefined> {
  const link = await findShareLinkByToken(ctx.db, shareKey);
  if (!link || link.active !== 1) return undefined;
  const site = await findSiteById(ctx.db, link.site_id);
  return site?.visibility === 'share-link' ? site : undefined;
}

export async function shareKeyOpensSite(ctx: Pick<Context, 'db'>, shareKey: string | undefined, siteId: string): Promise<boolean> {
  return !!shareKey && (await siteOfShareKey(ctx, shareKey))?.id === siteId;
}

export async function shareKeyOpensSpace(ctx: Pick<Context, 'db'>, shareKey: string | undefined, spaceId: string): Promise<boolean> {
  if (!shareKey) return false;
  const site = await siteOfShareKey(ctx, shareKey);
  return !!site && (await sitePublishesSpace(ctx.db, site.id, spaceId));
}
