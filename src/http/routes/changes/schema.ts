import { Type, type TSchema } from 'typebox';
import { StringEnum, Url } from '../../schemas.js';
import { ChangeRequestSchema } from '../change-requests/schema.js';
import { ContentQuery } from '../content/schema.js';
import { MAX_LIMIT } from '../../../domain/lists.js';
import { DEFAULT_CHANGES_LIMIT } from '../../../domain/change-requests/changes.js';

export const ChangeRequestChangesParams = Type.Object({ spaceId: Type.String(), changeRequestId: Type.String({ description: 'The id or the number' }) });
export const RevisionChangesParams = Type.Object({ spaceId: Type.String(), revisionId: Type.String() });
export const PageDiffParams = Type.Object({ ...ChangeRequestChangesParams.properties, pageId: Type.String() });
export const PageDiffQuery = Type.Object({
  format: Type.Optional(
    StringEnum(['blocks', 'markdown'] as const, {
      default: 'blocks',
      description: '`blocks`: the rendered blocks aligned; `markdown`: the markdown compared line by line, in `hunks` (`blocks` is then empty)',
    }),
  ),
});

const Limit = Type.Optional(
  Type.Number({ minimum: 0, maximum: MAX_LIMIT, default: DEFAULT_CHANGES_LIMIT, description: `Changes to answer at most (fractions truncated); \`more\` counts the others` }),
);
export const ChangesQuery = Type.Object({ limit: Limit });
/** The reference's revision parameters: the changes hold no git metadata and nothing computed, so both change nothing. */
export const RevisionChangesQuery = Type.Object({ ...ContentQuery.properties, limit: Limit });

const Before = <T extends TSchema>(schema: T) => Type.Object({ before: Type.Optional(schema), after: Type.Optional(schema) });
const AnyObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

const ChangedPage = Type.Object({
  id: Type.String(),
  type: StringEnum(['document', 'group', 'link', 'computed'] as const),
  title: Type.String(),
  path: Type.Optional(Type.String({ description: 'Absent for link pages' })),
});
const ChangedFile = Type.Object({ id: Type.String(), name: Type.String(), contentType: Type.String(), downloadURL: Url });
const ChangedReusableContent = Type.Object({ id: Type.String(), title: Type.String(), document: Type.Optional(Type.String()) });

const PageAttributes = Type.Object(
  {
    title: Type.Optional(Before(Type.String())),
    description: Type.Optional(Before(Type.String())),
    slug: Type.Optional(Before(Type.String())),
    document: Type.Optional(Before(Type.String({ description: "The page's documentId (its file's blob)" }))),
    cover: Type.Optional(Before(AnyObject)),
    emoji: Type.Optional(Before(Type.String())),
    layout: Type.Optional(Before(AnyObject)),
    variables: Type.Optional(Before(Type.Record(Type.String(), Type.String()))),
    target: Type.Optional(Before(AnyObject)),
  },
  { minProperties: 1, description: 'What changed: documents name title, description, slug, document, cover, emoji, layout, variables; groups title, slug; links title, target' },
);

const FileAttributes = Type.Object(
  {
    name: Type.Optional(Before(Type.String())),
    downloadURL: Type.Optional(Before(Url)),
    size: Type.Optional(Before(Type.Number())),
    contentType: Type.Optional(Before(Type.String())),
    dimensions: Type.Optional(Before(Type.Object({ width: Type.Number(), height: Type.Number() }))),
  },
  { minProperties: 1 },
);

const ReusableContentAttributes = Type.Object({ title: Type.Optional(Before(Type.String())), document: Type.Optional(Before(Type.String())) }, { minProperties: 1 });

const kind = <T extends string>(type: T) => Type.Literal(type);

export const SemanticChangeSchema = Type.Union([
  Type.Object({ type: kind('page_created'), page: ChangedPage }),
  Type.Object({ type: kind('page_edited'), page: ChangedPage, attributes: PageAttributes }),
  Type.Object({ type: kind('page_deleted'), page: ChangedPage }),
  Type.Object({
    type: kind('page_moved'),
    page: ChangedPage,
    parent: Type.Object({ before: Type.Optional(ChangedPage), after: Type.Optional(ChangedPage) }, { description: 'The parent before and after (absent: the top level)' }),
  }),
  Type.Object({ type: kind('file_created'), file: ChangedFile }),
  Type.Object({ type: kind('file_edited'), file: ChangedFile, attributes: FileAttributes }),
  Type.Object({ type: kind('file_deleted'), file: ChangedFile }),
  Type.Object({ type: kind('variables_edited'), variables: Type.Record(Type.String(), Before(Type.String())) }),
  Type.Object({ type: kind('reusable_content_created'), reusableContent: ChangedReusableContent }),
  Type.Object({ type: kind('reusable_content_deleted'), reusableContent: ChangedReusableContent }),
  Type.Object({ type: kind('reusable_content_edited'), reusableContent: ChangedReusableContent, attributes: ReusableContentAttributes }),
]);

export const SemanticChangesSchema = Type.Object({
  /** For the merge commit of a change request: that change request. */
  mergedFrom: Type.Optional(ChangeRequestSchema),
  changes: Type.Array(SemanticChangeSchema),
  more: Type.Number({ description: 'Changes left out past `limit`' }),
});

export const PageDiffSchema = Type.Object({
  page: Type.Object({ id: Type.String(), title: Type.String(), path: Type.String() }),
  base: Type.Optional(Type.String({ description: 'The revision compared from, when the page is in it' })),
  head: Type.Optional(Type.String({ description: 'The revision compared to, when the page is in it' })),
  blocks: Type.Array(
    Type.Object({
      change: StringEnum(['added', 'removed', 'unchanged', 'changed'] as const),
      before: Type.Optional(Type.String({ description: "The block's sanitized HTML at the base" })),
      after: Type.Optional(Type.String({ description: "The block's sanitized HTML at the head" })),
    }),
  ),
  markdown: Type.Object({ before: Type.Optional(Type.String()), after: Type.Optional(Type.String()) }),
  hunks: Type.Optional(
    Type.Array(
      Type.Object({
        beforeStart: Type.Number({ description: 'The first line of the hunk at the base (1-based; the line before it when the hunk holds none)' }),
        beforeLines: Type.Number(),
        afterStart: Type.Number({ description: 'The first line of the hunk at the head (likewise)' }),
        afterLines: Type.Number(),
        lines: Type.Array(Type.Object({ change: StringEnum(['added', 'removed', 'unchanged'] as const), text: Type.String() })),
      }),
      { description: 'With `format=markdown`: the markdown compared line by line, each change with 3 lines of context' },
    ),
  ),
});
