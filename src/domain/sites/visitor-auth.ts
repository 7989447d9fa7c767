/**
 * Visitor authentication of published sites (a Quire extension: the reference has no operation for the
 * key). Each site has a signing key, shown to the organization's admins as GitBook shows it in a site's settings:
 * the site's owners sign visitor tokens with it (HS256 JWTs, the key's text as the secret, as `jsonwebtoken`'s
 * `sign(claims, key)` uses it) and send visitors to `SITE_URL?jwt_token=TOKEN`. A token signed with the site's
 * current key, with an expiry (`exp`, required) at most 30 days away, and not expired opens a visitor-auth site;
 * its payload is the visitor's signed claims, which decide the adaptive content they see. Rotating the key ends
 * every token signed with the old one.
 */
import crypto from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import type { Caller, Context } from '../context.js';
import { nowIso } from '../ids.js';
import { requireSitePermission } from '../permissions.js';
import { findSiteVisitorKey, insertSiteVisitorKeyIfAbsent, replaceSiteVisitorKey, type SiteVisitorKeyRow } from '../../store/sql/site-visitor-keys.js';
import type { VisitorClaims } from './conditions.js';
import { loadSite } from './tree.js';

/** Clocks of the signer and of this server may differ a little. */
const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * The longest a visitor token may live: its `exp` (required) at most this long after its `iat`, and never further
 * ahead of now, so that a token handed out (or leaked) stops opening the site within that time.
 */
export const VISITOR_TOKEN_MAX_SECONDS = 30 * 24 * 3600;

export interface VisitorKeyView {
  key: string;
  createdAt: string;
}

function newKey(siteId: string): SiteVisitorKeyRow {
  return { site_id: siteId, key: crypto.randomBytes(32).toString('base64url'), created_at: nowIso() };
}

const view = (row: SiteVisitorKeyRow): VisitorKeyView => ({ key: row.key, createdAt: row.created_at });

/** The site's visitor signing key, made on the first read (admins of the organization). */
export async function getVisitorKey(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<VisitorKeyView> {
  const { access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'admin', "read the site's visitor signing key");
  return view((await findSiteVisitorKey(ctx.db, siteId)) ?? (await insertSiteVisitorKeyIfAbsent(ctx.db, newKey(siteId))));
}

/** A new visitor signing key for the site: tokens signed with the previous one no longer open it (admins). */
export async function rotateVisitorKey(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<VisitorKeyView> {
  const { access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'admin', "rotate the site's visitor signing key");
  const row = newKey(siteId);
  await replaceSiteVisitorKey(ctx.db, row);
  return view(row);
}

/**
 * The signed claims of `token` when it is a JWT signed (HS256) with the site's key, with an `exp` not passed and
 * within VISITOR_TOKEN_MAX_SECONDS; undefined otherwise (no key yet, a bad signature, another algorithm, no `exp`,
 * expired, too long a life, not a JWT): the caller answers as for anyone
 * without a token. The key is read through the read cache, which a rotation made here empties at once (other
 * processes see it within the cache's time to live).
 */
export async function verifyVisitorToken(ctx: Context, siteId: string, token: string): Promise<VisitorClaims | undefined> {
  const row = await ctx.cache.get(`site-visitor-key:${siteId}`, () => findSiteVisitorKey(ctx.db, siteId));
  if (!row) return undefined;
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(row.key), { algorithms: ['HS256'], clockTolerance: CLOCK_TOLERANCE_SECONDS, requiredClaims: ['exp'] });
    const exp = payload.exp!;
    const now = Math.floor(Date.now() / 1000);
    if (exp - now > VISITOR_TOKEN_MAX_SECONDS + CLOCK_TOLERANCE_SECONDS) return undefined;
    if (payload.iat !== undefined && exp - payload.iat > VISITOR_TOKEN_MAX_SECONDS) return undefined;
    return payload as VisitorClaims;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) return undefined;
    throw error;
  }
}
