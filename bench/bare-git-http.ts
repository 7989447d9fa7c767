/**
 * The push baseline's server in a process of its own (bench/lib.ts checkoutWithBareRemote): git's `git http-backend`
 * behind node:http, no checks, serving the bare repositories under the folder given. Prints its URL, then serves
 * until stopped. A process of its own, like the bare Fastify of bench/content-read.ts: in the benchmark's process it
 * would pay for that process's memory at every fork (see src/store/git/launcher.ts), which a plain server does not.
 *
 * Arguments: the folder; then, optionally, `user:password` (a git host's HTTP Basic auth, pushes taken from that
 * user: bench/git-sync.ts's host) and a file each request's method and path is appended to, a line each.
 */
import fs from 'node:fs';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';

const [root, auth, requestsFile] = process.argv.slice(2);
const at = auth?.indexOf(':') ?? -1;
const server = await startGitHttpServer(root, at > 0 ? { auth: { username: auth!.slice(0, at), password: auth!.slice(at + 1) } } : {});
if (requestsFile) {
  const push = server.requests.push.bind(server.requests);
  server.requests.push = (...lines: string[]) => {
    fs.appendFileSync(requestsFile, lines.map((line) => `${line}\n`).join(''));
    return push(...lines);
  };
}
console.log(server.url);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
