import { execFileSync } from 'node:child_process';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { CatFileProcess } from '../src/store/git/catfile.js';
import { CatFileProcess as Old } from './catfile-old.js';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cf-'));
execFileSync('git', ['init', '-q', '--bare', dir]);
const input = Array.from({ length: 20000 }, (_, i) => `blob ${i} ${'x'.repeat(1500)}`);
const oids: string[] = [];
for (let i = 0; i < input.length; i += 2000) {
  const files = input.slice(i, i + 2000).map((t, j) => { const f = path.join(dir, `f${i + j}`); fs.writeFileSync(f, t); return f; });
  oids.push(...execFileSync('git', ['--git-dir', dir, 'hash-object', '-w', ...files]).toString().trim().split('\n'));
}
execFileSync('git', ['--git-dir', dir, 'pack-objects', '-q', path.join(dir, 'objects/pack/pack')], { input: oids.join('\n') + '\n' }); execFileSync('git', ['--git-dir', dir, 'prune-packed']);
console.log(execFileSync('git', ['--git-dir', dir, 'count-objects', '-v']).toString().split('\n').slice(0,4).join(' '));
for (let round = 0; round < 3; round++) for (const [name, K] of [['old', Old], ['new', CatFileProcess]] as const) {
  const cf = new K(dir);
  for (const n of [10000, 20000]) { const names = oids.slice(0, n); let t = performance.now(); await cf.infoMany(names); const info = performance.now() - t; t = performance.now(); await cf.readMany(names); console.log(name, n, 'info', info.toFixed(0), 'read', (performance.now() - t).toFixed(0)); }
  cf.close();
}
