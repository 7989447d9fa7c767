/**
 * A page of a branch's history as `git log` walks it (its default order: newest first by commit date, a commit
 * never before its children on the way that reached it), in ONE process whose output is read as it streams and
 * bounded: at most `maxCount` commits, and each field kept to MAX_FIELD_BYTES (a commit message of megabytes costs
 * what its first 16 KiB cost). A path limits the walk to the commits that change it, with git's default history
 * simplification (`git log -- PATH`: a merge that took the path from one side is followed down that side only).
 */
import { GitCommandError } from './run.js';
import type { GitStore } from './repositories.js';

/** Bytes kept of each field of a commit (a longer message is cut, at a character boundary). */
export const MAX_FIELD_BYTES = 16 * 1024;

export interface LoggedCommit {
  oid: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  /** ISO-8601 (UTC) author date. */
  authoredAt: string;
  committerName: string;
  committerEmail: string;
  /** git's subject (`%s`: the first paragraph, its lines joined by spaces) and body (`%b`: the rest). */
  subject: string;
  body: string;
}

export interface LogRequest {
  /** The commit the walk starts from (40 hex digits). */
  from: string;
  /** Commits of the walk passed over before the first one answered. */
  skip: number;
  /** Most commits answered. */
  maxCount: number;
  /** Only commits that change this path of the repository (a file, or a folder ending in `/`), taken literally. */
  path?: string;
}

const OID = /^[0-9a-f]{40}$/;

/** %H %P %an %ae %at %cn %ce %s %b, each ended by a NUL (`-z` ends the record's last one). */
const FORMAT = ['%H', '%P', '%an', '%ae', '%at', '%cn', '%ce', '%s', '%b'];

/** The commits of `from`'s history as git log lists them, `skip` of them passed over, at most `maxCount`. */
export async function logCommits(store: GitStore, spaceId: string, request: LogRequest): Promise<LoggedCommit[]> {
  if (!OID.test(request.from)) throw new Error(`logCommits: "${request.from}" is not a commit id`);
  if (request.maxCount <= 0) return [];
  const args = [
    'log',
    '-z',
    `--format=${FORMAT.join('%x00')}`,
    '--no-show-signature',
    '--no-color',
    '--encoding=UTF-8',
    `--max-count=${request.maxCount}`,
    `--skip=${request.skip}`,
    '--end-of-options',
    request.from,
    '--',
    ...(request.path === undefined ? [] : [request.path]),
  ];
  const child = store.launcher.spawn('git', args, {
    env: { ...process.env, GIT_DIR: store.repositoryPath(spaceId), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_LITERAL_PATHSPECS: '1', LC_ALL: 'C' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  exited.catch(() => {});
  child.stdin.on('error', () => {
    // git reads nothing: an early exit closing its stdin is no error.
  });
  child.stdin.end();
  const fields = new FieldReader(MAX_FIELD_BYTES);
  const commits: LoggedCommit[] = [];
  const take = () => {
    for (let record = fields.take(FORMAT.length); record; record = fields.take(FORMAT.length)) {
      if (commits.length < request.maxCount) commits.push(commitOf(record));
    }
  };
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      fields.push(chunk);
      take();
    }
    const code = await exited;
    if (code !== 0) throw new GitCommandError(args, code, stderr);
  } finally {
    if (child.exitCode === null) child.kill();
  }
  return commits;
}

function commitOf(record: string[]): LoggedCommit {
  const [oid, parents, authorName, authorEmail, authorTime, committerName, committerEmail, subject, body] = record;
  if (!OID.test(oid)) throw new Error(`git log printed "${oid.slice(0, 50)}" where a commit id was expected`);
  const seconds = Number(authorTime);
  return {
    oid,
    // A cut field may end in part of an oid: only whole ones are kept.
    parents: parents.split(' ').filter((parent) => OID.test(parent)),
    authorName,
    authorEmail,
    authoredAt: new Date(Number.isFinite(seconds) ? seconds * 1000 : 0).toISOString(),
    committerName,
    committerEmail,
    subject,
    body,
  };
}

/**
 * Splits a stream at NUL bytes into fields, keeping at most `maxBytes` of each (the rest is skipped as it arrives,
 * never gathered), and hands them on by records of a number of fields.
 */
class FieldReader {
  private parts: Buffer[] = [];
  private kept = 0;
  private readonly fields: string[] = [];

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nul = chunk.indexOf(0, start); nul >= 0; nul = chunk.indexOf(0, start)) {
      this.keep(chunk.subarray(start, nul));
      this.fields.push(textOf(Buffer.concat(this.parts, this.kept), this.kept === this.maxBytes));
      this.parts = [];
      this.kept = 0;
      start = nul + 1;
    }
    this.keep(chunk.subarray(start));
  }

  private keep(bytes: Buffer): void {
    const room = this.maxBytes - this.kept;
    if (room <= 0 || bytes.length === 0) return;
    const part = bytes.length > room ? bytes.subarray(0, room) : bytes;
    // A copy: the chunk is not kept alive by a few bytes of it.
    this.parts.push(Buffer.from(part));
    this.kept += part.length;
  }

  /** The next `count` fields, once they are all read. */
  take(count: number): string[] | undefined {
    return this.fields.length >= count ? this.fields.splice(0, count) : undefined;
  }
}

/** UTF-8 text of a field; one cut at the limit loses the character cut in two rather than showing a U+FFFD for it. */
function textOf(bytes: Buffer, cut: boolean): string {
  const text = bytes.toString('utf8');
  return cut ? text.replace(/\uFFFD+$/, '') : text;
}
