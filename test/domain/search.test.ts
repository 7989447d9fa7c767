import { describe, expect, it } from 'vitest';
import { findTerms, matchTerm, pageSections, queryTerms, termsWithOffsets, tokenize, type SearchTerms } from '../../src/content/search-text.js';
import { excerpt, pageRows, sectionHits, termScore } from '../../src/domain/search/search.js';
import { buildRevision } from '../../src/content/revision.js';
import type { DocumentPage } from '../../src/content/model.js';
import { memoryFacts, memoryTree, TEST_COMMIT } from '../helpers/content.js';

describe('tokenize', () => {
  it('splits on anything but letters and digits, lower-cases, drops Latin accents, keeps other scripts', () => {
    expect(tokenize('Install the CLI: `quire-cli v2.1`, then RUN it!')).toEqual(['install', 'the', 'cli', 'quire', 'cli', 'v2', '1', 'then', 'run', 'it']);
    expect(tokenize('Café crème, Ångström, naïve')).toEqual(['cafe', 'creme', 'angstrom', 'naive']);
    expect(tokenize('Привет мир 東京')).toEqual(['привет', 'мир', '東京']);
  });

  it('leaves out words longer than 64 characters', () => {
    expect(tokenize(`short ${'x'.repeat(65)} ${'y'.repeat(64)}`)).toEqual(['short', 'y'.repeat(64)]);
  });
});

describe('queryTerms', () => {
  it('matches the last word as a prefix and the others exactly, without stop words or repeats', () => {
    expect(queryTerms('How to install the CLI')).toEqual({ exact: ['install'], prefix: 'cli' });
    expect(queryTerms('deploy deploy conf')).toEqual({ exact: ['deploy'], prefix: 'conf' });
    expect(queryTerms('the')).toEqual({ exact: [], prefix: 'the' });
    expect(queryTerms('api x')).toEqual({ exact: ['api', 'x'] });
    expect(queryTerms('?!')).toEqual({ exact: [] });
  });

  it('tells which query term a term matches', () => {
    const terms = queryTerms('deploy conf');
    expect(matchTerm(terms, 'deploy')).toBe(0);
    expect(matchTerm(terms, 'configure')).toBe(1);
    expect(matchTerm(terms, 'deployment')).toBe(-1);
  });
});

describe('pageSections', () => {
  it('splits at headings of any level, with GitHub anchors (repeats numbered) and plain text', () => {
    const sections = pageSections(
      [
        'Intro with **bold** and a [link](x.md).',
        '',
        '## Install the CLI',
        '',
        'Run `npm i quire`.',
        '',
        '```sh',
        'quire login',
        '```',
        '',
        '### Options',
        '{% hint style="info" %}',
        'A hint.',
        '{% endhint %}',
        '',
        '<div>raw html</div>',
        '',
        '## Options',
        'Again.',
      ].join('\n'),
    );
    expect(sections.map((s) => [s.position, s.anchor, s.title])).toEqual([
      [0, '', ''],
      [1, 'install-the-cli', 'Install the CLI'],
      [2, 'options', 'Options'],
      [3, 'options-1', 'Options'],
    ]);
    expect(sections[0].body).toBe('Intro with bold and a link.');
    expect(sections[1].body).toBe('Run npm i quire.\nquire login');
    expect(sections[2].body.replace(/\s+/g, ' ').trim()).toBe('A hint.');
    expect(sections[3].body).toBe('Again.');
  });

  it('splits at headings inside GitBook blocks too, and indexes no tag words', () => {
    const sections = pageSections(
      ['Before the steps.', '{% stepper %}', '{% step %}', '## Install', 'Run it.', '{% endstep %}', '{% step %}', '## Configure', '{% tabs %}', '{% tab title="Linux" %}', 'Edit the file.', '{% endtab %}', '{% endtabs %}', '{% endstep %}', '{% endstepper %}'].join('\n'),
    );
    expect(sections.map((s) => [s.anchor, s.body])).toEqual([
      ['', 'Before the steps.'],
      ['install', 'Run it.'],
      ['configure', 'Edit the file.'],
    ]);
  });
});

describe('pageRows', () => {
  it('counts each term in the title, the headings and the text (with the description)', async () => {
    const revision = await buildRevision(
      memoryTree({ 'README.md': '---\ndescription: Deploy guide\n---\n# Deploy Quire\n\nDeploy it twice: deploy.\n\n## Deploy on Linux\n\nLinux only.\n' }),
      TEST_COMMIT,
      memoryFacts(),
    );
    const rows = pageRows(revision.pages[0] as DocumentPage);
    const score = (term: string) => rows.postings.find((p) => p.term === term)?.score;
    expect(score('deploy')).toBe(termScore(1, 1, 3));
    expect(score('linux')).toBe(termScore(0, 1, 1));
    expect(score('quire')).toBe(termScore(1, 0, 0));
    expect(score('guide')).toBe(termScore(0, 0, 1));
    expect(rows.sections.map((s) => s.anchor)).toEqual(['', 'deploy-on-linux']);
    expect(rows.page).toMatchObject({ title: 'Deploy Quire', path: 'readme' });
  });
});

