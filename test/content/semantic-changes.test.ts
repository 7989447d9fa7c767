/**
 * semanticChanges (src/content/semantic-changes.ts): two revisions built from real trees, and what changed between
 * them by meaning: pages created, deleted, edited (which attributes), moved (parent, or order among the siblings
 * kept), files, reusable contents and the space's variables; `limit` and `more`.
 */
import { describe, expect, it } from 'vitest';
import type { Page, Revision } from '../../src/content/model.js';
import { analyzeTree } from '../../src/content/revision.js';
import { limitChanges, outOfOrder, semanticChanges, type SemanticChange } from '../../src/content/semantic-changes.js';
import { memoryFacts, memoryTree, TEST_COMMIT, tinyPng, type MemoryFile } from '../helpers/content.js';

async function revision(files: Record<string, MemoryFile>, ids: Record<string, string> = {}): Promise<Revision> {
  return (await analyzeTree(memoryTree(files), TEST_COMMIT, memoryFacts(ids))).revision;
}

const BASE: Record<string, MemoryFile> = {
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Welcome](README.md)',
    '* [Guide](guide/README.md)',
    '  * [Install](guide/install.md)',
    '  * [Configure](guide/configure.md)',
    '  * [Deploy](guide/deploy.md)',
    '* [Old](old.md)',
    '',
    '## Reference',
    '',
    '* [API](api.md)',
    '* [Status](https://status.example.com)',
    '',
  ].join('\n'),
  'README.md': '# Welcome\n\nHello.\n',
  'guide/README.md': '# Guide\n\nThe guide.\n',
  'guide/install.md': '---\ndescription: How to install\n---\n\n# Install\n\nRun it.\n',
  'guide/configure.md': '# Configure\n\nSet it up.\n',
  'guide/deploy.md': '# Deploy\n\nShip it.\n',
  'old.md': '# Old\n\nGone soon.\n',
  'api.md': '# API\n\nEndpoints.\n',
  '.gitbook/assets/logo.png': tinyPng(4, 3),
  '.gitbook/assets/gone.png': tinyPng(2, 2),
  '.gitbook/includes/note.md': '---\ntitle: Note\n---\n\nA note.\n',
  '.gitbook/includes/warn.md': '---\ntitle: Warning\n---\n\nCareful.\n',
  '.gitbook/vars.yaml': 'version: "1.0"\nold: "yes"\n',
};

/** The head: a page added, one deleted, edits of each kind, a move to another parent, a reorder. */
const HEAD: Record<string, MemoryFile> = {
  ...BASE,
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Welcome](README.md)',
    '* [Guide](guide/README.md)',
    '  * [New](guide/new.md)',
    '  * [Install](guide/install.md)',
    '  * [Deploy](guide/deploy.md)',
    '  * [Configuration](guide/configuration.md)',
    '  * [API](api.md)',
    '',
    '## Reference',
    '',
    '* [Status](https://status.example.com/v2)',
    '',
  ].join('\n'),
  'README.md': '---\nemoji: "1f680"\n---\n\n# Welcome\n\nHello.\n',
  'guide/new.md': '# New\n\nFresh.\n',
  'guide/install.md': '---\ndescription: How to install it\n---\n\n# Install\n\nRun it twice.\n',
  'guide/configure.md': undefined as never,
  'guide/configuration.md': '# Configure\n\nSet it up.\n',
  'guide/deploy.md': '---\nhidden: true\n---\n\n# Deploy\n\nShip it.\n',
  'old.md': undefined as never,
  '.gitbook/assets/logo.png': tinyPng(300, 200),
  '.gitbook/assets/gone.png': undefined as never,
  '.gitbook/assets/new.png': tinyPng(1, 1),
  '.gitbook/includes/note.md': '---\ntitle: Note\n---\n\nA longer note.\n',
  '.gitbook/includes/warn.md': undefined as never,
  '.gitbook/includes/tip.md': '---\ntitle: Tip\n---\n\nA tip.\n',
  '.gitbook/vars.yaml': 'version: "2.0"\nnew: "here"\n',
};

const present = (files: Record<string, MemoryFile>) => Object.fromEntries(Object.entries(files).filter(([, content]) => content !== undefined));

/** A change as a line: its type and what it is about, for order-insensitive reading. */
function line(change: SemanticChange): string {
  switch (change.type) {
    case 'page_created':
    case 'page_deleted':
      return `${change.type} ${change.page.title}`;
    case 'page_edited':
      return `${change.type} ${change.page.title} [${change.attributes.join(',')}]`;
    case 'page_moved':
      return `${change.type} ${change.page.title} (${change.parent.before?.title ?? 'top'} -> ${change.parent.after?.title ?? 'top'})`;
    case 'file_created':
    case 'file_deleted':
      return `${change.type} ${change.file.name}`;
    case 'file_edited':
      return `${change.type} ${change.file.name} [${change.attributes.join(',')}]`;
    case 'variables_edited':
      return `${change.type} ${JSON.stringify(change.variables)}`;
    case 'reusable_content_created':
    case 'reusable_content_deleted':
      return `${change.type} ${change.reusableContent.title}`;
    case 'reusable_content_edited':
      return `${change.type} ${change.reusableContent.title} [${change.attributes.join(',')}]`;
  }
}

function find(pages: Page[], title: string): Page | undefined {
  for (const page of pages) {
    const found = page.title === title ? page : find(page.pages, title);
    if (found) return found;
  }
  return undefined;
}

