/**
 * A Kysely plugin that reports every INSERT, UPDATE and DELETE made through the database object, so caches of
 * this process can forget what may have changed. One place sees every write, including tests' factories.
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

export class WriteObserverPlugin implements KyselyPlugin {
  private readonly writes = new WeakSet<object>();

  constructor(private readonly onWrite: () => void) {}

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (WRITES.has(args.node.kind)) {
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
