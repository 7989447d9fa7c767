/**
 * Term lists (migration 0014): per space and token, the pages that hold it, each with its weighted count of the
 * token (title 10, headings 5, text 1, as the engines weigh the fields) and whether the token is in its title or a
 * heading; per space, its live pages with their lengths in tokens. An organization's search ranks each space's
 * pages from them (src/content/term-ranking.ts): the engines score every match of a query with no early
 * termination, and a word on nearly every page of 100 spaces is 100,000 rows scored, where decoding the same lists
 * is far quicker (bench/README.md).
 *
 * Pages are numbered within their space (`n`: the page's doc less its space's key times 2^24), and a list holds
 * (n, code) pairs in ascending n, each number as a varint of its difference to the one before, the code
 * `weighted count * 4 + tier` (tier 2: in the title, 1: in a heading, 0: in the text only). A page written anew
 * takes a number above every number the lists ever held (search_spaces.last_doc), so its postings are appended to
 * each list. A page that goes only leaves the live pages: its postings stay in the lists (readers skip pages that
 * are not live) until they outnumber the live ones, when one indexing rewrites the space's lists without them.
 * Beside the tokens' lists, the lists of their first two and three characters (PREFIX_LIST_LENGTHS), kept the same way.
 */
import type { Kysely, RawBuilder } from 'kysely';
import { sql } from './kysely.js';
import type { Database } from './schema.js';
import { chunks } from './chunks.js';
import { isPostgres } from './dialect.js';
import { decodePairs, encodePairs, hasPrefixList, isPrefixListTerm, prefixListTerm, type PageTerms, type Pairs } from '../../content/search-format.js';

// The lists' encoding is pure code (src/content/search-format.ts), read where the store must not be loaded (CPU
// threads); this module, the lists', offers it as well.
export {
  decodePairs,
  encodePairs,
  FIELD_WEIGHTS,
  hasPrefixList,
  isPrefixListTerm,
  pageTerms,
  postingCode,
  postingTier,
  postingWeight,
  PREFIX_LIST_LENGTHS,
  prefixListTerm,
  type PageTerms,
  type Pairs,
} from '../../content/search-format.js';

/** A list's stored postings followed by those of the row being upserted (SQLite's `||` makes text: cast back). */
const concatenatedPostings = (db: Kysely<Database>): RawBuilder<Buffer> =>
  isPostgres(db) ? sql<Buffer>`search_terms.postings || excluded.postings` : sql<Buffer>`cast(search_terms.postings || excluded.postings as blob)`;

// ---- writing

/**
 * Brings a space's term lists up to date with an indexing's change (run it in the indexing's transaction, after
 * its search_spaces row is written): `removed`, the numbers of the pages that went (or are written again); `added`,
 * the pages written, with their new numbers.
 */
export async function updateTermLists(
  db: Kysely<Database>,
  spaceId: string,
  change: { removed: readonly number[]; added: ReadonlyArray<{ n: number; terms: PageTerms }> },
): Promise<void> {
  const row = await db.selectFrom('search_spaces').select(['docs', 'dead_docs', 'last_doc']).where('space_id', '=', spaceId).executeTakeFirstOrThrow();
  const live = new Map<number, number>();
  if (row.docs) {
    const { docs, values } = decodePairs(row.docs);
    for (let i = 0; i < docs.length; i++) live.set(docs[i], values[i]);
  }
  let dead = Number(row.dead_docs);
  let last = Number(row.last_doc);
  for (const n of change.removed) if (live.delete(n)) dead++;
  const added = [...change.added].sort((a, b) => a.n - b.n);
  if (live.size === 0) {
    // Every page went (a space indexed anew): no list holds a live page.
    await db.deleteFrom('search_terms').where('space_id', '=', spaceId).execute();
    dead = 0;
  } else if ((dead > live.size && dead >= 64) || (added.length > 0 && added[0].n <= last)) {
    // Mostly gone pages, or a number given again (a space that used up its numbers): lists of live pages only.
    await compactTermLists(db, spaceId, new Set(live.keys()));
    dead = 0;
  }

  // Each token's new postings, in ascending page number.
  const additions = new Map<string, { docs: number[]; codes: number[] }>();
  for (const { n, terms } of added) {
    live.set(n, terms.length);
    for (const [term, code] of terms.codes) {
      let list = additions.get(term);
      if (!list) additions.set(term, (list = { docs: [], codes: [] }));
      list.docs.push(n);
      list.codes.push(code);
    }
  }
  for (const terms of chunks([...additions.keys()])) {
    // Only where each list ends is read: new postings are appended in SQL, and a list's bytes never travel both ways
    // (the lists of common words and short prefixes hold most pages of a space: tens of kilobytes each).
    const ends = new Map(
      (await db.selectFrom('search_terms').select(['term', 'last_doc']).where('space_id', '=', spaceId).where('term', 'in', terms).execute()).map((r) => [r.term, Number(r.last_doc)]),
    );
    const appended: Array<{ space_id: string; term: string; last_doc: number; postings: Buffer }> = [];
    const merged: string[] = [];
    for (const term of terms) {
      const adding = additions.get(term)!;
      const end = ends.get(term);
      if (end === undefined || adding.docs[0] > end) {
        appended.push({ space_id: spaceId, term, last_doc: adding.docs[adding.docs.length - 1], postings: encodePairs(adding.docs, adding.codes, end ?? 0) });
      } else merged.push(term);
    }
    for (const batch of chunks(appended, 200)) {
      await db
        .insertInto('search_terms')
        .values(batch)
        .onConflict((oc) => oc.columns(['space_id', 'term']).doUpdateSet((eb) => ({ last_doc: eb.ref('excluded.last_doc'), postings: concatenatedPostings(db) })))
        .execute();
    }
    // A number below a list's last (only after its space used up its numbers): the list merged in order, rewritten.
    for (const term of merged) {
      const adding = additions.get(term)!;
      const old = await db.selectFrom('search_terms').select('postings').where('space_id', '=', spaceId).where('term', '=', term).executeTakeFirstOrThrow();
      const { docs, values } = decodePairs(old.postings);
      const pairs = [...docs].map((doc, i) => ({ doc, value: values[i] }));
      adding.docs.forEach((doc, i) => pairs.push({ doc, value: adding.codes[i] }));
      pairs.sort((a, b) => a.doc - b.doc);
      await db
        .updateTable('search_terms')
        .set({ last_doc: pairs[pairs.length - 1].doc, postings: encodePairs(pairs.map((p) => p.doc), pairs.map((p) => p.value)) })
        .where('space_id', '=', spaceId)
        .where('term', '=', term)
        .execute();
    }
  }
  if (added.length > 0) last = Math.max(last, added[added.length - 1].n);
  const docs = [...live.keys()].sort((a, b) => a - b);
  await db
    .updateTable('search_spaces')
    .set({ docs: encodePairs(docs, docs.map((n) => live.get(n)!)), dead_docs: dead, last_doc: last })
    .where('space_id', '=', spaceId)
    .execute();
}

