/**
 * Visitor sign-in through a site's OpenID Connect provider (a Quire extension): a visitor-auth site may name one
 * (issuer, client id, client secret sealed at rest as organizations' providers' are; admins of the organization).
 * An anonymous browser at such a site is sent through the provider (authorization code with PKCE, the discovery and
 * guarded fetches of identity/oidc.ts) and back to the page it asked for; the ID token's claims, and userinfo's, are
 * then the visitor's signed claims (adaptive content), kept sealed in a cookie for the site alone, bounded in size and
 * in lifetime. Visitor tokens (`?jwt_token=`) open the site as before.
 */
import * as oidc from 'openid-client';
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { requireSitePermission } from '../permissions.js';
import { checkIssuer } from '../identity/oidc-providers.js';
import { discover, OIDC_ATTEMPT_MS, OidcRefusal } from '../identity/oidc.js';
import type { VisitorClaims } from './conditions.js';
import { loadSite } from './tree.js';
import { deleteSiteOidcProvider, findSiteOidcProvider, saveSiteOidcProvider, type SiteOidcProviderRow } from '../../store/sql/site-oidc-providers.js';
import { findSiteByName, type SiteRow } from '../../store/sql/sites.js';

/** How long a visitor's sign-in lasts (the cookie's life and the sealed claims' expiry). */
export const VISITOR_SESSION_MS = 8 * 3600 * 1000;
/** The most claims text kept for a visitor (JSON): a provider's bigger answer is refused, not cut. */
export const MAX_VISITOR_CLAIMS_BYTES = 3000;

/** What tokens carry that says nothing of the visitor: left out of their claims. */
const PROTOCOL_CLAIMS = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'nonce', 'at_hash', 'c_hash', 'auth_time', 'azp', 'sid', 'jti', 'acr', 'amr']);

export interface SiteOidcProviderInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** A site's provider as the organization's admins see it: everything but the secret, and the site it serves. */
export interface SiteOidcProviderView {
  site: SiteRow;
  issuer: string;
  clientId: string;
  createdAt: string;
  updatedAt: string;
}

const secretContext = (siteId: string) => `site oidc provider client secret ${siteId}`;
const attemptContext = (siteId: string) => `site visitor sign-in attempt ${siteId}`;
const sessionContext = (siteId: string) => `site visitor claims ${siteId}`;

