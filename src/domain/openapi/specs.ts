/**
 * OpenAPI specifications of an organization and their processing.
 *
 * A spec is known by its slug and has one source: a URL or a text. Creating it or PUTting a source sets
 * `processingState: pending` and queues `fetch-openapi`; the answer does not wait. The job moves the spec to
 * `progress`, reads the document (src/domain/openapi/document.ts) and ends in `complete`, with
 * `lastProcessErrorCode` set on failure and cleared on success. A version is recorded only when the bundled
 * document's content differs from the latest version's; `lastVersion` names the newest.
 *
 * Concurrency: each creation or PUT gives the spec a new `request_id`. A fetch that started for an older request
 * (the source changed while it ran) discards its result; the newer request's own job does the work. The final write
 * is a compare-and-swap on (request_id, last_version_id), so two fetches of one request record one version.
 */
import net from 'node:net';
import type { Caller, Context } from '../context.js';
import { Conflict, InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { requireOrgPermission, type OrgAccess } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import {
  deleteSpecRow,
  findSpecById,
  findSpecBySlug,
  findSpecsNamed,
  findVersion,
  insertSpec,
  insertVersion,
  listSpecs as listSpecRows,
  listVersions as listVersionRows,
  nextVersionNumber,
  updateSpec,
  updateSpecIfCurrent,
  specIdsToRefresh,
  versionContent,
  type OpenApiSpecRow,
  type OpenApiSpecVersionMeta,
} from '../../store/sql/openapi.js';
import { loadDocumentFromText, loadDocumentFromUrl, SpecProcessingFailure, type LoadedDocument } from './document.js';

export type ProcessingState = 'pending' | 'progress' | 'complete';

export interface SpecView {
  spec: OpenApiSpecRow;
  access: OrgAccess;
}

export interface SpecVersionView {
  spec: OpenApiSpecRow;
  version: OpenApiSpecVersionMeta;
}

export interface SpecContentView extends SpecVersionView {
  /** The bundled document as JSON text (answers embed it as is, without parsing it again). */
  json: string;
}

/** The body's `source`: exactly one of the two. */
export interface SpecSourceInput {
  url?: string;
  text?: string;
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Checks a source before anything is written: exactly one of `url` and `text`, an http(s) URL, and no literal
 * address the fetcher would refuse (a clear 400 now rather than a FETCH_ERROR later). Names that resolve to such
 * addresses are refused when fetched (FETCH_ERROR, reason in the job failure log).
 */
function checkSource(ctx: Context, source: SpecSourceInput): { source_url: string | null; source_text: string | null } {
  const hasUrl = source.url !== undefined;
  const hasText = source.text !== undefined;
  if (hasUrl && hasText) throw new InvalidArgument('source: must have either url or text, not both');
  if (!hasUrl && !hasText) throw new InvalidArgument('source: must have url or text');
  if (hasText) {
    if (source.text!.trim().length === 0) throw new InvalidArgument('source.text: must not be blank');
    return { source_url: null, source_text: source.text! };
  }
  let url: URL;
  try {
    url = new URL(source.url!);
  } catch {
    throw new InvalidArgument('source.url: must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgument(`source.url: must be an http or https URL, not ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host) && !ctx.fetcher.addressAllowed(host)) {
    throw new InvalidArgument(
      `source.url: ${host} is a private, loopback or link-local address; Quire does not fetch from those unless QUIRE_FETCH_ALLOW allows it`,
    );
  }
  return { source_url: source.url!, source_text: null };
}

function checkSlug(slug: string, field: string): void {
  if (slug.length < 1 || slug.length > 100 || !SLUG_PATTERN.test(slug)) {
    throw new InvalidArgument(`${field}: must be 1 to 100 lower-case letters, digits and single hyphens (${SLUG_PATTERN.source})`);
  }
}

async function specAccess(ctx: Context, caller: Caller, organizationId: string, slug: string): Promise<SpecView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const spec = await findSpecBySlug(ctx.db, organizationId, slug);
  if (!spec) throw new NotFound(`specSlug: no OpenAPI specification "${slug}" in this organization`);
  return { spec, access };
}

export async function listSpecs(ctx: Context, caller: Caller, organizationId: string, request: PageRequest): Promise<Page<SpecView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `openapi-specs:${organizationId}`,
    request,
    fetch: (after, n) => listSpecRows(ctx.db, organizationId, after, n),
    positionOf: (row) => [row.slug],
    present: (row) => row,
  });
  return { items: page.items.map((spec) => ({ spec, access })), next: page.next };
}

