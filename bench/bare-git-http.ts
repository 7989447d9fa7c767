/**
 * The push baseline's server in a process of its own (bench/lib.ts checkoutWithBareRemote): git's `git http-backend`
 * behind node:http, no checks, serving the bare repositories under the folder given. Prints its URL, then serves
 * until stopped. A process of its own, like the bare Fastify of bench/content-read.ts: in the benchmark's process it
 * would pay for that process's memory at every fork (see src/store/git/launcher.ts), which a plain server does not.
 */
import { startGitHttpServer } from '../test/helpers/git-http-server.js';

const server = await startGitHttpServer(process.argv[2]);
console.log(server.url);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
