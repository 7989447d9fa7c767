/**
 * The rooms of the code and what each may import, checked by dependency-cruiser (`npm run depcruise`, and in
 * `npm test` by test/house/boundaries.test.ts). CommonJS (.cjs) because the package is `"type": "module"` and
 * dependency-cruiser loads its configuration with require().
 *
 * The rules hold without exceptions: where code breaks one, move the code, do not relax the rule.
 */

/** Packages that speak SQL: only src/store talks to the databases. */
const SQL = '(^|/)node_modules/(kysely|better-sqlite3|pg|pg-[^/]+)/';
/** git, as a library or as child processes (every child process src starts is git's, or OpenSSH's for git): only src/store runs it. */
const GIT = ['(^|/)node_modules/simple-git/', '^child_process$'];
/** The HTTP framework: only src/http builds routes and answers (src/main.ts and src/cli start it through src/http). */
const FASTIFY = '(^|/)node_modules/(fastify|fastify-[^/]+|@fastify/[^/]+)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules import each other in a loop, type-only imports included (tsPreCompilationDeps): a cycle means two ' +
        'ideas that cannot be read, tested or moved apart. Move what both need into a third module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'sql-only-in-store',
      severity: 'error',
      comment:
        'SQL is the store\'s (src/store/sql). Elsewhere, call a store function. Type-only imports are allowed: the ' +
        'domain receives the database handle (Kysely<Database>) and passes it to the store, which runs no SQL.',
      from: { pathNot: '^src/store/' },
      to: { path: SQL, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'git-only-in-store',
      severity: 'error',
      comment:
        'git (simple-git, child processes) is the store\'s (src/store/git). Elsewhere, call a store function. ' +
        'Type-only imports are allowed (a handle passed through to the store).',
      from: { pathNot: '^src/store/' },
      to: { path: GIT, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'fastify-only-in-http',
      severity: 'error',
      comment: 'Fastify is the HTTP room\'s (src/http): the domain knows nothing of requests and replies.',
      from: { pathNot: '^src/http/' },
      to: { path: FASTIFY },
    },
    {
      name: 'content-not-domain',
      severity: 'error',
      comment: 'src/content is pure content rules over plain values; the domain builds on it, never the other way.',
      from: { path: '^src/content/' },
      to: { path: '^src/domain/' },
    },
    {
      name: 'cpu-not-domain-at-runtime',
      severity: 'error',
      comment:
        'Code run on CPU threads (src/cpu) loads no domain module: each thread would load the stores and the git ' +
        'layer behind it. Types may be shared (type-only imports vanish at run time).',
      from: { path: '^src/cpu/' },
      to: { path: '^src/domain/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'grammars-through-their-bundle',
      severity: 'error',
      comment:
        'lowlight and highlight.js are loaded through src/content/highlight-grammars.ts, which the build bundles into ' +
        'one file (their 190 grammar modules are slow to load one by one). Type-only imports are allowed.',
      from: { pathNot: '^src/content/highlight-grammars\\.ts$' },
      to: { path: '(^|/)node_modules/(lowlight|highlight\\.js)/', dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports too: a cycle of types is a cycle of ideas.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    skipAnalysisNotInRules: true,
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