export async function getSpec(ctx: Context, caller: Caller, organizationId: string, slug: string): Promise<SpecView> {
  return specAccess(ctx, caller, organizationId, slug);
}

/** Queues the processing of the spec's current source; on a queue failure, `undo` puts the previous state back. */
async function queueProcessing(ctx: Context, spec: OpenApiSpecRow, undo: () => Promise<void>): Promise<void> {
  try {
    await ctx.jobs.enqueue({ name: 'fetch-openapi', payload: { specId: spec.id, requestId: spec.request_id } });
  } catch (error) {
    await undo();
    throw error;
  }
}

/** Creates a spec (409 when the slug is taken) and queues its processing. */
export async function createSpec(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: { slug: string; source: SpecSourceInput },
): Promise<SpecView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'createOpenAPISpec', 'create OpenAPI specifications');
  checkSlug(input.slug, 'slug');
  const source = checkSource(ctx, input.source);
  const conflict = () => new Conflict(`slug: an OpenAPI specification "${input.slug}" already exists in this organization`);
  if (await findSpecBySlug(ctx.db, organizationId, input.slug)) throw conflict();
  const spec = newSpecRow(organizationId, input.slug, source, caller);
  try {
    await insertSpec(ctx.db, spec);
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict();
    throw error;
  }
  await queueProcessing(ctx, spec, () => deleteSpecRow(ctx.db, organizationId, spec.slug).then(() => undefined));
  return { spec, access };
}

function newSpecRow(organizationId: string, slug: string, source: ReturnType<typeof checkSource>, caller: Caller): OpenApiSpecRow {
  const now = nowIso();
  return {
    id: newId(),
    organization_id: organizationId,
    slug,
    ...source,
    processing_state: 'pending',
    request_id: newId(),
    last_processed_at: null,
    last_process_error_code: null,
    last_process_error: null,
    last_version_id: null,
    created_by: caller.user.id,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Creates the spec or replaces its source (createOrUpdateOpenAPISpecBySlug), and queues its processing either way:
 * PUTting the same URL again is how a client asks for a refetch. Answers 200 in both cases, as the spec says (the
 * reference answers 201 to a creation).
 */
export async function putSpec(ctx: Context, caller: Caller, organizationId: string, slug: string, input: { source: SpecSourceInput }): Promise<SpecView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'createOpenAPISpec', 'create or update OpenAPI specifications');
  checkSlug(slug, 'specSlug');
  const source = checkSource(ctx, input.source);
  for (let attempt = 0; ; attempt++) {
    const existing = await findSpecBySlug(ctx.db, organizationId, slug);
    if (!existing) {
      const spec = newSpecRow(organizationId, slug, source, caller);
      try {
        await insertSpec(ctx.db, spec);
      } catch (error) {
        // Created by someone else meanwhile: update it instead.
        if (isUniqueViolation(error) && attempt === 0) continue;
        throw error;
      }
      await queueProcessing(ctx, spec, () => deleteSpecRow(ctx.db, organizationId, slug).then(() => undefined));
      return { spec, access };
    }
    const changes = { ...source, processing_state: 'pending', request_id: newId(), updated_at: nowIso() };
    await updateSpec(ctx.db, existing.id, changes);
    const spec = { ...existing, ...changes };
    const previous = {
      source_url: existing.source_url,
      source_text: existing.source_text,
      processing_state: existing.processing_state,
      request_id: existing.request_id,
      updated_at: existing.updated_at,
    };
    await queueProcessing(ctx, spec, () => updateSpecIfCurrent(ctx.db, spec.id, { requestId: spec.request_id }, previous).then(() => undefined));
    return { spec, access };
  }
}

