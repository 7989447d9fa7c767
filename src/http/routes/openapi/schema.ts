import { Type } from 'typebox';
import { ListQuery, StringEnum, Timestamp } from '../../schemas.js';
import { SLUG_PATTERN } from '../../../domain/openapi/specs.js';

/** OpenAPISpecSlug of the reference. */
export const SpecSlug = Type.String({ minLength: 1, maxLength: 100, pattern: SLUG_PATTERN.source, description: 'Lower-case letters, digits and single hyphens' });
const SpecUrl = Type.String({ format: 'uri', maxLength: 2048 });

export const SpecsParams = Type.Object({ organizationId: Type.String() });
export const SpecParams = Type.Object({ organizationId: Type.String(), specSlug: Type.String() });
/** PUT may create the spec: its slug must be a valid one. */
export const PutSpecParams = Type.Object({ organizationId: Type.String(), specSlug: SpecSlug });
export const VersionParams = Type.Object({ organizationId: Type.String(), specSlug: Type.String(), versionId: Type.String() });

/**
 * OpenAPISpecSource of the reference: `{url}` or `{text}`. Written as one object with two optional members so that
 * "neither" and "both" get a clear 400 from the domain (`source: must have url or text`) instead of a oneOf error.
 */
export const SpecSource = Type.Object(
  {
    url: Type.Optional(Type.String({ ...SpecUrl, description: 'An http(s) URL the document is fetched from (and refetched periodically)' })),
    text: Type.Optional(Type.String({ minLength: 1, description: 'The document itself, JSON or YAML' })),
  },
  { description: 'Exactly one of `url` and `text`' },
);

export const CreateSpecBody = Type.Object({ slug: SpecSlug, source: SpecSource });
export const PutSpecBody = Type.Object({ source: SpecSource });
export const SpecListQuery = Type.Object({ ...ListQuery });

export const ProcessingState = StringEnum(['pending', 'progress', 'complete'] as const, {
  description: '`pending`: queued; `progress`: being fetched and parsed; `complete`: done (see `lastProcessErrorCode`)',
});
export const ProcessErrorCode = StringEnum(['FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'] as const);

/** OpenAPISpec of the reference. */
export const SpecSchema = Type.Object({
  object: Type.Literal('openapi-spec'),
  id: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  slug: Type.String(),
  sourceURL: Type.Optional(Type.String({ description: 'The source, when it is a URL' })),
  processingState: ProcessingState,
  lastVersion: Type.Optional(Type.String({ description: 'Id of the newest version' })),
  lastProcessedAt: Type.Optional(Timestamp),
  lastProcessErrorCode: Type.Optional(ProcessErrorCode),
  lastProcessError: Type.Optional(
    Type.String({ description: 'Quire extension: why the last processing failed, in words (the source URL refused, the line that does not parse), beside its code' }),
  ),
  permissions: Type.Object({ view: Type.Boolean(), edit: Type.Boolean(), delete: Type.Boolean() }),
  urls: Type.Object({ location: Type.String(), app: Type.String() }),
});

/** OpenAPISpecVersion of the reference. */
export const SpecVersionSchema = Type.Object({
  object: Type.Literal('openapi-spec-version'),
  id: Type.String(),
  createdAt: Timestamp,
  url: Type.String({ description: 'The URL the document was fetched from; for a text source, the API address of this version\'s content' }),
  urls: Type.Object({ location: Type.String() }),
});

/** OpenAPISpecContent of the reference. */
export const SpecContentSchema = Type.Object({
  filesystem: Type.Object(
    {},
    {
      additionalProperties: true,
      description: 'File name -> document: one file, `openapi.json`, holding the bundled document (external $refs resolved into it)',
    },
  ),
  url: Type.String(),
});
