import type { SpecContentView, SpecVersionView, SpecView } from '../../../domain/openapi/specs.js';
import { openApiSpecPermissions } from '../../../domain/permissions.js';
import type { Urls } from '../../urls.js';

/** The one file of a version's `filesystem`. */
export const BUNDLE_FILE = 'openapi.json';

export function presentSpec(urls: Urls, { spec, access }: SpecView) {
  return {
    object: 'openapi-spec' as const,
    id: spec.id,
    createdAt: spec.created_at,
    updatedAt: spec.updated_at,
    slug: spec.slug,
    ...(spec.source_url !== null ? { sourceURL: spec.source_url } : {}),
    processingState: spec.processing_state as 'pending' | 'progress' | 'complete',
    ...(spec.last_version_id ? { lastVersion: spec.last_version_id } : {}),
    ...(spec.last_processed_at ? { lastProcessedAt: spec.last_processed_at } : {}),
    ...(spec.last_process_error_code ? { lastProcessErrorCode: spec.last_process_error_code as 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR' } : {}),
    ...(spec.last_process_error_code && spec.last_process_error ? { lastProcessError: spec.last_process_error } : {}),
    permissions: openApiSpecPermissions(access),
    urls: { location: urls.api(specPath(spec)), app: urls.app(`/o/${spec.organization_id}/openapi/${spec.slug}`) },
  };
}

function specPath(spec: { organization_id: string; slug: string }): string {
  return `/orgs/${spec.organization_id}/openapi/${spec.slug}`;
}

/** A version's `url`: where its document was fetched from, or (text sources) the API address of its content. */
function versionUrl(urls: Urls, { spec, version }: SpecVersionView): string {
  return version.url ?? urls.api(`${specPath(spec)}/versions/${version.id}/content`);
}

export function presentVersion(urls: Urls, view: SpecVersionView) {
  return {
    object: 'openapi-spec-version' as const,
    id: view.version.id,
    createdAt: view.version.created_at,
    url: versionUrl(urls, view),
    urls: { location: urls.api(`${specPath(view.spec)}/versions/${view.version.id}`) },
  };
}

/** `{filesystem, url}` as JSON text: the stored document is embedded as it is, never parsed again. */
export function presentContentJson(urls: Urls, view: SpecContentView): string {
  return `{"filesystem":{${JSON.stringify(BUNDLE_FILE)}:${view.json}},"url":${JSON.stringify(versionUrl(urls, view))}}`;
}
