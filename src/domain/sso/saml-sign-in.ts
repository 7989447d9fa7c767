/**
 * Signing in with an organization's SAML provider (Web Browser SSO, HTTP-Redirect AuthnRequest, HTTP-POST response),
 * through node-saml: Quire builds no SAML message and checks no XML signature itself.
 *
 * `startSamlSignIn` has node-saml build the AuthnRequest and records its id (with `next`) in saml_requests: the
 * identity provider's POST to the ACS is cross-site, so a SameSite cookie would not come back with it.
 * `finishSamlSignIn` lets node-saml check the response: the assertion signed with the provider's certificate (a
 * signed response alone is not enough), its audience (Quire's entity id for the provider), NotBefore and
 * NotOnOrAfter (with a minute of clock skew) and InResponseTo. node-saml leaves the assertion's issuer and the bearer
 * confirmation's Recipient unchecked in a login response, so Quire compares them (read from the assertion node-saml
 * verified) with the provider's entity id and its own ACS URL.
 *
 * Unsolicited responses (IdP-initiated sign-in, an app tile at the provider) are accepted: node-saml's
 * `validateInResponseTo: 'ifPresent'`. A response InResponseTo a request must answer one Quire sent, once; an
 * unsolicited one has no request to use up, so every assertion's id is kept until it expires and a second use is
 * refused (a stolen response cannot be replayed, solicited or not).
 *
 * Who signs in: a member of the provider's organization, or a new person (made, and joined with the provider's
 * default role and default team). A person who already has a Quire account but is not a member is refused: an
 * organization's identity provider vouches for its own people, not for accounts another organization holds.
 */
import { SAML, ValidateInResponseTo, type CacheProvider, type Profile } from '@node-saml/node-saml';
import type { Context } from '../context.js';
import { Conflict } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { isRole } from '../permissions.js';
import { addMember } from '../members/members.js';
import { safeNext } from '../identity/oidc.js';
import { startSession, type SessionClient, type StartedSession } from '../identity/sessions.js';
import { createUser, isEmail } from '../identity/users.js';
import { findUserByEmail } from '../../store/sql/users.js';
import { findMember } from '../../store/sql/members.js';
import { addTeamMemberIfAbsent, findTeam } from '../../store/sql/teams.js';
import { findSamlProviderById, findSamlRequest, insertSamlRequest, recordUsedSamlAssertion, takeSamlRequest, type SamlProviderRow } from '../../store/sql/saml.js';
import { samlStatus } from './saml.js';

