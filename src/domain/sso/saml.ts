/**
 * SAML identity providers of an organization and the sign-in choices they offer (listSSOProviderLoginsInOrganization).
 *
 * A provider is created with a label alone and stays `pending` until its entity id, SSO URL and certificate are
 * all set; it is `active` after. Values are checked when saved: the SSO URL must be an http(s) URL, the
 * certificate an X.509 certificate (a PEM `CERTIFICATE` block, or the bare base64 body that IdP metadata carries),
 * stored as normalized PEM; the default team must be a team of the organization. An empty string clears
 * entity id, certificate or SSO URL (the provider goes back to `pending`); null or "" clears the default team.
 * Managing providers is for organization admins; every member may list the active providers' sign-in links.
 */
import { X509Certificate } from 'node:crypto';
import type { Context, Caller } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { isRole, requireOrgPermission, type OrgAccess, type Role } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { teamViews, type TeamView } from '../members/members.js';
import { findTeam, type TeamRow } from '../../store/sql/teams.js';
import { isForeignKeyViolation } from '../../store/sql/errors.js';
import {
  deleteSamlProviderRow,
  findSamlProvider,
  findSamlProviderById,
  insertSamlProvider,
  listConfiguredSamlProviders,
  listSamlProviders as listSamlProviderRows,
  updateSamlProviderRow,
  type SamlProviderRow,
} from '../../store/sql/saml.js';

export type SamlStatus = 'active' | 'pending';

export interface SamlProviderView {
  provider: SamlProviderRow;
  status: SamlStatus;
  /** The default team as the caller sees it, when one is set. */
  defaultTeam?: TeamView;
}

export interface SamlProviderInput {
  label?: string;
  entityID?: string;
  certificate?: string;
  ssoURL?: string;
  defaultTeam?: string | null;
  defaultRole?: Role | null;
}

export function samlStatus(provider: Pick<SamlProviderRow, 'entity_id' | 'sso_url' | 'certificate'>): SamlStatus {
  return provider.entity_id && provider.sso_url && provider.certificate ? 'active' : 'pending';
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * An X.509 certificate as normalized PEM. Accepts one PEM `CERTIFICATE` block (text around it, such as the
 * "Bag Attributes" openssl prints, is ignored) or the bare base64 of the DER, with or without line breaks.
 */
export function normalizeCertificate(input: string): string {
  const blocks = [...input.matchAll(PEM_BLOCK)];
  let body: string;
  if (blocks.length > 0) {
    const kinds = blocks.map((b) => b[1]);
    if (kinds.some((kind) => kind !== 'CERTIFICATE')) {
      throw new InvalidArgument(`certificate: must be an X.509 certificate; got a PEM "${kinds.find((k) => k !== 'CERTIFICATE')}" block`);
    }
    if (blocks.length > 1) throw new InvalidArgument(`certificate: must hold one certificate; got ${blocks.length}`);
    body = blocks[0][2];
  } else if (input.includes('-----BEGIN')) {
    throw new InvalidArgument('certificate: has a PEM header without its matching "-----END CERTIFICATE-----" line');
  } else {
    body = input;
  }
  const base64 = body.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) {
    throw new InvalidArgument('certificate: must be an X.509 certificate in PEM, or its base64 body');
  }
  try {
    return new X509Certificate(Buffer.from(base64, 'base64')).toString();
  } catch {
    throw new InvalidArgument('certificate: is not a valid X.509 certificate (it does not parse)');
  }
}