const view = (site: SiteRow, row: SiteOidcProviderRow): SiteOidcProviderView => ({
  site,
  issuer: row.issuer,
  clientId: row.client_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

async function adminSite(ctx: Context, caller: Caller, organizationId: string, siteId: string, action: string): Promise<SiteRow> {
  const { site, access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'admin', action);
  return site;
}

export async function setSiteOidcProvider(ctx: Context, caller: Caller, organizationId: string, siteId: string, input: SiteOidcProviderInput): Promise<SiteOidcProviderView> {
  const site = await adminSite(ctx, caller, organizationId, siteId, "set the site's OpenID Connect provider");
  const clientId = input.clientId.trim();
  if (!clientId) throw new InvalidArgument('clientId: must not be empty');
  if (!input.clientSecret.trim()) throw new InvalidArgument('clientSecret: must not be empty');
  const now = nowIso();
  const existing = await findSiteOidcProvider(ctx.db, siteId);
  const row: SiteOidcProviderRow = {
    site_id: siteId,
    issuer: await checkIssuer(ctx, input.issuer.trim()),
    client_id: clientId,
    client_secret: ctx.secrets.seal(input.clientSecret.trim(), secretContext(siteId)),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await saveSiteOidcProvider(ctx.db, row);
  return view(site, row);
}

export async function getSiteOidcProvider(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<SiteOidcProviderView> {
  const site = await adminSite(ctx, caller, organizationId, siteId, "read the site's OpenID Connect provider");
  const row = await findSiteOidcProvider(ctx.db, siteId);
  if (!row) throw new NotFound(`visitorOidc: site "${siteId}" has no OpenID Connect provider`);
  return view(site, row);
}

export async function removeSiteOidcProvider(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<void> {
  await adminSite(ctx, caller, organizationId, siteId, "remove the site's OpenID Connect provider");
  if (!(await deleteSiteOidcProvider(ctx.db, siteId))) throw new NotFound(`visitorOidc: site "${siteId}" has no OpenID Connect provider`);
}

/** Whether an anonymous browser at `site` is sent through its provider: a visitor-auth site that names one. */
export async function visitorSignInOffered(ctx: Context, site: SiteRow | undefined): Promise<boolean> {
  return site?.visibility === 'visitor-auth' && (await findSiteOidcProvider(ctx.db, site.id)) !== undefined;
}

/** The site named `siteName` of the organization, offering a sign-in or not. */
export function siteNamed(ctx: Context, organizationId: string, siteName: string): Promise<SiteRow | undefined> {
  return ctx.cache.get(`published-site-row:${organizationId}:${siteName}`, () => findSiteByName(ctx.db, organizationId, siteName));
}

/** The site named `siteName` when it offers its visitors a sign-in (visitorSignInOffered). */
export async function siteOfferingSignIn(ctx: Context, organizationId: string, siteName: string): Promise<SiteRow | undefined> {
  const site = await siteNamed(ctx, organizationId, siteName);
  return site && (await visitorSignInOffered(ctx, site)) ? site : undefined;
}

async function providerConfig(ctx: Context, siteId: string): Promise<oidc.Configuration> {
  const row = await findSiteOidcProvider(ctx.db, siteId);
  if (!row) throw new OidcRefusal('unknown_provider', `provider: site ${siteId} has no OpenID Connect provider`);
  let clientSecret: string;
  try {
    clientSecret = ctx.secrets.open(row.client_secret, secretContext(siteId));
  } catch (error) {
    throw new OidcRefusal('provider_unavailable', `provider: the client secret of site ${siteId}'s provider does not open`, { cause: error });
  }
  return discover(ctx, { issuer: row.issuer, clientId: row.client_id, clientSecret, label: '' });
}

interface Attempt {
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  expires: number;
}

/** `next` when it is a path of the site (`siteBase/...`), else the site's root: never another origin. */
function nextOnSite(next: string | undefined, siteBase: string): string {
  if (!next || next.includes('\\') || /[\u0000-\u001f]/.test(next)) return siteBase;
  try {
    const resolved = new URL(next, 'http://quire.invalid');
    const path = `${resolved.pathname}${resolved.search}`;
    return resolved.origin === 'http://quire.invalid' && (resolved.pathname === siteBase || resolved.pathname.startsWith(`${siteBase}/`)) ? path : siteBase;
  } catch {
    return siteBase;
  }
}

/** Starts a visitor's sign-in: the provider's authorization URL, and the sealed attempt for the browser to keep. */
export async function startVisitorSignIn(ctx: Context, site: SiteRow, input: { next?: string; siteBase: string; redirectUri: string }): Promise<{ location: string; attempt: string }> {
  const config = await providerConfig(ctx, site.id);
  const attempt: Attempt = {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier: oidc.randomPKCECodeVerifier(),
    next: nextOnSite(input.next, input.siteBase),
    expires: Date.now() + OIDC_ATTEMPT_MS,
  };
  const location = oidc.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: 'S256',
    state: attempt.state,
    nonce: attempt.nonce,
  });
  return { location: location.href, attempt: ctx.secrets.seal(JSON.stringify(attempt), attemptContext(site.id)) };
}

/**
 * Finishes a visitor's sign-in from the provider's redirect: the sealed claims to keep in the visitor's cookie, and
 * where to send the browser. A state that does not match, an attempt that does not open or expired, a refused code,
 * or claims too big are refusals (OidcRefusal).
 */
export async function finishVisitorSignIn(ctx: Context, site: SiteRow, input: { callbackUrl: URL; sealedAttempt: string | undefined }): Promise<{ session: string; next: string }> {
  if (!input.sealedAttempt) throw new OidcRefusal('invalid_state', 'state: no sign-in was started in this browser (or it expired)');
  let attempt: Attempt;
  try {
    attempt = JSON.parse(ctx.secrets.open(input.sealedAttempt, attemptContext(site.id))) as Attempt;
  } catch (error) {
    throw new OidcRefusal('invalid_state', 'state: the sign-in attempt cookie does not open', { cause: error });
  }
  if (!(attempt.expires > Date.now())) throw new OidcRefusal('invalid_state', 'state: the sign-in attempt expired');
  if (input.callbackUrl.searchParams.get('state') !== attempt.state) throw new OidcRefusal('invalid_state', 'state: does not match the sign-in this browser started');
  const config = await providerConfig(ctx, site.id);
  let claims: Record<string, unknown>;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, input.callbackUrl, {
      pkceCodeVerifier: attempt.verifier,
      expectedState: attempt.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims();
    if (!idToken) throw new Error('no ID token');
    claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken };
  } catch (error) {
    throw new OidcRefusal('provider_refused', `callback: ${(error as Error).message}`, { cause: error });
  }
  const visitor = Object.fromEntries(Object.entries(claims).filter(([name]) => !PROTOCOL_CLAIMS.has(name) && name !== 'unsigned'));
  const text = JSON.stringify(visitor);
  if (Buffer.byteLength(text) > MAX_VISITOR_CLAIMS_BYTES) throw new OidcRefusal('provider_refused', `claims: the provider's claims exceed ${MAX_VISITOR_CLAIMS_BYTES} bytes`);
  const session = ctx.secrets.seal(JSON.stringify({ claims: visitor, expires: Date.now() + VISITOR_SESSION_MS }), sessionContext(site.id));
  return { session, next: attempt.next };
}

/** The claims of a visitor's sealed sign-in for the site `siteId`; undefined when it does not open or expired. */
export function openVisitorSession(ctx: Context, siteId: string, sealed: string): VisitorClaims | undefined {
  try {
    const { claims, expires } = JSON.parse(ctx.secrets.open(sealed, sessionContext(siteId))) as { claims: VisitorClaims; expires: number };
    return expires > Date.now() && typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}
