/**
 * Merging by structure where git's line merge sees a conflict but the format knows better (SUMMARY.md, the id manifest,
 * front matter): front matter keys are merged one by one, and a page's body is merged as text. Pure: the text merge is
 * given by the caller (git's own `merge-file`).
 */
import { isDeepStrictEqual } from 'node:util';
import { parseFrontMatter, stringifyFrontMatter } from './frontmatter.js';
import { MANIFEST_PATH, parseManifest, serializeManifest } from './manifest.js';

export { MANIFEST_PATH };

export type TextMerge = (base: string, ours: string, theirs: string) => Promise<{ text: string; clean: boolean }>;

/**
 * Three-way merge of front matter mappings: a key changed on one side only takes that side; changed the same way
 * on both, either; changed differently on both, a conflict. Key order: ours, then keys only theirs added.
 */
export function mergeFrontMatter(
  base: Record<string, unknown>,
  ours: Record<string, unknown>,
  theirs: Record<string, unknown>,
): { data: Record<string, unknown>; conflicts: string[] } {
  const keys = [...Object.keys(ours), ...Object.keys(theirs).filter((k) => !(k in ours))];
  const data: Record<string, unknown> = {};
  const conflicts: string[] = [];
  for (const key of keys) {
    const [b, o, t] = [base[key], ours[key], theirs[key]];
    let value: unknown;
    if (isDeepStrictEqual(o, t)) value = o;
    else if (isDeepStrictEqual(o, b)) value = t;
    else if (isDeepStrictEqual(t, b)) value = o;
    else {
      conflicts.push(key);
      continue;
    }
    if (value !== undefined) data[key] = value;
  }
  // Keys both sides removed, or one removed and the other left alone, are gone; handled above (undefined).
  return { data, conflicts };
}

/**
 * Merges three versions of a markdown page: front matter by key, body by `mergeText`. Clean only when both are;
 * a file whose front matter does not parse is left to the caller as a conflict.
 */
export async function mergePageFile(base: string, ours: string, theirs: string, path: string, mergeText: TextMerge): Promise<{ text: string; clean: boolean }> {
  const parsed = [base, ours, theirs].map((text) => parseFrontMatter(text, path));
  if (parsed.some((p) => !p.ok)) return { text: ours, clean: false };
  const [b, o, t] = parsed.map((p) => (p as Extract<typeof p, { ok: true }>).value);
  const body = await mergeText(b.body, o.body, t.body);
  if (!body.clean) return { text: ours, clean: false };
  if (!o.present && !t.present) return { text: body.text, clean: true };
  const frontMatter = mergeFrontMatter(b.data, o.data, t.data);
  if (frontMatter.conflicts.length > 0) return { text: ours, clean: false };
  // Unchanged front matter is kept byte for byte: only a real merge of keys is written anew.
  if (isDeepStrictEqual(frontMatter.data, o.data) && o.present) return { text: ours.slice(0, ours.length - o.body.length) + body.text, clean: true };
  if (isDeepStrictEqual(frontMatter.data, t.data) && t.present) return { text: theirs.slice(0, theirs.length - t.body.length) + body.text, clean: true };
  return { text: stringifyFrontMatter(frontMatter.data, body.text), clean: true };
}

/**
 * Three-way merge of `.quire/manifest.yaml` (ids by path): entry by entry, like front matter keys. Clean unless
 * both sides gave one path different ids, or a side's manifest does not parse.
 */
export function mergeManifestFile(base: string, ours: string, theirs: string): { text: string; clean: boolean } {
  const parsed = [base, ours, theirs].map((text) => parseManifest(text));
  if (parsed.some((p) => p.problems.length > 0)) return { text: ours, clean: false };
  const [b, o, t] = parsed.map((p) => p.manifest);
  const pages = mergeFrontMatter(b.pages, o.pages, t.pages);
  const files = mergeFrontMatter(b.files, o.files, t.files);
  if (pages.conflicts.length > 0 || files.conflicts.length > 0) return { text: ours, clean: false };
  return { text: serializeManifest({ pages: pages.data as Record<string, string>, files: files.data as Record<string, string> }), clean: true };
}
