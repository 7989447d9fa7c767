/** The checkout or install Quire runs from, whether from src/ (tsx) or from the build in dist/src/. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest directory above this module holding Quire's package.json. */
export function projectRoot(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file) && (JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string }).name === 'quire') return dir;
    if (path.dirname(dir) === dir) throw new Error('Quire\'s package.json is not above its code');
  }
}