/** Deletes the spec and its versions (for good). True when it existed (205), false otherwise (204). */
export async function deleteSpec(ctx: Context, caller: Caller, organizationId: string, slug: string): Promise<boolean> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'createOpenAPISpec', 'delete OpenAPI specifications');
  return deleteSpecRow(ctx.db, organizationId, slug);
}

/** A spec's versions, newest first. */
export async function listSpecVersions(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  slug: string,
  request: PageRequest,
): Promise<Page<SpecVersionView>> {
  const { spec } = await specAccess(ctx, caller, organizationId, slug);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `openapi-versions:${spec.id}`,
    request,
    fetch: (after, n) => listVersionRows(ctx.db, spec.id, after, n),
    positionOf: (row) => [row.number],
    present: (row) => row,
  });
  return { items: page.items.map((version) => ({ spec, version })), next: page.next };
}

/** A version of the spec; `latest` (the path segment) names the newest. */
export async function getSpecVersion(ctx: Context, caller: Caller, organizationId: string, slug: string, versionId: string | 'latest'): Promise<SpecVersionView> {
  const { spec } = await specAccess(ctx, caller, organizationId, slug);
  if (versionId === 'latest' && !spec.last_version_id) {
    throw new NotFound(`versionId: the OpenAPI specification "${slug}" has no version yet (processingState: ${spec.processing_state})`);
  }
  const id = versionId === 'latest' ? spec.last_version_id! : versionId;
  const version = await findVersion(ctx.db, spec.id, id);
  if (!version) throw new NotFound(`versionId: no version "${versionId}" of the OpenAPI specification "${slug}"`);
  return { spec, version };
}

export async function getSpecVersionContent(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  slug: string,
  versionId: string | 'latest',
): Promise<SpecContentView> {
  const view = await getSpecVersion(ctx, caller, organizationId, slug, versionId);
  const json = await versionContent(ctx.db, view.version.id);
  // Deleted between the two reads.
  if (json === undefined) throw new NotFound(`versionId: no version "${versionId}" of the OpenAPI specification "${slug}"`);
  return { ...view, json };
}

/** A spec's latest version, parsed: what a published page's OpenAPI blocks are rendered from. */
export interface SpecDocument {
  slug: string;
  sourceUrl: string | null;
  versionId: string;
  document: Record<string, unknown>;
}

/**
 * The organization's specs that `names` name (slugs, or source URLs as the older `{% openapi src= %}` blocks
 * write them), each with its latest version parsed; specs without a version yet are left out. For published
 * pages, which show what their organization's specs say: no caller, the site's own access rules apply. A version
 * never changes, so its parsed document is kept in the read cache under its id.
 */
export async function specDocumentsNamed(ctx: Context, organizationId: string, names: string[]): Promise<SpecDocument[]> {
  const specs = (await findSpecsNamed(ctx.db, organizationId, names)).filter((spec) => spec.last_version_id !== null);
  const documents = await Promise.all(
    specs.map(async (spec) => {
      const versionId = spec.last_version_id!;
      const document = await ctx.cache.get(`openapi-document:${versionId}`, async () => {
        const json = await versionContent(ctx.db, versionId);
        return json === undefined ? undefined : (JSON.parse(json) as Record<string, unknown>);
      });
      return document ? [{ slug: spec.slug, sourceUrl: spec.source_url, versionId, document }] : [];
    }),
  );
  return documents.flat();
}

// ---- processing (the jobs)

