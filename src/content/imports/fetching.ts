/**
 * Fetching for imports: every request goes through the guarded fetcher (ctx.fetcher), failures refuse the import
 * naming `url`, and the images of imported pages are downloaded into files of the import.
 */
import PQueue from 'p-queue';
import mime from 'mime-types';
import { FetchFailure, type FetchedResource, type GuardedFetcher } from '../../store/net/guarded-fetch.js';
import { ImportRefused } from './import-refused.js';
import { safeFileName, type ImportAsset } from '../import-plan.js';
import { decodePath } from '../paths.js';

/** What importers fetch with: the server's guarded fetcher, or a thread's way to it (src/content/imports/conversion.ts). */
export type ImportFetcher = Pick<GuardedFetcher, 'fetch'>;

/** Sent with every import request, so site owners can tell Quire's requests apart (and address it in robots.txt). */
export const USER_AGENT = 'QuireImporter/1.0';
const HEADERS = { 'user-agent': USER_AGENT, accept: '*/*' };

/** What a fetch outcome means for an import, in words. */
export function fetchProblem(url: string, outcome: FetchedResource | FetchFailure): string {
  if (outcome instanceof FetchFailure) return outcome.message.replace(/^url: /, '');
  return `${url} answered ${outcome.status}${outcome.status === 404 ? ' (not found)' : ''}`;
}

/**
 * GETs the resource an import is about: a 2xx answer, else a refusal naming `url` with the reason (refused private
 * address, DNS failure, connection refused, time out, too large, non-2xx status).
 */
export async function fetchSource(fetcher: ImportFetcher, url: string): Promise<FetchedResource> {
  let fetched: FetchedResource;
  try {
    fetched = await fetcher.fetch(url, HEADERS);
  } catch (error) {
    if (error instanceof FetchFailure) throw new ImportRefused(`url: ${fetchProblem(url, error)}`);
    throw error;
  }
  if (fetched.status < 200 || fetched.status > 299) throw new ImportRefused(`url: ${fetchProblem(url, fetched)}; nothing was imported`);
  return fetched;
}

/** A fetch that never throws: the resource, or why there is none (for the many resources of a crawl). */
export async function tryFetch(fetcher: ImportFetcher, url: string): Promise<FetchedResource | FetchFailure> {
  try {
    return await fetcher.fetch(url, HEADERS);
  } catch (error) {
    if (error instanceof FetchFailure) return error;
    return new FetchFailure('FETCH_ERROR', `url: could not fetch ${url}: ${(error as Error).message}`);
  }
}

/** Text of a fetched resource in the charset its Content-Type names (UTF-8 when it names none, or one unknown). */
export function decodeText(resource: FetchedResource): string {
  const charset = /charset\s*=\s*"?([\w.:-]+)/i.exec(resource.contentType)?.[1];
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(resource.body);
  } catch {
    return new TextDecoder('utf-8').decode(resource.body);
  }
}

export function mediaType(resource: FetchedResource): string {
  return resource.contentType.split(';')[0].trim().toLowerCase();
}

/** Bytes and time an import may still spend; shared by everything one import fetches. */
export class Budget {
  private used = 0;
  readonly deadline: number;

  constructor(
    readonly maxBytes: number,
    timeMs: number,
  ) {
    this.deadline = Date.now() + timeMs;
  }

  /** True while time and bytes are left. */
  get open(): boolean {
    return this.used < this.maxBytes && Date.now() < this.deadline;
  }

  /** Counts `bytes`; false when they go over the limit (the resource is then left out). */
  spend(bytes: number): boolean {
    if (this.used + bytes > this.maxBytes) {
      this.used = this.maxBytes;
      return false;
    }
    this.used += bytes;
    return true;
  }
}

const IMAGE_EXTENSIONS = /\.(png|jpe?g|gif|svg|webp|bmp|ico|avif|tiff?)$/i;

/** A file name for an image: the last segment of its URL, with an extension from its content type when it lacks one. */
function imageName(url: URL, contentType: string): string {
  let name = decodePath(url.pathname.slice(url.pathname.lastIndexOf('/') + 1)) || 'image';
  if (!IMAGE_EXTENSIONS.test(name)) {
    const extension = mime.extension(contentType);
    if (extension) name = `${name}.${extension === 'jpeg' ? 'jpg' : extension}`;
  }
  return safeFileName(name);
}

const DATA_URL = /^data:(image\/[a-z0-9.+-]+);base64,([a-z0-9+/=\s]+)$/i;

/**
 * Downloads images (any origin, always through the guard) at most `concurrency` at a time, within the budget.
 * `data:` URLs of images are decoded instead. Returns the files by URL; an image that could not be had (error,
 * not an image, over budget) is left out, and its page keeps pointing at its URL.
 */
export async function downloadImages(
  fetcher: ImportFetcher,
  urls: Iterable<string>,
  options: { budget: Budget; concurrency: number },
): Promise<Map<string, ImportAsset>> {
  // Filled in any order, returned in the order of `urls`: names that clash get their suffixes deterministically.
  const found = new Map<string, ImportAsset | undefined>();
  const queue = new PQueue({ concurrency: options.concurrency });
  for (const url of new Set(urls)) {
    found.set(url, undefined);
    const data = DATA_URL.exec(url);
    if (data) {
      const bytes = Buffer.from(data[2], 'base64');
      if (options.budget.spend(bytes.length)) found.set(url, { key: url, name: `image.${mime.extension(data[1]) || 'bin'}`, bytes });
      continue;
    }
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      continue;
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') continue;
    // Never rejects: one image that cannot be had leaves the others alone.
    void queue.add(async () => {
      try {
        if (!options.budget.open) return;
        const outcome = await tryFetch(fetcher, url);
        if (outcome instanceof FetchFailure || outcome.status < 200 || outcome.status > 299) return;
        const type = mediaType(outcome);
        // An image says so; a server that states no useful type is believed on the file's extension.
        const generic = type === '' || type === 'application/octet-stream' || type === 'binary/octet-stream';
        if (!type.startsWith('image/') && !(generic && IMAGE_EXTENSIONS.test(parsed.pathname))) return;
        if (!options.budget.spend(outcome.body.length)) return;
        found.set(url, { key: url, name: imageName(parsed, type), bytes: outcome.body });
      } catch {
        // Left out: the page keeps pointing at the image's URL.
      }
    });
  }
  await queue.onIdle();
  const assets = new Map<string, ImportAsset>();
  for (const [url, asset] of found) if (asset) assets.set(url, asset);
  return assets;
}
