import { execFileSync } from 'node:child_process';
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { GitReader } from '../src/store/git/reader.js';
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lb-'));
const dir = path.join(root, 'space.git');
execFileSync('git', ['init', '-q', '--bare', dir]);
let fi = 'commit refs/heads/main\ncommitter A <a@b> 0 +0000\ndata 2\nx\n';
for (let i = 0; i < 10000; i++) { const t = `# Page ${i}\n\n${'words '.repeat(250)}\n`; fi += `M 100644 inline section-${Math.floor(i / 50)}/page-${i}.md\ndata ${Buffer.byteLength(t)}\n${t}\n`; }
execFileSync('git', ['--git-dir', dir, 'fast-import', '--quiet'], { input: fi, maxBuffer: 1e9 });
const tree = execFileSync('git', ['--git-dir', dir, 'rev-parse', 'main^{tree}']).toString().trim();
const m = new Map(); const reader = new GitReader({ repositoryPath: () => dir } as any, process.env.CACHE ? { listings: { get: (o: string) => m.get(o), set: (o: string, t: any) => void m.set(o, t) } } : {});
for (let r = 0; r < 5; r++) { const t = performance.now(); const b = await reader.listBlobs('s', tree); console.log(b.length, (performance.now() - t).toFixed(0), 'ms'); }
reader.close();
