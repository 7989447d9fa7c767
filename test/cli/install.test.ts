/**
 * `npm install` on the Node this runs on (20, what the machines and CI have) prints no engine warning: every package
 * the lock file installs here declares a Node range this version satisfies (the lock file, not node_modules: it is
 * what an install follows). A dependency that moved to a newer Node is pinned, or overridden in package.json, to a
 * version that still declares this one.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';

// npm's own range matching (npm-install-checks uses semver); the package has no types of its own here.
const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean };

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
  os?: string[];
  cpu?: string[];
}

/** Whether npm installs the package on this machine (optional packages for other systems are skipped). */
function installedHere(locked: LockedPackage): boolean {
  // As npm reads `os` and `cpu`: the values allowed, or only the values excluded ("!win32").
  const fits = (listed: string[] | undefined, value: string) =>
    !listed || listed.includes(value) || (listed.every((entry) => entry.startsWith('!')) && !listed.includes(`!${value}`));
  return fits(locked.os, process.platform) && fits(locked.cpu, process.arch);
}

describe('npm install', () => {
  it('installs only packages whose declared Node range this Node satisfies (no EBADENGINE warning)', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };
    const unsupported = Object.entries(lock.packages)
      .filter(([, locked]) => installedHere(locked))
      .flatMap(([where, locked]) => {
        const range = !locked.engines || Array.isArray(locked.engines) ? undefined : locked.engines.node;
        if (!range || semver.satisfies(process.version, range, { includePrerelease: true })) return [];
        return [`${where || 'quire'}@${locked.version} requires node ${range}`];
      });
    expect(unsupported, `on node ${process.version}`).toEqual([]);
  });

  it('keeps what the overrides touch working: Fastify inject sends cookies (light-my-request on cookie 1.x)', async () => {
    const app = Fastify();
    app.get('/space/page', async (request) => ({ cookie: request.headers.cookie ?? null }));
    const response = await app.inject({ method: 'GET', url: '/space/page', cookies: { visitor: 'a b=c', other: '1' } });
    expect(response.json()).toEqual({ cookie: 'visitor=a%20b%3Dc; other=1' });
    await app.close();
  });
});
