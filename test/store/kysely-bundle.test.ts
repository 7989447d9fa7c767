/**
 * Kysely is loaded from one module, src/store/sql/kysely.ts, which `npm run build` bundles into one file (a quicker
 * CLI start). A value imported from 'kysely' anywhere else would load Kysely's own 260-file build beside the bundle in
 * `dist/`: slower, and two copies of its classes (`instanceof PostgresAdapter` false for the other copy's adapter).
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const ENTRY = 'src/store/sql/kysely.ts';

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(relative);
    return entry.name.endsWith('.ts') ? [relative] : [];
  });
}

/** The places a file takes a value (not only types) from 'kysely': static imports and exports, dynamic imports. */
function kyselyValueImports(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const fromKysely = (node: ts.Node | undefined) => node !== undefined && ts.isStringLiteral(node) && node.text === 'kysely';
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && fromKysely(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (!clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) found.push(node.getText());
    } else if (ts.isExportDeclaration(node) && fromKysely(node.moduleSpecifier) && !node.isTypeOnly) {
      found.push(node.getText());
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && fromKysely(node.arguments[0])) {
      found.push(node.getText());
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('Kysely from one bundled module', () => {
  it('tells value imports of kysely from type imports', () => {
    const found = kyselyValueImports(
      'x.ts',
      [
        "import type { Kysely } from 'kysely';",
        "import { type Selectable, type Kysely as K } from 'kysely';",
        "import { sql, type Kysely } from 'kysely';",
        "import * as k from 'kysely';",
        "export { sql } from 'kysely';",
        "export type { Kysely } from 'kysely';",
        "const late = await import('kysely');",
        "import { sql as other } from './kysely.js';",
      ].join('\n'),
    );
    expect(found).toEqual([
      "import { sql, type Kysely } from 'kysely';",
      "import * as k from 'kysely';",
      "export { sql } from 'kysely';",
      "import('kysely')",
    ]);
  });

  it('takes no value from kysely outside src/store/sql/kysely.ts', () => {
    const files = ['src', 'config', 'workers'].flatMap(sourceFiles).filter((file) => file !== ENTRY);
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) => kyselyValueImports(file, fs.readFileSync(path.join(root, file), 'utf8')).map((found) => `${file}: ${found}`));
    expect(offenders).toEqual([]);
  });

  it('is built into one file that imports nothing and exports what the module names', async () => {
    const built = path.join(root, 'dist', ENTRY.replace(/\.ts$/, '.js'));
    const text = fs.readFileSync(built, 'utf8');
    // Import statements at the start of a line (Kysely's doc comments quote `import { sql } from 'kysely'` indented).
    expect(text.match(/^\s*(import|export)\b[^;]*\bfrom\s*["'][^"']+["']/gm) ?? []).toEqual([]);
    expect(text.length).toBeGreaterThan(100_000);
    const bundled = await import(built);
    const source = await import(path.join(root, ENTRY));
    expect(Object.keys(bundled).sort()).toEqual(Object.keys(source).sort());
    expect(bundled.Kysely).not.toBe(source.Kysely);
    expect(typeof bundled.sql.raw).toBe('function');
  });
});
