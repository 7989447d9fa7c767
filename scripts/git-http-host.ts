/**
 * `npx tsx scripts/git-http-host.ts ROOT [PORT]`: a git host on 127.0.0.1 for trying Git Sync on one machine (the
 * README's "Git Sync"): every bare repository under ROOT served over smart HTTP by git's own `git http-backend`, pushes
 * included, as the tests' host is (test/helpers/git-http-server.ts). With GIT_HOST_USER and GIT_HOST_PASSWORD set, it
 * takes only those HTTP Basic credentials, as a real host takes a token. Prints its URL; stops on SIGINT or SIGTERM.
 */
import path from 'node:path';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';

const [root, port] = process.argv.slice(2);
if (!root) {
  process.stderr.write('usage: npx tsx scripts/git-http-host.ts ROOT [PORT]\n');
  process.exit(2);
}
const user = process.env.GIT_HOST_USER;
const password = process.env.GIT_HOST_PASSWORD;
const host = await startGitHttpServer(path.resolve(root), {
  port: port === undefined ? 0 : Number(port),
  ...(user && password ? { auth: { username: user, password } } : {}),
});
process.stdout.write(`git host ${host.url}: the bare repositories under ${path.resolve(root)}\n`);
const stop = () => void host.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
