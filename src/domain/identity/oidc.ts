/**
 * Signing in with OpenID Connect (the authorization code flow with PKCE), through openid-client: Quire builds no
 * protocol message and checks no token itself. `startOidcSignIn` discovers the provider, makes the PKCE verifier,
 * `state` and `nonce`, and seals them (with the box of stored credentials, bound to their purpose, for ten minutes)
 * into what the HTTP layer keeps in a short-lived cookie; `finishOidcSignIn` opens that, lets openid-client check the
 * provider's answer (state, code exchange with the verifier, the ID token's signature, issuer, audience, expiry and
 * nonce), and signs in the user of the token's verified e-mail, made on first sign-in.
 *
 * Every request to the provider goes through the guarded fetcher (private and loopback addresses only where
 * QUIRE_FETCH_ALLOW allows them; plain http only to such a host). Discovery is made anew for each step: a sign-in is
 * rare, and a provider's changed keys or endpoints are then never missed.
 */
import * as oidc from 'openid-client';
import type { OidcProviderSettings } from '../../../config/index.js';
import type { Context } from '../context.js';
import type { Role } from '../roles.js';
import { Conflict } from '../errors.js';
import { findUserByEmail } from '../../store/sql/users.js';
import { startSession, type SessionClient, type StartedSession } from './sessions.js';
import { createUser, isEmail } from './users.js';
import { oidcProviderView, oidcSecretContext, plainHttpAllowed } from './oidc-providers.js';
import { addMember } from '../members/members.js';
import { findMember } from '../../store/sql/members.js';
import { findOidcProvider, listOidcProviderLabels } from '../../store/sql/oidc-providers.js';
import { listActiveSamlProviderLabels } from '../../store/sql/saml.js';

/** The id of the instance's provider (QUIRE_OIDC_*) in `provider=` and in the providers list. */
export const INSTANCE_PROVIDER = 'instance';
/** How long a started sign-in may take at the provider. */
export const OIDC_ATTEMPT_MS = 10 * 60 * 1000;
const SEAL_CONTEXT = 'quire oidc sign-in attempt';

/** Why a sign-in was refused: the short reason the app's sign-in page is sent (`?error=`), and what the log says. */
export type OidcRefusalReason = 'unknown_provider' | 'provider_unavailable' | 'invalid_state' | 'provider_refused' | 'email_missing' | 'email_unverified' | 'not_allowed';

