/**
 * Kysely, as the one module Quire's code imports its values from (types may come from 'kysely' itself: they are
 * erased). `npm run build` bundles this file with Kysely into one (esbuild, package.json `build`): Kysely's own ESM
 * build is some 260 files, and resolving and loading them was a large part of the start of every `quire` command that
 * opens the store (bench/README.md). Every value import must come from here: a second copy of Kysely beside the bundle
 * would break `instanceof PostgresAdapter` (test/store/kysely-bundle.test.ts checks both).
 */
export { Kysely, Migrator, PostgresAdapter, PostgresDialect, SqliteDialect, sql } from 'kysely';
