/**
 * `npx tsx scripts/git-http-host.ts [--direct] DIR [USER:PASSWORD] [REQUESTS_FILE]`: a plain git host on 127.0.0.1, git's own
 * `git http-backend` behind node:http (test/helpers/git-http-server.ts, the tests' host), serving every bare
 * repository under DIR over smart HTTP, pushes included, with no checks. Prints its URL, then serves until stopped.
 *
 * Used to try Git Sync on one machine (the README's "Git Sync"), and by the benchmarks as their baseline git server and
 * Git Sync host (bench/lib.ts, bench/git-sync.ts), in a process of its own: in the benchmark's process it would pay
 * for that process's memory at every fork (see src/store/git/launcher.ts), which a plain server does not.
 * `USER:PASSWORD`: the only HTTP Basic credentials it takes, as a host takes a token (pushes are that user's).
 * `REQUESTS_FILE`: each request's method and path is appended to it, a line each. `--direct`: the smart protocol's
 * calls answered by one git upload-pack/receive-pack process each, without http-backend (as Gitea does).
 */
import fs from 'node:fs';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';

const direct = process.argv[2] === '--direct';
const [root, auth, requestsFile] = process.argv.slice(direct ? 3 : 2);
const at = auth?.indexOf(':') ?? -1;
const server = await startGitHttpServer(root, { ...(at > 0 ? { auth: { username: auth!.slice(0, at), password: auth!.slice(at + 1) } } : {}), direct });
if (requestsFile) {
  const push = server.requests.push.bind(server.requests);
  server.requests.push = (...lines: string[]) => {
    fs.appendFileSync(requestsFile, lines.map((line) => `${line}\n`).join(''));
    return push(...lines);
  };
}
console.log(server.url);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