export class OidcRefusal extends Error {
  constructor(
    readonly reason: OidcRefusalReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A provider people can sign in with, as the sign-in page lists it (labels are public). */
export interface SignInProvider {
  id: string;
  kind: 'oidc' | 'saml';
  label: string;
}

/** What a started sign-in keeps (sealed) until the provider sends the browser back. */
interface Attempt {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
  next: string;
  expires: number;
}

/**
 * The providers the sign-in page offers: the instance's, then every organization's OpenID Connect provider, then
 * every active SAML provider (their labels are public).
 */
export async function listSignInProviders(ctx: Context): Promise<SignInProvider[]> {
  const organizations = (await listOidcProviderLabels(ctx.db)).map((row): SignInProvider => ({ id: row.organization_id, kind: 'oidc', label: row.label }));
  const saml = (await listActiveSamlProviderLabels(ctx.db)).map((row): SignInProvider => ({ id: row.id, kind: 'saml', label: row.label }));
  return [...(ctx.oidc ? [{ id: INSTANCE_PROVIDER, kind: 'oidc' as const, label: ctx.oidc.label }] : []), ...organizations, ...saml];
}

/** A provider's settings, and for an organization's, who may sign in with it. */
interface ProviderOf {
  settings: OidcProviderSettings;
  organization?: { id: string; allowedDomains: string[]; defaultRole: Role | null };
}

async function providerOf(ctx: Context, providerId: string): Promise<ProviderOf> {
  if (providerId === INSTANCE_PROVIDER) {
    if (ctx.oidc) return { settings: ctx.oidc };
  } else {
    const row = await findOidcProvider(ctx.db, providerId);
    if (row) {
      const view = oidcProviderView(row);
      let clientSecret: string;
      try {
        clientSecret = ctx.secrets.open(row.client_secret, oidcSecretContext(row.organization_id));
      } catch (error) {
        throw new OidcRefusal('provider_unavailable', `provider: the client secret of organization ${row.organization_id}'s provider does not open`, { cause: error });
      }
      return {
        settings: { issuer: view.issuer, clientId: view.clientId, clientSecret, label: view.label },
        organization: { id: row.organization_id, allowedDomains: view.allowedDomains, defaultRole: view.defaultRole },
      };
    }
  }
  throw new OidcRefusal('unknown_provider', `provider: no OpenID Connect provider "${providerId.slice(0, 100)}"`);
}

/** The provider's configuration (its discovery document), every request through the guarded fetcher. */
export async function discover(ctx: Context, settings: OidcProviderSettings): Promise<oidc.Configuration> {
  let issuer: URL;
  try {
    issuer = new URL(settings.issuer);
  } catch (error) {
    throw new OidcRefusal('provider_unavailable', `issuer: "${settings.issuer}" is not a URL`, { cause: error });
  }
  const customFetch: oidc.CustomFetch = (url, options) => ctx.fetcher.request(url, options);
  // Plain http only to a host the operator vouched for (QUIRE_FETCH_ALLOW), as for Git Sync.
  const insecure = issuer.protocol === 'http:' && (await plainHttpAllowed(ctx, issuer));
  try {
    return await oidc.discovery(issuer, settings.clientId, undefined, oidc.ClientSecretPost(settings.clientSecret), {
      [oidc.customFetch]: customFetch,
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
  } catch (error) {
    throw new OidcRefusal('provider_unavailable', `issuer: discovery of ${issuer.origin} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** `next` when it is a path of the app (`/app/...`, never another origin), else the app's start. */
export function safeNext(next: string | undefined): string {
  if (!next || !next.startsWith('/app/') || next.includes('\\') || /[\u0000-\u001f]/.test(next)) return '/app/';
  try {
    const resolved = new URL(next, 'http://quire.invalid');
    return resolved.origin === 'http://quire.invalid' && resolved.pathname.startsWith('/app/') ? `${resolved.pathname}${resolved.search}${resolved.hash}` : '/app/';
  } catch {
    return '/app/';
  }
}

/** Starts a sign-in: the provider's authorization URL to send the browser to, and the sealed attempt to keep. */
export async function startOidcSignIn(ctx: Context, input: { provider: string; next?: string; redirectUri: string }): Promise<{ location: string; attempt: string }> {
  const { settings } = await providerOf(ctx, input.provider);
  const config = await discover(ctx, settings);
  const verifier = oidc.randomPKCECodeVerifier();
  const attempt: Attempt = {
    provider: input.provider,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier,
    next: safeNext(input.next),
    expires: Date.now() + OIDC_ATTEMPT_MS,
  };
  const location = oidc.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: attempt.state,
    nonce: attempt.nonce,
  });
  return { location: location.href, attempt: ctx.secrets.seal(JSON.stringify(attempt), SEAL_CONTEXT) };
}

function openAttempt(ctx: Context, sealed: string | undefined): Attempt {
  if (!sealed) throw new OidcRefusal('invalid_state', 'state: no sign-in was started in this browser (or it expired)');
  let attempt: Attempt;
  try {
    attempt = JSON.parse(ctx.secrets.open(sealed, SEAL_CONTEXT)) as Attempt;
  } catch (error) {
    throw new OidcRefusal('invalid_state', 'state: the sign-in attempt cookie does not open', { cause: error });
  }
  if (!(attempt.expires > Date.now())) throw new OidcRefusal('invalid_state', 'state: the sign-in attempt expired');
  return attempt;
}

/**
 * Finishes a sign-in from the provider's redirect (`callbackUrl`, the full URL the browser came back to): the session
 * of the user the ID token names, and where to send the browser.
 */
export async function finishOidcSignIn(
  ctx: Context,
  input: { callbackUrl: URL; sealedAttempt: string | undefined; client: SessionClient },
): Promise<{ started: StartedSession; next: string }> {
  const attempt = openAttempt(ctx, input.sealedAttempt);
  if (input.callbackUrl.searchParams.get('state') !== attempt.state) throw new OidcRefusal('invalid_state', 'state: does not match the sign-in this browser started');
  const provider = await providerOf(ctx, attempt.provider);
  const config = await discover(ctx, provider.settings);
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
    claims = idToken;
    // Providers that keep the e-mail out of the ID token give it at the userinfo endpoint (for the same subject).
    if (typeof idToken.email !== 'string') claims = { ...(await oidc.fetchUserInfo(config, tokens.access_token, idToken.sub)), ...idToken };
  } catch (error) {
    throw new OidcRefusal('provider_refused', `callback: ${(error as Error).message}`, { cause: error });
  }
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!isEmail(email)) throw new OidcRefusal('email_missing', 'email: the ID token carries no e-mail address (scope "email")');
  if (claims.email_verified === false || claims.email_verified === 'false') throw new OidcRefusal('email_unverified', `email: the provider has not verified ${email}`);
  const name = typeof claims.name === 'string' ? claims.name : undefined;
  const existing = await findUserByEmail(ctx.db, email);
  const organization = provider.organization;
  let joins = false;
  if (organization) {
    // An organization's provider: its members, and people of its allowed domains (who then join).
    const member = existing ? await findMember(ctx.db, organization.id, existing.id) : undefined;
    if (member?.disabled) throw new OidcRefusal('not_allowed', `email: ${email} is a disabled member of organization ${organization.id}`);
    if (!member) {
      if (!organization.allowedDomains.includes(email.slice(email.lastIndexOf('@') + 1))) {
        throw new OidcRefusal('not_allowed', `email: ${email} is neither a member of organization ${organization.id} nor of one of its allowed domains`);
      }
      joins = true;
    }
  }
  // The instance's provider: any verified e-mail signs in, and joins no organization.
  // Two first sign-ins at once: the one that lost the insert takes the other's user.
  const user =
    existing ??
    (await createUser(ctx, { email, ...(name ? { name } : {}) }).catch(async (error: unknown) => {
      const made = error instanceof Conflict ? await findUserByEmail(ctx.db, email) : undefined;
      if (!made) throw error;
      return made;
    }));
  if (organization && joins) await addMember(ctx, organization.id, user.id, organization.defaultRole);
  return { started: await startSession(ctx, user, 'oidc', input.client), next: attempt.next };
}