/** Rewrites a space's lists with the postings of `live` pages only. */
async function compactTermLists(db: Kysely<Database>, spaceId: string, live: ReadonlySet<number>): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('search_terms')
      .select(['term', 'postings'])
      .where('space_id', '=', spaceId)
      .where('term', '>', after)
      .orderBy('term')
      .limit(2000)
      .execute();
    if (rows.length === 0) return;
    after = rows[rows.length - 1].term;
    const emptied: string[] = [];
    for (const { term, postings } of rows) {
      const { docs, values } = decodePairs(postings);
      const keep: number[] = [];
      for (let i = 0; i < docs.length; i++) if (live.has(docs[i])) keep.push(i);
      if (keep.length === docs.length) continue;
      if (keep.length === 0) {
        emptied.push(term);
        continue;
      }
      await db
        .updateTable('search_terms')
        .set({ postings: encodePairs(keep.map((i) => docs[i]), keep.map((i) => values[i])), last_doc: docs[keep[keep.length - 1]] })
        .where('space_id', '=', spaceId)
        .where('term', '=', term)
        .execute();
    }
    for (const terms of chunks(emptied)) await db.deleteFrom('search_terms').where('space_id', '=', spaceId).where('term', 'in', terms).execute();
  }
}

// ---- reading

/** The live pages of these spaces (number and length), by space (spaces without term lists are left out). */
export async function termDocs(db: Kysely<Database>, spaceIds: readonly string[]): Promise<Map<string, Pairs>> {
  const out = new Map<string, Pairs>();
  for (const ids of chunks(spaceIds)) {
    for (const row of await db.selectFrom('search_spaces').select(['space_id', 'docs']).where('space_id', 'in', ids).execute()) {
      if (row.docs) out.set(row.space_id, decodePairs(row.docs));
    }
  }
  return out;
}

/**
 * The term lists of `spaceIds` for tokens equal to one of `whole` or starting with one of `prefixes`: by space, by
 * token (a token both whole and of a prefix is read once); a prefix of PREFIX_LIST_LENGTHS is its one list, under
 * prefixListTerm.
 */
export async function termLists(
  db: Kysely<Database>,
  spaceIds: readonly string[],
  query: { whole: readonly string[]; prefixes: readonly string[] },
): Promise<Map<string, Map<string, Buffer>>> {
  const out = new Map<string, Map<string, Buffer>>(spaceIds.map((id) => [id, new Map()]));
  // A short prefix is one list (PREFIX_LIST_LENGTHS); a longer one, the range of its tokens, which also holds the
  // whole tokens that start with it.
  const ranged = query.prefixes.filter((prefix) => !hasPrefixList(prefix));
  const whole = [
    ...query.whole.filter((token) => !ranged.some((prefix) => token.startsWith(prefix))),
    ...query.prefixes.filter(hasPrefixList).map(prefixListTerm),
  ];
  // The statements run at once (on PostgreSQL, on connections of their own: one round trip for all).
  const reads = chunks(spaceIds).flatMap((ids) => {
    const lists = db.selectFrom('search_terms').select(['space_id', 'term', 'postings']).where('space_id', 'in', ids);
    return [
      ...(whole.length > 0 ? [lists.where('term', 'in', whole).execute()] : []),
      // A prefix is one range of the primary key: from itself to itself followed by the highest character.
      ...ranged.map((prefix) => lists.where('term', '>=', prefix).where('term', '<', `${prefix}\u{10ffff}`).execute()),
    ];
  });
  for (const rows of await Promise.all(reads)) {
    // A range may hold prefix lists (the prefix of one character beyond the plane: `𠀀` holds `𠀀x*`): not tokens.
    for (const row of rows) if (!isPrefixListTerm(row.term) || whole.includes(row.term)) out.get(row.space_id)!.set(row.term, row.postings);
  }
  return out;
}
