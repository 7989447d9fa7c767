/**
 * The state one run of `quire migrate` shares between its steps (./migrate.ts and the step modules beside it): the
 * context, the source, the acting user, the progress callback and the report, with the helpers every step uses to
 * count, skip, look up and remember what was copied. Apart so that each step takes it as one typed value.
 */
import { createHash } from 'node:crypto';
import type { Caller, Context } from '../context.js';
import { DomainError } from '../errors.js';
import { nowIso } from '../ids.js';
import { isRole, type Role } from '../permissions.js';
import { SourceFailure, type MigrationSource } from './source.js';
import type { SourceUser } from './source-resources.js';
import { findMigrated, saveMigrated } from '../../store/sql/migrated.js';
import { findUserByEmail, findUserById, type UserRow } from '../../store/sql/users.js';

export interface MigrationReport {
  copied: Record<string, number>;
  skipped: Array<{ kind: string; id: string; reason: string }>;
}

/** What the run is doing, for a progress line on a terminal. */
export type MigrationProgress = (event: { step: string; done: number; total: number; title?: string }) => void;

/** A stable hash of what was copied: equal fingerprints mean nothing changed at the source. */
export function fingerprintOf(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])])) : v;
  return createHash('sha256').update(JSON.stringify(canonical(value))).digest('hex');
}

export function reasonOf(error: unknown): string {
  if (error instanceof SourceFailure || error instanceof DomainError) return error.message;
  return (error as Error)?.message ?? String(error);
}

export const roleOrNull = (value: string | null | undefined): Role | null | undefined => (value === null ? null : value && isRole(value) ? value : undefined);

/** One run: what every step reads and writes besides its own resources. */
export class MigrationRun {
  readonly report: MigrationReport = { copied: {}, skipped: [] };
  readonly actor: Caller;

  constructor(
    readonly ctx: Context,
    readonly source: MigrationSource,
    actor: UserRow,
    readonly progress: MigrationProgress,
  ) {
    this.actor = { user: actor };
  }

  count(kind: string, n = 1): void {
    this.report.copied[kind] = (this.report.copied[kind] ?? 0) + n;
  }

  skip(kind: string, id: string, error: unknown): void {
    this.report.skipped.push({ kind, id, reason: typeof error === 'string' ? error : reasonOf(error) });
  }

  mapped(kind: string, sourceId: string) {
    return findMigrated(this.ctx.db, this.source.endpoint, kind, sourceId);
  }

  remember(kind: string, sourceId: string, targetId: string, fingerprint: string | null): Promise<void> {
    return saveMigrated(this.ctx.db, { source: this.source.endpoint, kind, source_id: sourceId, target_id: targetId, fingerprint, migrated_at: nowIso() });
  }

  /** Runs one item; a failure is reported as skipped and the run goes on. */
  async copyOrSkip<T>(kind: string, id: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      this.skip(kind, id, error);
      return undefined;
    }
  }

  /** The user here for a source user: by e-mail; undefined when the source gives no e-mail or they are unknown. */
  async userOf(user: SourceUser | undefined): Promise<UserRow | undefined> {
    if (!user) return undefined;
    const row = await this.mapped('user', user.id);
    if (row) return findUserById(this.ctx.db, row.target_id);
    return user.email ? findUserByEmail(this.ctx.db, user.email) : undefined;
  }

  async authorId(user: SourceUser | undefined): Promise<string> {
    return (await this.userOf(user))?.id ?? this.actor.user.id;
  }
}
