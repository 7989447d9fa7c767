/**
 * ESLint: JavaScript's and typescript-eslint's recommended rules, without type information (quick on two cores), over
 * all the repository's code. `npm run lint`; `npm test` runs it too (test/house/boundaries.test.ts). Where a rule of
 * those sets is changed or turned off, the reason is beside it.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // A name starting with `_` is unused on purpose: a parameter a callback's signature must have, a property left
      // out of a rest (`const { token: _token, ...settings } = config`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A `let` declared before a closure that reads it and assigned once after it (a timer the closure clears, the
      // replay lane the server calls) stays a `let`: a `const` would have to come before what it is made from.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Off: the rule is there to catch a control character typed into a pattern by accident, and every one in this
      // code is meant: NUL and the C0 controls refused in paths and names, U+001E and U+001F separating packed
      // search sections, ESC starting a terminal colour that is stripped.
      'no-control-regex': 'off',
    },
  },
  {
    // A migration types its database as `Kysely<any>`, as Kysely advises: it is frozen in time and must not follow
    // later changes of the Database type.
    files: ['src/store/sql/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/**'],
    rules: {
      // Tests read JSON answers and reach into internals as `any`; typing each answer would restate the OpenAPI
      // schemas the tests check against.
      '@typescript-eslint/no-explicit-any': 'off',
      // A helper that cannot reach a service the suite needs (PostgreSQL, Redis) throws a message for whoever runs
      // the tests, the cause's message in it; a chain of causes adds nothing to a test report.
      'preserve-caught-error': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