/** An http(s) URL, normalized (percent-encoded) so that it is a valid URI. */
function httpUrl(field: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgument(`${field}: must be an http or https URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgument(`${field}: must be an http or https URL`);
  const href = url.href;
  if (href.length > 2048) throw new InvalidArgument(`${field}: must be at most 2048 characters`);
  return href;
}

/** The row changes a create or update input asks for; values checked. `""` clears. */
async function changesOf(ctx: Context, organizationId: string, input: SamlProviderInput): Promise<Partial<SamlProviderRow>> {
  const changes: Partial<SamlProviderRow> = {};
  if (input.label !== undefined) {
    const label = input.label.trim();
    if (label.length === 0) throw new InvalidArgument('label: must not be blank');
    changes.label = label;
  }
  if (input.entityID !== undefined) changes.entity_id = input.entityID.trim() || null;
  if (input.ssoURL !== undefined) changes.sso_url = input.ssoURL.trim() ? httpUrl('ssoURL', input.ssoURL.trim()) : null;
  if (input.certificate !== undefined) changes.certificate = input.certificate.trim() ? normalizeCertificate(input.certificate) : null;
  if (input.defaultRole !== undefined) changes.default_role = input.defaultRole;
  if (input.defaultTeam === null || input.defaultTeam === '') {
    changes.default_team_id = null;
  } else if (input.defaultTeam !== undefined) {
    const team = await findTeam(ctx.db, organizationId, input.defaultTeam);
    if (!team) throw new InvalidArgument(`defaultTeam: no team "${input.defaultTeam}" in this organization`);
    changes.default_team_id = team.id;
  }
  return changes;
}

/** Runs a write; a team deleted since it was checked becomes the same 400 as an unknown team. */
async function writeChecked(input: SamlProviderInput, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isForeignKeyViolation(error) && input.defaultTeam) throw new InvalidArgument(`defaultTeam: no team "${input.defaultTeam}" in this organization`);
    throw error;
  }
}

async function viewsOf(ctx: Context, access: OrgAccess, providers: SamlProviderRow[]): Promise<SamlProviderView[]> {
  const teamIds = [...new Set(providers.map((p) => p.default_team_id).filter((id): id is string => !!id))];
  const teams: TeamRow[] = [];
  for (const id of teamIds) {
    const team = await findTeam(ctx.db, access.organizationId, id);
    if (team) teams.push(team);
  }
  const byId = new Map((await teamViews(ctx, access, teams)).map((v) => [v.team.id, v]));
  return providers.map((provider) => ({
    provider,
    status: samlStatus(provider),
    ...(provider.default_team_id && byId.has(provider.default_team_id) ? { defaultTeam: byId.get(provider.default_team_id) } : {}),
  }));
}

async function adminAccess(ctx: Context, caller: Caller, organizationId: string, action: string) {
  const { organization, access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', action);
  return { organization, access };
}

async function providerOf(ctx: Context, organizationId: string, providerId: string): Promise<SamlProviderRow> {
  const provider = await findSamlProvider(ctx.db, organizationId, providerId);
  if (!provider) throw new NotFound(`samlProviderId: no SAML provider "${providerId}" in this organization`);
  return provider;
}

export async function listSamlProviders(ctx: Context, caller: Caller, organizationId: string, request: PageRequest): Promise<Page<SamlProviderView>> {
  const { access } = await adminAccess(ctx, caller, organizationId, 'list SAML providers');
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `saml:${organizationId}`,
    request,
    fetch: (after, n) => listSamlProviderRows(ctx.db, organizationId, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => row,
  });
  return { items: await viewsOf(ctx, access, page.items), next: page.next };
}

/** Creates a provider (admin). `defaultRole` absent: the organization's default role at this moment. */
export async function createSamlProvider(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: SamlProviderInput & { label: string },
): Promise<SamlProviderView> {
  const { organization, access } = await adminAccess(ctx, caller, organizationId, 'create SAML providers');
  const changes = await changesOf(ctx, organizationId, input);
  const now = nowIso();
  const provider: SamlProviderRow = {
    id: newId(),
    organization_id: organizationId,
    label: changes.label!,
    entity_id: changes.entity_id ?? null,
    sso_url: changes.sso_url ?? null,
    certificate: changes.certificate ?? null,
    default_team_id: changes.default_team_id ?? null,
    default_role: changes.default_role !== undefined ? changes.default_role : isRole(organization.default_role) ? organization.default_role : null,
    created_at: now,
    updated_at: now,
  };
  await writeChecked(input, () => insertSamlProvider(ctx.db, provider));
  return (await viewsOf(ctx, access, [provider]))[0];
}

export async function getSamlProvider(ctx: Context, caller: Caller, organizationId: string, providerId: string): Promise<SamlProviderView> {
  const { access } = await adminAccess(ctx, caller, organizationId, 'read SAML providers');
  return (await viewsOf(ctx, access, [await providerOf(ctx, organizationId, providerId)]))[0];
}

/** Updates the members given (admin); the status follows from the result. */
export async function updateSamlProvider(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  providerId: string,
  input: SamlProviderInput,
): Promise<SamlProviderView> {
  const { access } = await adminAccess(ctx, caller, organizationId, 'update SAML providers');
  await providerOf(ctx, organizationId, providerId);
  const changes = await changesOf(ctx, organizationId, input);
  await writeChecked(input, () => updateSamlProviderRow(ctx.db, organizationId, providerId, { ...changes, updated_at: nowIso() }));
  return (await viewsOf(ctx, access, [await providerOf(ctx, organizationId, providerId)]))[0];
}

/** Deletes a provider (admin). Answers the same whether or not it existed (the spec's 204). */
export async function deleteSamlProvider(ctx: Context, caller: Caller, organizationId: string, providerId: string): Promise<void> {
  await adminAccess(ctx, caller, organizationId, 'delete SAML providers');
  await deleteSamlProviderRow(ctx.db, organizationId, providerId);
}

/** The active providers a member may sign in with (any member; pending providers are left out). */
export async function listSsoLogins(ctx: Context, caller: Caller, organizationId: string): Promise<SamlProviderRow[]> {
  await organizationAccess(ctx, caller, organizationId);
  return listConfiguredSamlProviders(ctx.db, organizationId);
}

/**
 * Quire's side of a provider, for the identity provider's administrators: the provider must exist (its metadata
 * names only Quire's own URLs, so it is public, as SAML metadata is).
 */
export async function samlServiceProvider(ctx: Context, providerId: string): Promise<SamlProviderRow> {
  const provider = await findSamlProviderById(ctx.db, providerId);
  if (!provider) throw new NotFound(`providerId: no SAML provider "${providerId}"`);
  return provider;
}
