/**
 * The ref advertisement of git's smart HTTP protocol (`GET info/refs?service=...`), answered without starting git
 * where the answer is known: the clients of a busy space ask for it before every push and every fetch, and on
 * these machines each process started costs more than the answer itself.
 *
 * - receive-pack (push, protocol v0): the refs, read from the ref files, with the capabilities git itself
 *   advertises (learned once, from a real `git receive-pack --advertise-refs`, so a git upgrade changes them).
 * - upload-pack, protocol v2: only capabilities, no refs (they come with `ls-refs`); learned once likewise.
 * - upload-pack, protocol v0/v1 (old clients): left to git.
 *
 * The formats are git's own (Documentation/gitprotocol-pack.txt, gitprotocol-v2.txt): pkt-lines, the first ref
 * line carrying the capabilities after a NUL, `capabilities^{}` with the zero oid when there is no ref.
 */
import type { GitService } from './repositories.js';

const ZERO_OID = '0000000000000000000000000000000000000000';

export function pktLine(text: string | Buffer): Buffer {
  const body = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'ascii'), body]);
}

export const FLUSH = Buffer.from('0000', 'ascii');

/** What smart HTTP puts before git's advertisement: `# service=...`, except in protocol v2 (upload-pack only). */
export function advertisementPrefix(service: GitService, version: number): Buffer {
  return service === 'upload-pack' && version >= 2 ? Buffer.alloc(0) : Buffer.concat([pktLine(`# service=git-${service}\n`), FLUSH]);
}

/** The capabilities of a receive-pack advertisement (what follows the NUL of its first line), or undefined. */
export function receivePackCapabilities(advertisement: Buffer): string | undefined {
  if (advertisement.length < 4) return undefined;
  const length = Number.parseInt(advertisement.subarray(0, 4).toString('ascii'), 16);
  if (!Number.isInteger(length) || length <= 4 || length > advertisement.length) return undefined;
  const line = advertisement.subarray(4, length).toString('utf8');
  const nul = line.indexOf('\0');
  return nul < 0 ? undefined : line.slice(nul + 1).replace(/\n$/, '');
}

/** A receive-pack advertisement of `refs` (sorted as git sorts them) with `capabilities`. */
export function receivePackAdvertisement(refs: ReadonlyArray<{ ref: string; oid: string }>, capabilities: string): Buffer {
  const lines = refs.length === 0 ? [{ ref: 'capabilities^{}', oid: ZERO_OID }] : refs;
  return Buffer.concat([
    ...lines.map(({ ref, oid }, i) => pktLine(i === 0 ? `${oid} ${ref}\0${capabilities}\n` : `${oid} ${ref}\n`)),
    FLUSH,
  ]);
}

/**
 * The branches of an upload-pack advertisement in protocol v0 (what a smart-HTTP server answers to `GET
 * info/refs?service=git-upload-pack` without a `Git-Protocol` header): `refs/heads/*` and their commits, or undefined
 * when the bytes are not such an advertisement (a dumb server's ref list, a login page). Linear in the bytes; every
 * length is checked against them.
 */
export function advertisedBranches(advertisement: Buffer): Map<string, string> | undefined {
  const branches = new Map<string, string>();
  let at = 0;
  let flushes = 0;
  let first = true;
  while (at + 4 <= advertisement.length) {
    const length = Number.parseInt(advertisement.subarray(at, at + 4).toString('ascii'), 16);
    if (!Number.isInteger(length) || (length !== 0 && length < 4) || at + length > advertisement.length) return undefined;
    if (length === 0) {
      at += 4;
      flushes += 1;
      // The service line and its flush, then the refs and theirs: the second flush ends the advertisement.
      if (flushes === 2) return branches;
      continue;
    }
    const line = advertisement.subarray(at + 4, at + length).toString('utf8').replace(/\n$/, '');
    at += length;
    if (first) {
      first = false;
      if (line !== '# service=git-upload-pack') return undefined;
      continue;
    }
    const nul = line.indexOf('\0');
    const [oid, ref] = (nul < 0 ? line : line.slice(0, nul)).split(' ');
    if (!/^[0-9a-f]{40}$/.test(oid ?? '') || ref === undefined) return undefined;
    if (ref.startsWith('refs/heads/')) branches.set(ref, oid);
  }
  return undefined;
}
