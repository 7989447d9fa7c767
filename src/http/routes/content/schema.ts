import { Type } from 'typebox';
import { ListQuery, StringEnum, Timestamp, Url } from '../../schemas.js';
import { IMPORT_SOURCES } from '../../../domain/imports/imports.js';

export const ContentQuery = Type.Object({
  metadata: Type.Optional(Type.Boolean({ default: true, description: 'false leaves out git metadata' })),
  computed: Type.Optional(Type.Boolean({ default: true, description: 'false skips computed content' })),
});

export const PageQuery = Type.Object({
  ...ContentQuery.properties,
  format: Type.Optional(StringEnum(['markdown', 'document'] as const, { description: 'default markdown' })),
  evaluated: Type.Optional(Type.Boolean({ default: false, description: 'true replaces variable expressions by their values' })),
});

export const FilesQuery = Type.Object({ ...ListQuery, ...ContentQuery.properties });

/** `changeRequestId` is there on the change-request variants of the content routes. */
const Target = { spaceId: Type.String(), changeRequestId: Type.Optional(Type.String()) };
export const SpaceContentParams = Type.Object(Target);
export const PageParams = Type.Object({ ...Target, pageId: Type.String() });
export const PagePathParams = Type.Object({ spaceId: Type.String(), '*': Type.String() });
export const FileParams = Type.Object({ ...Target, fileId: Type.String() });
export const RevisionParams = Type.Object({ spaceId: Type.String(), revisionId: Type.String() });
export const BlobParams = Type.Object({ spaceId: Type.String(), oid: Type.String(), name: Type.String() });

const GitBlob = Type.Object({ oid: Type.String(), path: Type.String() });

/** Nested pages are serialized as built (the tree has any depth). */
const NestedPages = Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }));

export const PageSchema = Type.Object({
  id: Type.String(),
  title: Type.String(),
  // Deprecated in the reference, and absent from its computed pages.
  kind: Type.Optional(Type.String()),
  type: StringEnum(['document', 'group', 'link', 'computed'] as const),
  emoji: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  createdAt: Type.Optional(Timestamp),
  updatedAt: Type.Optional(Timestamp),
  urls: Type.Optional(Type.Object({ app: Url })),
  slug: Type.Optional(Type.String()),
  path: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  documentId: Type.Optional(Type.String()),
  markdown: Type.Optional(Type.String()),
  document: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
  pages: Type.Optional(NestedPages),
  git: Type.Optional(GitBlob),
  layout: Type.Optional(
    Type.Object({
      width: Type.String(),
      cover: Type.Boolean(),
      coverSize: Type.String(),
      title: Type.Boolean(),
      description: Type.Boolean(),
      tableOfContents: Type.Boolean(),
      outline: Type.Boolean(),
      pagination: Type.Boolean(),
      metadata: Type.Boolean(),
    }),
  ),
  cover: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
  variables: Type.Optional(Type.Record(Type.String(), Type.String())),
  hidden: Type.Optional(Type.Boolean()),
  noIndex: Type.Optional(Type.Boolean()),
  noRobotsIndex: Type.Optional(Type.Boolean()),
  computed: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
  computedSeed: Type.Optional(Type.String()),
  target: Type.Optional(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })),
  href: Type.Optional(Type.String()),
});

export const FileSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  contentType: Type.String(),
  downloadURL: Url,
  size: Type.Number(),
  dimensions: Type.Optional(Type.Object({ width: Type.Number(), height: Type.Number() })),
  git: Type.Optional(GitBlob),
});

export const RevisionSchema = Type.Object({
  object: Type.Literal('revision'),
  id: Type.String(),
  type: Type.String(),
  parents: Type.Array(Type.String()),
  pages: Type.Array(PageSchema),
  files: Type.Array(FileSchema),
  reusableContents: Type.Array(
    Type.Object({ id: Type.String(), title: Type.String(), document: Type.Optional(Type.String()), git: Type.Optional(GitBlob) }),
  ),
  variables: Type.Record(Type.String(), Type.String()),
  createdAt: Timestamp,
  git: Type.Optional(
    Type.Object({ oid: Type.String(), message: Type.String(), createdByGitBook: Type.Boolean(), ref: Type.Optional(Type.String()) }),
  ),
  urls: Type.Object({ app: Url }),
});

export const PagesSchema = Type.Object({ pages: Type.Array(PageSchema) });

export const ImportContentBody = Type.Object({
  url: Type.String({ format: 'uri', description: 'URL of the content to import' }),
  source: StringEnum(IMPORT_SOURCES, { description: 'website, markdown, html, zip and docx can be imported; the others answer 400 with the reason' }),
});

export const ImportContentResultSchema = Type.Object({
  revision: Type.String({ description: 'ID of the newly created revision' }),
  importedResources: Type.Number({ description: 'Pages and files imported' }),
  totalResources: Type.Number({ description: 'Pages and files found at the source, imported or not' }),
});

export const ImportedHeaders = Type.Object({ location: Type.String({ description: 'API URL of the new revision' }) });

export const ListContentImportsQuery = Type.Object(ListQuery);
export const ContentImportParams = Type.Object({ spaceId: Type.String(), importId: Type.String({ maxLength: 100 }) });

/** A content import as it stands (a Quire extension: the reference answers only when an import is done). */
export const ContentImportSchema = Type.Object({
  object: Type.Literal('content-import'),
  id: Type.String(),
  url: Type.String({ description: 'What is imported' }),
  source: Type.String(),
  status: StringEnum(['pending', 'running', 'done', 'failed'] as const),
  changeRequest: Type.Optional(Type.String({ description: 'Id of the change request imported into; absent: main' })),
  importedResources: Type.Number({ description: 'Pages and files imported so far (all of them once done)' }),
  totalResources: Type.Number({ description: 'Pages and files found at the source so far (a crawl finds more as it goes)' }),
  revision: Type.Optional(Type.String({ description: 'The revision the import made, once done' })),
  error: Type.Optional(Type.String({ description: 'Why it failed' })),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  urls: Type.Object({ location: Type.String() }),
});

/** An old revision's page, by id or by path (getPageInRevisionById, getPageInRevisionByPath, getPageHtmlInRevision). */
export const RevisionPageParams = Type.Object({ spaceId: Type.String(), revisionId: Type.String(), pageId: Type.String() });
export const RevisionPagePathParams = Type.Object({ spaceId: Type.String(), revisionId: Type.String(), '*': Type.String() });

/** A page rendered as the published sites render it (a Quire extension, for the app's views). */
export const PageHtmlSchema = Type.Object({
  object: Type.Literal('page-html'),
  id: Type.String(),
  title: Type.String(),
  path: Type.String(),
  html: Type.String({ description: 'The page\'s content as sanitized HTML, by the published sites\' renderer; links lead to the app.' }),
  outline: Type.Array(Type.Object({ depth: Type.Number(), text: Type.String(), id: Type.String() })),
});
