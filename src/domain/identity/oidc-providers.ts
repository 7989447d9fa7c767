/**
 * Organizations' OpenID Connect providers (a Quire extension): at most one per organization, set by its admins. The
 * client secret is sealed with the data dir's credentials key (as Git Sync's credentials are) and never returned.
 * Who may sign in with one: the organization's members, and people of its `allowedDomains`, who join on their first
 * sign-in with `defaultRole` (./oidc.ts).
 */
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { isRole, requireOrgPermission, type Role } from '../permissions.js';
import { DOMAIN, organizationAccess } from '../organizations/organizations.js';
import { deleteOidcProvider, findOidcProvider, saveOidcProvider, type OidcProviderRow } from '../../store/sql/oidc-providers.js';

/** Whether `url` (http) leads to a host QUIRE_FETCH_ALLOW vouches for: the only hosts reached by plain http. */
export async function plainHttpAllowed(ctx: Context, url: URL): Promise<boolean> {
  try {
    const pin = await ctx.fetcher.resolvePinned(url.href);
    return ctx.fetcher.allowedByConfiguration(pin.address, pin.host);
  } catch {
    return false;
  }
}

export const DEFAULT_OIDC_LABEL = 'Single sign-on';

export interface OidcProviderInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
  label?: string;
  allowedDomains?: string[];
  defaultRole?: Role | null;
}

/** An organization's provider as its admins see it: everything but the secret. */
export interface OidcProviderView {
  organizationId: string;
  issuer: string;
  clientId: string;
  label: string;
  allowedDomains: string[];
  defaultRole: Role | null;
  createdAt: string;
  updatedAt: string;
}

/** What the secret is sealed for: this organization's provider only. */
export const oidcSecretContext = (organizationId: string) => `oidc provider client secret ${organizationId}`;

export function oidcProviderView(row: OidcProviderRow): OidcProviderView {
  return {
    organizationId: row.organization_id,
    issuer: row.issuer,
    clientId: row.client_id,
    label: row.label,
    allowedDomains: JSON.parse(row.allowed_domains) as string[],
    defaultRole: isRole(row.default_role) ? row.default_role : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

async function requireAdmin(ctx: Context, caller: Caller, organizationId: string, action: string): Promise<void> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', action);
}

export async function checkIssuer(ctx: Context, issuer: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new InvalidArgument(`issuer: "${issuer.slice(0, 200)}" is not a URL`);
  }
  if (url.username || url.password || url.search || url.hash) throw new InvalidArgument('issuer: must carry no credentials, query or fragment');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (await plainHttpAllowed(ctx, url)))) {
    throw new InvalidArgument('issuer: must be https (plain http only to a host QUIRE_FETCH_ALLOW allows)');
  }
  return issuer;
}

function checkDomains(domains: string[]): string[] {
  const normalized = domains.map((domain) => domain.trim().toLowerCase());
  normalized.forEach((domain, i) => {
    if (!DOMAIN.test(domain)) throw new InvalidArgument(`allowedDomains[${i}]: "${domains[i].slice(0, 100)}" is not a domain name`);
  });
  return [...new Set(normalized)].sort();
}

/** Sets (makes or replaces) the organization's provider. */
export async function setOidcProvider(ctx: Context, caller: Caller, organizationId: string, input: OidcProviderInput): Promise<OidcProviderView> {
  await requireAdmin(ctx, caller, organizationId, 'set its OpenID Connect provider');
  const clientId = input.clientId.trim();
  if (!clientId) throw new InvalidArgument('clientId: must not be empty');
  if (!input.clientSecret.trim()) throw new InvalidArgument('clientSecret: must not be empty');
  const label = (input.label ?? DEFAULT_OIDC_LABEL).trim();
  if (!label) throw new InvalidArgument('label: must not be empty');
  const now = nowIso();
  const existing = await findOidcProvider(ctx.db, organizationId);
  const row: OidcProviderRow = {
    organization_id: organizationId,
    issuer: await checkIssuer(ctx, input.issuer.trim()),
    client_id: clientId,
    client_secret: ctx.secrets.seal(input.clientSecret.trim(), oidcSecretContext(organizationId)),
    label,
    allowed_domains: JSON.stringify(checkDomains(input.allowedDomains ?? [])),
    default_role: input.defaultRole === undefined ? 'read' : input.defaultRole,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await saveOidcProvider(ctx.db, row);
  return oidcProviderView(row);
}

export async function getOidcProvider(ctx: Context, caller: Caller, organizationId: string): Promise<OidcProviderView> {
  await requireAdmin(ctx, caller, organizationId, 'read its OpenID Connect provider');
  const row = await findOidcProvider(ctx.db, organizationId);
  if (!row) throw new NotFound(`oidc: organization "${organizationId}" has no OpenID Connect provider`);
  return oidcProviderView(row);
}

export async function removeOidcProvider(ctx: Context, caller: Caller, organizationId: string): Promise<void> {
  await requireAdmin(ctx, caller, organizationId, 'remove its OpenID Connect provider');
  if (!(await deleteOidcProvider(ctx.db, organizationId))) throw new NotFound(`oidc: organization "${organizationId}" has no OpenID Connect provider`);
}