/** How long a started sign-in may take at the provider. */
export const SAML_REQUEST_MS = 10 * 60 * 1000;
/** Clocks of Quire and the provider may differ by this much. */
const CLOCK_SKEW_MS = 60 * 1000;
/** How long an assertion's id is kept when it names no expiry (node-saml then accepts it for ever). */
const UNBOUNDED_ASSERTION_MS = 24 * 60 * 60 * 1000;
const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
/** Attribute names providers give the e-mail under (their common name, and the LDAP `mail` by name and OID). */
const EMAIL_ATTRIBUTES = ['email', 'mail', 'urn:oid:0.9.2342.19200300.100.1.3', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress'];

/** Why a sign-in was refused: the short reason the app's sign-in page is sent (`?error=`), and what the log says. */
export type SamlRefusalReason = 'unknown_provider' | 'invalid_state' | 'provider_refused' | 'email_missing' | 'not_allowed';

export class SamlRefusal extends Error {
  constructor(
    readonly reason: SamlRefusalReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Quire's side of the provider (from its public URL): what the AuthnRequest names and the response must match. */
export interface SamlServiceUrls {
  entityID: string;
  acsURL: string;
}

/** An active provider (pending ones sign nobody in). */
async function activeProvider(ctx: Context, providerId: string): Promise<SamlProviderRow & { entity_id: string; sso_url: string; certificate: string }> {
  const provider = await findSamlProviderById(ctx.db, providerId);
  if (!provider) throw new SamlRefusal('unknown_provider', `providerId: no SAML provider "${providerId.slice(0, 100)}"`);
  if (samlStatus(provider) !== 'active' || !provider.entity_id || !provider.sso_url || !provider.certificate) {
    throw new SamlRefusal('unknown_provider', `providerId: SAML provider "${providerId}" is pending (entity id, SSO URL or certificate not set)`);
  }
  return { ...provider, entity_id: provider.entity_id, sso_url: provider.sso_url, certificate: provider.certificate };
}

/**
 * node-saml's store of sent request ids, over saml_requests. `removeAsync` does nothing: the request is taken
 * (deleted, once) by `finishSamlSignIn` after node-saml accepted the response, with the `next` it carries.
 */
function requestStore(ctx: Context, providerId: string, next: string): CacheProvider {
  return {
    saveAsync: async (key) => {
      const created = new Date();
      await insertSamlRequest(ctx.db, {
        id: key,
        provider_id: providerId,
        next,
        created_at: created.toISOString(),
        expires_at: new Date(created.getTime() + SAML_REQUEST_MS).toISOString(),
      });
      return { value: created.toISOString(), createdAt: created.getTime() };
    },
    getAsync: async (key) => (await findSamlRequest(ctx.db, providerId, key, nowIso()))?.created_at ?? null,
    removeAsync: async () => null,
  };
}

function samlOf(ctx: Context, provider: SamlProviderRow & { entity_id: string; sso_url: string; certificate: string }, urls: SamlServiceUrls, next = '/app/'): SAML {
  return new SAML({
    entryPoint: provider.sso_url,
    issuer: urls.entityID,
    audience: urls.entityID,
    callbackUrl: urls.acsURL,
    idpCert: provider.certificate,
    identifierFormat: EMAIL_FORMAT,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: SAML_REQUEST_MS,
    cacheProvider: requestStore(ctx, provider.id, next),
    // Ids are XML NCNames: they must not start with a digit.
    generateUniqueId: () => `_${newId()}`,
    // Providers differ in the authentication contexts they support; Quire asks for none in particular.
    disableRequestedAuthnContext: true,
  });
}

/** Starts a sign-in: the provider's SSO URL with the AuthnRequest (HTTP-Redirect binding) to send the browser to. */
export async function startSamlSignIn(ctx: Context, input: { providerId: string; next?: string; urls: SamlServiceUrls }): Promise<{ location: string }> {
  const provider = await activeProvider(ctx, input.providerId);
  const saml = samlOf(ctx, provider, input.urls, safeNext(input.next));
  return { location: await saml.getAuthorizeUrlAsync('', undefined, {}) };
}

type XmlNode = { $?: Record<string, string | undefined> } & Record<string, unknown>;

function children(node: XmlNode | undefined, name: string): XmlNode[] {
  const value = node?.[name];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

/** What Quire reads from the assertion node-saml verified: its id, until when it is valid, and its bearer recipients. */
function assertionFacts(profile: Profile): { id: string; expires: number; recipients: string[] } {
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
  const id = assertion?.$?.ID;
  if (!assertion || !id) throw new SamlRefusal('provider_refused', 'SAMLResponse: the assertion has no ID');
  const confirmations = children(children(assertion, 'Subject')[0], 'SubjectConfirmation')
    .filter((c) => c.$?.Method === 'urn:oasis:names:tc:SAML:2.0:cm:bearer')
    .flatMap((c) => children(c, 'SubjectConfirmationData'));
  const limits = [...children(assertion, 'Conditions'), ...confirmations]
    .map((node) => Date.parse(node.$?.NotOnOrAfter ?? ''))
    .filter((ms) => Number.isFinite(ms));
  const expires = limits.length > 0 ? Math.max(...limits) + CLOCK_SKEW_MS : Date.now() + UNBOUNDED_ASSERTION_MS;
  return { id, expires, recipients: confirmations.map((c) => c.$?.Recipient ?? '') };
}

/** The e-mail the assertion names: its NameID in emailAddress format, else an e-mail attribute. */
function emailOf(profile: Profile): string {
  const candidates = [profile.nameIDFormat === EMAIL_FORMAT ? profile.nameID : undefined, ...EMAIL_ATTRIBUTES.map((name) => profile[name])];
  for (const candidate of candidates) {
    const value = Array.isArray(candidate) ? candidate[0] : candidate;
    if (typeof value === 'string' && isEmail(value.trim().toLowerCase())) return value.trim().toLowerCase();
  }
  throw new SamlRefusal('email_missing', 'SAMLResponse: the assertion names no e-mail (NameID in emailAddress format, or an "email" attribute)');
}

function nameOf(profile: Profile): string | undefined {
  for (const key of ['displayName', 'name', 'http://schemas.microsoft.com/identity/claims/displayname']) {
    const value = profile[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, 200);
  }
  return undefined;
}

/**
 * Finishes a sign-in from the provider's POST to the ACS: the session of the person the assertion names, and where
 * to send the browser (the request's `next`, or for an unsolicited response its RelayState when safeNext accepts it).
 */
export async function finishSamlSignIn(
  ctx: Context,
  input: { providerId: string; samlResponse: string | undefined; relayState: string | undefined; urls: SamlServiceUrls; client: SessionClient },
): Promise<{ started: StartedSession; next: string }> {
  const provider = await activeProvider(ctx, input.providerId);
  if (!input.samlResponse) throw new SamlRefusal('provider_refused', 'SAMLResponse: missing');
  let profile: Profile | null;
  try {
    ({ profile } = await samlOf(ctx, provider, input.urls).validatePostResponseAsync({ SAMLResponse: input.samlResponse }));
  } catch (error) {
    const message = (error as Error).message;
    const reason = /InResponseTo/i.test(message) ? 'invalid_state' : 'provider_refused';
    throw new SamlRefusal(reason, `SAMLResponse: ${message}`, { cause: error });
  }
  if (!profile) throw new SamlRefusal('provider_refused', 'SAMLResponse: carries no assertion');
  if (profile.issuer !== provider.entity_id) {
    throw new SamlRefusal('provider_refused', `SAMLResponse: the assertion's issuer is not the provider's entity id ${provider.entity_id}`);
  }
  const facts = assertionFacts(profile);
  if (!facts.recipients.includes(input.urls.acsURL)) {
    throw new SamlRefusal('provider_refused', `SAMLResponse: the assertion's Recipient is not ${input.urls.acsURL}`);
  }

  let next: string;
  const inResponseTo = typeof profile.inResponseTo === 'string' ? profile.inResponseTo : undefined;
  if (inResponseTo) {
    const request = await takeSamlRequest(ctx.db, provider.id, inResponseTo, nowIso());
    if (!request) throw new SamlRefusal('invalid_state', `SAMLResponse: InResponseTo "${inResponseTo.slice(0, 100)}" answers no sign-in in progress`);
    next = request.next;
  } else {
    next = safeNext(input.relayState);
  }
  const fresh = await recordUsedSamlAssertion(ctx.db, { provider_id: provider.id, assertion_id: facts.id, expires_at: new Date(facts.expires).toISOString() }, nowIso());
  if (!fresh) throw new SamlRefusal('invalid_state', `SAMLResponse: assertion "${facts.id.slice(0, 100)}" was already used`);

  const email = emailOf(profile);
  const existing = await findUserByEmail(ctx.db, email);
  const organizationId = provider.organization_id;
  if (existing) {
    const member = await findMember(ctx.db, organizationId, existing.id);
    if (!member) throw new SamlRefusal('not_allowed', `email: ${email} has an account but is not a member of organization ${organizationId}`);
    if (member.disabled) throw new SamlRefusal('not_allowed', `email: ${email} is a disabled member of organization ${organizationId}`);
    return { started: await startSession(ctx, existing, 'saml', input.client), next };
  }
  const name = nameOf(profile);
  // Two first sign-ins at once: the one that lost the insert takes the other's user (who joins once).
  let made = true;
  const user = await createUser(ctx, { email, ...(name ? { name } : {}) }).catch(async (error: unknown) => {
    const other = error instanceof Conflict ? await findUserByEmail(ctx.db, email) : undefined;
    if (!other) throw error;
    made = false;
    return other;
  });
  if (made) {
    await addMember(ctx, organizationId, user.id, isRole(provider.default_role) ? provider.default_role : null, { sso: true });
    const team = provider.default_team_id ? await findTeam(ctx.db, organizationId, provider.default_team_id) : undefined;
    if (team) await addTeamMemberIfAbsent(ctx.db, { team_id: team.id, user_id: user.id, role: 'member', added_at: nowIso() });
  }
  return { started: await startSession(ctx, user, 'saml', input.client), next };
}
