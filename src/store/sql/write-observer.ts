/**
 * A Kysely plugin that reports every INSERT, UPDATE and DELETE made through the database object, so caches of
 * this process can forget what may have changed. One place sees every write, including tests' factories.
 *
 * Writes that touch only derived tables (`DERIVED_TABLES`: indexes and facts rebuilt from git, read by their own
 * queries and never through a cache) are not reported: a push's indexing jobs write thousands of their rows, and
 * each report would make every caller's cached token, access and space read start over.
 */
import type {
  AliasNode,
  DeleteQueryNode,
  InsertQueryNode,
  KyselyPlugin,
  MergeQueryNode,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  TableNode,
  UnknownRow,
  UpdateQueryNode,
} from 'kysely';
import type { Database } from './schema.js';

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

/**
 * Tables that hold only what is derived from a space's git content (link and search indexes, history facts, image dimensions). No
 * read kept by a cache of this process (src/domain/cache.ts) reads them: a change here must not clear those.
 */
export const DERIVED_TABLES: ReadonlySet<keyof Database> = new Set<keyof Database>([
  'revision_facts',
  'link_index',
  'links',
  'link_pages',
  'link_answers',
  'link_slots_unindexed',
  'search_spaces',
  'search_pages',
  'search_terms',
  'search_results',
  'image_dimensions',
]);

/** The name of the table a write's target names, or undefined when it is not a plain (or aliased) table. */
function tableName(node: OperationNode | undefined): string | undefined {
  if (node?.kind === 'AliasNode') return tableName((node as AliasNode).node);
  return node?.kind === 'TableNode' ? (node as TableNode).table.identifier.name : undefined;
}

/**
 * The tables a write changes, or undefined when they cannot be told (a target that is not a table, a WITH clause that
 * may write elsewhere): then it counts as a write to anything. (Raw SQL statements are not query nodes of a kind in
 * WRITES and are not reported: the store's only raw writes are to search tables, derived ones.)
 */
export function writtenTables(node: RootOperationNode): string[] | undefined {
  let targets: Array<OperationNode | undefined>;
  if (node.kind === 'InsertQueryNode') targets = [(node as InsertQueryNode).into];
  else if (node.kind === 'MergeQueryNode') targets = [(node as MergeQueryNode).into];
  else if (node.kind === 'UpdateQueryNode') targets = [(node as UpdateQueryNode).table];
  else if (node.kind === 'DeleteQueryNode') targets = [...(node as DeleteQueryNode).from.froms];
  else return undefined;
  if ((node as { with?: unknown }).with) return undefined;
  const names = targets.map(tableName);
  return names.length > 0 && names.every((name) => name !== undefined) ? (names as string[]) : undefined;
}

/** Whether a write may change what a cache holds: anything but a write to derived tables alone. */
function reported(node: RootOperationNode): boolean {
  if (!WRITES.has(node.kind)) return false;
  const tables = writtenTables(node);
  return !tables?.every((table) => DERIVED_TABLES.has(table as keyof Database));
}

export class WriteObserverPlugin implements KyselyPlugin {
  private readonly writes = new WeakSet<object>();

  constructor(private readonly onWrite: () => void) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (reported(args.node)) {
      this.writes.add(args.queryId);
      this.onWrite();
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    // Again once the statement is done: a read cached while it ran must not outlive it.
    if (this.writes.has(args.queryId)) this.onWrite();
    return args.result;
  }
}