describe('semanticChanges', () => {
  it('says what changed by meaning: pages, files, reusable contents and variables, in the head order', async () => {
    const before = await revision(present(BASE));
    // The renamed file keeps its page's id (as history's rename detection gives it).
    const after = await revision(present(HEAD), { 'page:guide/configuration.md': find(before.pages, 'Configure')!.id });
    const changes = await semanticChanges(before, after);
    expect(changes.map(line)).toEqual([
      // Emoji only: the markdown is the same, so no `document`.
      'page_edited Welcome [emoji]',
      'page_created New',
      'page_edited Install [description,document]',
      // A front matter key no attribute names (hidden): the document changed.
      'page_edited Deploy [document]',
      // Deploy came before Configure: of the two kept siblings, it left the old order; New before them moves nobody.
      'page_moved Deploy (Guide -> Guide)',
      'page_edited Configuration [title,slug]',
      'page_moved API (Reference -> Guide)',
      'page_edited Status [target]',
      'page_deleted Old',
      'file_edited logo.png [downloadURL,size,dimensions]',
      'file_created new.png',
      'file_deleted gone.png',
      'reusable_content_edited Note [document]',
      'reusable_content_created Tip',
      'reusable_content_deleted Warning',
      'variables_edited {"version":{"before":"1.0","after":"2.0"},"new":{"after":"here"},"old":{"before":"yes"}}',
    ]);
    const edited = changes.find((change) => change.type === 'page_edited' && change.page.title === 'Configuration');
    expect(edited).toMatchObject({ before: { title: 'Configure', slug: 'configure' }, page: { slug: 'configuration' } });
    const moved = changes.find((change) => change.type === 'page_moved' && change.page.title === 'API');
    expect(moved).toMatchObject({ parent: { before: { type: 'group', title: 'Reference' }, after: { type: 'document', title: 'Guide' } } });
  });

  it('finds nothing between a revision and itself, and everything created after nothing (a first commit)', async () => {
    const base = await revision(present(BASE));
    expect(await semanticChanges(base, base)).toEqual([]);
    const first = await semanticChanges(undefined, base);
    expect(first.filter((change) => change.type === 'page_created').map((change) => (change as { page: Page }).page.title)).toEqual([
      'Welcome', 'Guide', 'Install', 'Configure', 'Deploy', 'Old', 'Reference', 'API', 'Status',
    ]);
    expect(first.map((change) => change.type).filter((type) => !type.startsWith('page_'))).toEqual([
      'file_created', 'file_created', 'reusable_content_created', 'reusable_content_created', 'variables_edited',
    ]);
  });

  it('tells moves from edits: a page moved elsewhere unchanged is only moved, one edited in place only edited', async () => {
    const base = await revision({
      'SUMMARY.md': '* [A](a.md)\n* [B](b.md)\n  * [C](c.md)\n',
      'a.md': '# A\n\nOne.\n',
      'b.md': '# B\n\nTwo.\n',
      'c.md': '# C\n\nThree.\n',
    });
    // C goes to the top level, unchanged; A is edited where it is; B stays: B's index shifts, it does not move.
    const head = await revision({
      'SUMMARY.md': '* [C](c.md)\n* [A](a.md)\n* [B](b.md)\n',
      'a.md': '# A\n\nOne, edited.\n',
      'b.md': '# B\n\nTwo.\n',
      'c.md': '# C\n\nThree.\n',
    });
    expect((await semanticChanges(base, head)).map(line)).toEqual(['page_moved C (B -> top)', 'page_edited A [document]']);
  });

  it('moves as few siblings as a reorder needs', () => {
    expect([...outOfOrder([0, 1, 2, 3])]).toEqual([]);
    // One page taken from the end to the start: only it moved.
    expect([...outOfOrder([3, 0, 1, 2])]).toEqual([0]);
    // Two swapped: one of them moved.
    expect(outOfOrder([1, 0]).size).toBe(1);
    // Reversed: all but one.
    expect(outOfOrder([4, 3, 2, 1, 0]).size).toBe(4);
    expect([...outOfOrder([])]).toEqual([]);
  });

  it('answers the first `limit` changes and counts the others as `more`', async () => {
    const changes = await semanticChanges(await revision(present(BASE)), await revision(present(HEAD)));
    expect(changes.length).toBeGreaterThan(10);
    const first = limitChanges(changes, 3);
    expect(first.changes).toEqual(changes.slice(0, 3));
    expect(first.more).toBe(changes.length - 3);
    expect(limitChanges(changes, 0)).toEqual({ changes: [], more: changes.length });
    expect(limitChanges(changes, 1000)).toEqual({ changes, more: 0 });
  });

  it('compares pages, files and contents by id: a renamed file with the same id is edited, not deleted and created', async () => {
    const base = await revision({ 'SUMMARY.md': '* [A](a.md)\n', 'a.md': '# A\n\n![x](.gitbook/assets/x.png)\n', '.gitbook/assets/x.png': tinyPng(2, 2) });
    const fileId = base.files[0].id;
    const head = await revision(
      { 'SUMMARY.md': '* [A](a.md)\n', 'a.md': '# A\n\n![x](.gitbook/assets/y.png)\n', '.gitbook/assets/y.png': tinyPng(2, 2) },
      { 'file:.gitbook/assets/y.png': fileId },
    );
    expect((await semanticChanges(base, head)).map(line)).toEqual(['page_edited A [document]', 'file_edited y.png [name,downloadURL]']);
  });
});