/** What one processing did. */
export type ProcessOutcome =
  /** The spec was deleted, or its source replaced meanwhile (the newer request's job processes it). */
  | { result: 'skipped' }
  /** Processed; the content equals the latest version's. */
  | { result: 'unchanged' }
  | { result: 'version'; versionId: string }
  /** Recorded on the spec as `lastProcessErrorCode`. */
  | { result: 'failed'; failure: SpecProcessingFailure };

/**
 * Processes the spec's current source (the `fetch-openapi` job). Idempotent: a spec deleted since is skipped, a
 * result for a superseded request is dropped, unchanged content records no version. A fetch or parse failure is
 * recorded on the spec and returned. Other errors (the database) are thrown, for the job to be retried.
 */
export async function processSpec(ctx: Context, specId: string): Promise<ProcessOutcome> {
  const spec = await findSpecById(ctx.db, specId);
  if (!spec) return { result: 'skipped' };
  const requestId = spec.request_id;
  if (!(await updateSpecIfCurrent(ctx.db, spec.id, { requestId }, { processing_state: 'progress' }))) return { result: 'skipped' };
  let loaded: LoadedDocument;
  try {
    const fetch = ctx.fetcher.fetch.bind(ctx.fetcher);
    loaded = spec.source_url !== null ? await loadDocumentFromUrl(fetch, spec.source_url) : await loadDocumentFromText(fetch, spec.source_text ?? '');
  } catch (error) {
    if (!(error instanceof SpecProcessingFailure)) throw error;
    const recorded = await updateSpecIfCurrent(
      ctx.db,
      spec.id,
      { requestId },
      { processing_state: 'complete', last_processed_at: nowIso(), last_process_error_code: error.code, last_process_error: error.message },
    );
    return recorded ? { result: 'failed', failure: error } : { result: 'skipped' };
  }
  return recordResult(ctx, spec, requestId, loaded);
}

async function recordResult(ctx: Context, spec: OpenApiSpecRow, requestId: string, loaded: LoadedDocument): Promise<ProcessOutcome> {
  return ctx.db.transaction().execute(async (trx): Promise<ProcessOutcome> => {
    const current = await findSpecById(trx, spec.id);
    if (!current || current.request_id !== requestId) return { result: 'skipped' };
    const latest = current.last_version_id ? await findVersion(trx, spec.id, current.last_version_id) : undefined;
    const changed = latest?.hash !== loaded.hash;
    const now = nowIso();
    const versionId = changed ? newId() : current.last_version_id;
    const written = await updateSpecIfCurrent(
      trx,
      spec.id,
      { requestId, lastVersionId: current.last_version_id },
      {
        processing_state: 'complete',
        last_processed_at: now,
        last_process_error_code: null,
        last_process_error: null,
        last_version_id: versionId,
        ...(changed ? { updated_at: now } : {}),
      },
    );
    if (!written) return { result: 'skipped' };
    if (!changed) return { result: 'unchanged' };
    await insertVersion(trx, {
      id: versionId!,
      spec_id: spec.id,
      number: await nextVersionNumber(trx, spec.id),
      url: spec.source_url,
      hash: loaded.hash,
      content: loaded.json,
      created_at: now,
    });
    return { result: 'version', versionId: versionId! };
  });
}

/**
 * The periodic `refresh-openapi-specs` job: queues `fetch-openapi` for every spec whose source is a URL (text
 * sources cannot change by themselves), and for any spec whose processing never completed (a lost job). One read
 * per 500 specs; the fetches run as their own jobs.
 */
export async function refreshUrlSpecs(ctx: Context): Promise<number> {
  const requestId = `refresh-${newId()}`;
  let queued = 0;
  let after: string | undefined;
  for (;;) {
    const ids = await specIdsToRefresh(ctx.db, after, 500);
    await Promise.all(ids.map((specId) => ctx.jobs.enqueue({ name: 'fetch-openapi', payload: { specId, requestId } })));
    queued += ids.length;
    if (ids.length < 500) return queued;
    after = ids[ids.length - 1];
  }
}