describe('termScore', () => {
  it('sums over query terms in the ranking order: title terms, then terms, then heading terms, then occurrences', () => {
    const page = (...terms: Array<[number, number, number]>) => terms.reduce((sum, [t, h, b]) => sum + termScore(t, h, b), 0);
    // Best first; each page differs from the next by one rule only.
    const ordered = [
      page([1, 0, 0], [0, 0, 0]), // one term in the title
      page([0, 1, 999], [0, 1, 999], [0, 1, 999]), // three terms, in headings, often, but none in the title
      page([0, 1, 1], [0, 0, 1]), // two terms, one in a heading
      page([0, 0, 1000], [0, 0, 1000]), // two terms, no heading, many occurrences
      page([0, 0, 1], [0, 0, 1]), // two terms, few occurrences
      page([0, 1, 5000]), // one term (occurrences count up to 1,000)
      page([0, 0, 1]),
    ];
    expect([...ordered].sort((a, b) => b - a)).toEqual(ordered);
    expect(new Set(ordered).size).toBe(ordered.length);
    expect(termScore(0, 0, 5000)).toBe(termScore(0, 0, 1000));
    expect(Number.isSafeInteger(20 * termScore(1, 1, 1000))).toBe(true);
  });
});

describe('sectionHits', () => {
  const sections = [
    { position: 1, anchor: 'setup', title: 'Setup', body: 'Install the package, then configure it.' },
    { position: 2, anchor: 'configure', title: 'Configure', body: 'Options you may configure.' },
    { position: 3, anchor: 'faq', title: 'FAQ', body: 'Nothing relevant here.' },
    { position: 4, anchor: 'more', title: 'More', body: 'Install again, configure again, configure more.' },
  ];

  it('keeps sections with a query term, heading matches first, then more terms, then more occurrences', () => {
    const hits = sectionHits('guide/setup', sections, queryTerms('install config'));
    expect(hits.map((h) => h.id)).toEqual(['configure', 'more', 'setup']);
    expect(hits[0]).toEqual({ id: 'configure', title: 'Configure', path: 'guide/setup#configure', body: 'Options you may configure.' });
  });

  it('matches words with accents and other cases as their terms', () => {
    const accented = [
      { position: 1, anchor: 'cafe', title: 'Le café', body: 'Un CAFÉ noir.' },
      { position: 2, anchor: 'tea', title: 'Tea', body: 'No coffee here.' },
    ];
    expect(sectionHits('p', accented, queryTerms('cafe')).map((h) => h.id)).toEqual(['cafe']);
    expect(sectionHits('p', accented, queryTerms('Café')).map((h) => h.id)).toEqual(['cafe']);
    expect(sectionHits('p', accented, queryTerms('COFF')).map((h) => h.id)).toEqual(['tea']);
  });

  it('excerpts long sections around the first match', () => {
    const long = `${'filler '.repeat(60)}the needle is here ${'tail '.repeat(60)}`;
    const [hit] = sectionHits('p', [{ position: 1, anchor: 'a', title: 'A', body: long }], queryTerms('needle'));
    expect(hit.body.startsWith('…')).toBe(true);
    expect(hit.body.endsWith('…')).toBe(true);
    expect(hit.body).toContain('the needle is here');
    expect(hit.body.length).toBeLessThanOrEqual(205);
    expect(excerpt('short  text\n')).toBe('short text');
  });
});

describe('findTerms', () => {
  /** What tokenizing the text and matching every term finds: the reference the fast path of findTerms must agree with. */
  function byTokens(text: string, terms: SearchTerms) {
    const matched = new Set<number>();
    let occurrences = 0;
    let first: number | undefined;
    for (const { term, offset } of termsWithOffsets(text)) {
      const q = matchTerm(terms, term);
      if (q < 0) continue;
      matched.add(q);
      occurrences += 1;
      first ??= offset;
    }
    return { matched, occurrences, first };
  }

  it('finds in plain ASCII text what tokenizing finds: whole words, the prefix, exact terms before the prefix', () => {
    const vocabulary = ['ka', 'kal', 'kalo', 'kalon', 'lo', 'mi', 'mine', 'ruta', 'x9', '9x', 'kal-o', 'Kalo', 'KAL', 'a'.repeat(70) + 'kal'];
    let seed = 7;
    const pick = () => vocabulary[(seed = (seed * 1103515245 + 12345) % 2147483648) % vocabulary.length];
    const separators = [' ', '. ', ', ', '\n', '_', '-', '(', ') '];
    const queries = ['kal', 'kal lo', 'kalo ka', 'mine kal', 'ruta mi', 'x9 9x', 'zz'];
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: 30 }, (_, i) => pick() + separators[i % separators.length]).join('');
      for (const query of queries) {
        const terms = queryTerms(query);
        expect(findTerms(text, terms), `${query} in ${text}`).toEqual(byTokens(text, terms));
      }
    }
  });

  it('falls back to tokenizing for text with accents and other scripts', () => {
    const terms = queryTerms('cafe déj');
    expect(findTerms('Un café, déjà vu au CAFÉ', terms)).toEqual(byTokens('Un café, déjà vu au CAFÉ', terms));
    expect(findTerms('Un café, déjà vu au CAFÉ', terms).occurrences).toBe(3);
  });
});
