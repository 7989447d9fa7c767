import { describe, expect, it } from 'vitest';
import {
  detectLanguage,
  findTerms,
  indexTokens,
  languageVotes,
  matchTerm,
  pageSections,
  queryTerms,
  stemOf,
  termsWithOffsets,
  tokenize,
  type SearchTerms,
} from '../../src/content/search-text.js';
import { engineQuery } from '../../src/domain/search/search-queries.js';
import { excerpt, flatText, pageRows, sectionHits } from '../../src/content/search-ranking.js';
import { buildRevision } from '../../src/content/revision.js';
import type { DocumentPage } from '../../src/content/model.js';
import { memoryFacts, memoryTree, TEST_COMMIT } from '../helpers/content.js';
import { packSections } from '../../src/store/sql/search.js';

describe('tokenize', () => {
  it('splits on anything but letters and digits, lower-cases, drops Latin accents, keeps other scripts', () => {
    expect(tokenize('Install the CLI: `quire-cli v2.1`, then RUN it!')).toEqual(['install', 'the', 'cli', 'quire', 'cli', 'v2', '1', 'then', 'run', 'it']);
    expect(tokenize('Café crème, Ångström, naïve')).toEqual(['cafe', 'creme', 'angstrom', 'naive']);
    expect(tokenize('Привет мир 東京')).toEqual(['привет', 'мир', '東京']);
  });

  it('leaves out words longer than 64 characters', () => {
    expect(tokenize(`short ${'x'.repeat(65)} ${'y'.repeat(64)}`)).toEqual(['short', 'y'.repeat(64)]);
  });

  it('cuts Chinese, Japanese and Thai runs into words, with their offsets, and keeps combining marks in words', () => {
    expect(tokenize('東京に行きます')).toEqual(['東京', 'に', '行き', 'ます']);
    expect(tokenize('我们在北京大学学习。')).toEqual(['我们', '在', '北京', '大学', '学习']);
    expect(tokenize('한국어를 배웁니다')).toEqual(['한국어를', '배웁니다']);
    expect(tokenize('हिन्दी भाषा')).toEqual(['हिन्दी', 'भाषा']);
    const text = 'Go to 東京に行きます now';
    expect([...termsWithOffsets(text)].map(({ term, offset, length }) => [term, text.slice(offset, offset + length)])).toEqual([
      ['go', 'Go'],
      ['to', 'to'],
      ['東京', '東京'],
      ['に', 'に'],
      ['行き', '行き'],
      ['ます', 'ます'],
      ['now', 'now'],
    ]);
  });
});

describe('languages and stems', () => {
  it('stems words of the language, with their accents, as normalized terms', () => {
    expect(['installing', 'installed', 'install', 'installation'].map((w) => stemOf(w, 'en'))).toEqual(['instal', 'instal', 'instal', 'instal']);
    expect(stemOf('Häuser', 'de')).toBe('haus');
    expect(stemOf('haus', 'de')).toBe('haus');
    expect(stemOf('установки', 'ru')).toBe(stemOf('установка', 'ru'));
    // Other scripts, and words with digits, are their own stem.
    expect(stemOf('東京', 'en')).toBe('東京');
    expect(stemOf('v2s', 'en')).toBe('v2s');
    expect(stemOf('installing', 'ru')).toBe('installing');
  });

  it('writes each word and, when it differs, its stem: the tokens both engines index', () => {
    const votes = new Map();
    expect(indexTokens('Installing the CLI: configuration, Café', 'en', votes)).toBe('installing/instal the cli configuration/configur cafe');
    expect(votes).toEqual(new Map([['en', 1]]));
  });

  it('tells the language from its stop words, English when there are too few', () => {
    const of = (text: string) => detectLanguage(languageVotes(tokenize(text)));
    expect(of('Das ist die Dokumentation für das Projekt, und wir beschreiben, wie man es installiert.')).toBe('de');
    expect(of('Voici la documentation du projet: nous décrivons comment il est installé dans les serveurs.')).toBe('fr');
    expect(of('Esta es la documentación del proyecto, y describimos cómo se instala en los servidores.')).toBe('es');
    expect(of('This is the documentation of the project, and how it is installed on the servers.')).toBe('en');
    expect(of('Установка и настройка: это не сложно, но для этого есть несколько шагов.')).toBe('ru');
    expect(of('東京に行きます')).toBe('en');
    expect(of('die Haus')).toBe('en');
  });
});

describe('queryTerms', () => {
  it('matches the last word as a prefix and the others exactly, without stop words or repeats, with their stems', () => {
    expect(queryTerms('How to install the CLI')).toEqual({ language: 'en', exact: ['install'], prefix: 'cli', stems: ['instal', 'cli'] });
    expect(queryTerms('deploy deploy conf')).toEqual({ language: 'en', exact: ['deploy'], prefix: 'conf', stems: ['deploi', 'conf'] });
    expect(queryTerms('the')).toEqual({ language: 'en', exact: [], prefix: 'the', stems: ['the'] });
    expect(queryTerms('api x')).toEqual({ language: 'en', exact: ['api', 'x'], stems: ['api', 'x'] });
    expect(queryTerms('?!')).toEqual({ language: 'en', exact: [], stems: [] });
    // The space's language: its stop words go (and English ones), its stemmer stems.
    expect(queryTerms('das Haus der Häuser', 'de')).toEqual({ language: 'de', exact: ['haus'], prefix: 'hauser', stems: ['haus', 'haus'] });
  });

  it('tells which query term a word matches: as written, by stem, or as the start of a word', () => {
    const terms = queryTerms('deploying conf');
    expect(matchTerm(terms, 'deploy')).toBe(0);
    expect(matchTerm(terms, 'deployed')).toBe(0);
    expect(matchTerm(terms, 'configure')).toBe(1);
    expect(matchTerm(terms, 'deployment')).toBe(-1);
    expect(matchTerm(queryTerms('configura'), 'configuration')).toBe(0);
    expect(matchTerm(queryTerms('installing'), 'installed')).toBe(0);
  });

  it('gives the engines each word and its stem, and the last word as a prefix', () => {
    expect(engineQuery(queryTerms('installing guides conf'))).toEqual({ whole: ['installing', 'guides', 'instal', 'guid'], prefixes: ['conf'] });
    expect(engineQuery(queryTerms('installing'))).toEqual({ whole: ['instal'], prefixes: ['installing'] });
    expect(engineQuery(queryTerms('?!'))).toEqual({ whole: [], prefixes: [] });
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
  it('gives the tokens of the title, the headings and the text (with the description), and counts stop words', async () => {
    const revision = await buildRevision(
      memoryTree({ 'README.md': '---\ndescription: Deploy guide\n---\n# Deploy Quire\n\nDeploy it twice: deploying.\n\n## Deploy on Linux\n\nLinux only.\n' }),
      TEST_COMMIT,
      memoryFacts(),
    );
    const rows = pageRows(revision.pages[0] as DocumentPage);
    expect(rows.tokens).toEqual({
      title: 'deploy/deploi quire/quir',
      headings: 'deploy/deploi on linux',
      body: 'deploy/deploi guide/guid deploy/deploi it twice deploying/deploi linux only/onli',
    });
    expect(rows.sections.map((s) => s.anchor)).toEqual(['', 'deploy-on-linux']);
    expect(rows.page).toMatchObject({ title: 'Deploy Quire', path: 'readme', language: 'en', stop_words: 2 });
  });

  it('stores a section\'s text flat: paragraphs, lists and line breaks as single spaces', async () => {
    const revision = await buildRevision(
      memoryTree({ 'README.md': '# Flat\n\n## Steps\n\nFirst  paragraph,\nwrapped.\n\n- one\n- two\n\n```\ncode\tblock\n```\n' }),
      TEST_COMMIT,
      memoryFacts(),
    );
    expect(pageRows(revision.pages[0] as DocumentPage).sections[1].body).toBe('First paragraph, wrapped. one two code block');
  });

  it('keeps blocks apart: list items, table cells, quoted paragraphs and GitBook blocks are separate words', async () => {
    const markdown = [
      '# Blocks',
      '',
      '- alpha',
      '- beta',
      '',
      '| gamma | delta |',
      '|---|---|',
      '| epsilon | zeta |',
      '',
      '> eta',
      '>',
      '> theta',
      '',
      '{% hint style="info" %}',
      'iota',
      '{% endhint %}',
      '{% tabs %}',
      '{% tab title="One" %}',
      'kappa',
      '{% endtab %}',
      '{% endtabs %}',
      'lambda<br>mu',
      '',
    ].join('\n');
    const revision = await buildRevision(memoryTree({ 'README.md': markdown }), TEST_COMMIT, memoryFacts());
    const rows = pageRows(revision.pages[0] as DocumentPage);
    const words = rows.tokens.body.split(/[ /]/);
    for (const word of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu']) expect(words, word).toContain(word);
    expect(rows.sections[0].body).toBe('alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu');
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
    const hits = sectionHits('guide/setup', packSections(sections), queryTerms('install config'));
    expect(hits.map((h) => h.id)).toEqual(['configure', 'more', 'setup']);
    expect(hits[0]).toEqual({ id: 'configure', title: 'Configure', path: 'guide/setup#configure', body: 'Options you may configure.' });
  });

  it('matches words with accents and other cases as their terms', () => {
    const accented = [
      { position: 1, anchor: 'cafe', title: 'Le café', body: 'Un CAFÉ noir.' },
      { position: 2, anchor: 'tea', title: 'Tea', body: 'No coffee here.' },
    ];
    expect(sectionHits('p', packSections(accented), queryTerms('cafe')).map((h) => h.id)).toEqual(['cafe']);
    expect(sectionHits('p', packSections(accented), queryTerms('Café')).map((h) => h.id)).toEqual(['cafe']);
    expect(sectionHits('p', packSections(accented), queryTerms('COFF')).map((h) => h.id)).toEqual(['tea']);
  });

  it('finds words by their stem and CJK words in unspaced text', () => {
    const stemmed = [
      { position: 1, anchor: 'a', title: 'Setup', body: 'Nothing here.' },
      { position: 2, anchor: 'b', title: 'Steps', body: 'Installing takes a minute.' },
      { position: 3, anchor: 'c', title: '東京', body: '東京に行きます。' },
    ];
    expect(sectionHits('p', packSections(stemmed), queryTerms('installed')).map((h) => [h.id, h.body])).toEqual([['b', 'Installing takes a minute.']]);
    expect(sectionHits('p', packSections(stemmed), queryTerms('install now')).map((h) => h.id)).toEqual(['b']);
    expect(sectionHits('p', packSections(stemmed), queryTerms('行き')).map((h) => h.id)).toEqual(['c']);
  });

  it('excerpts long sections around the first match', () => {
    const long = `${'filler '.repeat(60)}the needle is here ${'tail '.repeat(60)}`;
    const [hit] = sectionHits('p', packSections([{ anchor: 'a', title: 'A', body: long }]), queryTerms('needle'));
    expect(hit.body.startsWith('…')).toBe(true);
    expect(hit.body.endsWith('…')).toBe(true);
    expect(hit.body).toContain('the needle is here');
    expect(hit.body.length).toBeLessThanOrEqual(205);
    expect(excerpt('short  text\n')).toBe('short text');
    // Flat text as it is; any other white space made flat.
    for (const [text, flat] of [
      ['a b', 'a b'],
      [' a', 'a'],
      ['a ', 'a'],
      ['a  b', 'a b'],
      ['a\nb', 'a b'],
      ['a\u00a0b', 'a b'],
      ['a\t\r\n b', 'a b'],
      ['', ''],
    ]) {
      expect(flatText(text), JSON.stringify(text)).toBe(flat);
    }
  });
  it('finds in a whole page what looking section by section finds (anchors and titles apart, other scripts too)', () => {
    /** The sections as findTerms finds terms in each title and text: the reference the one pass over a page must agree with. */
    function bySection(sections: Array<{ anchor: string; title: string; body: string }>, terms: SearchTerms) {
      const scored = sections.flatMap((section, i) => {
        const inTitle = findTerms(section.title, terms).matched;
        const inBody = findTerms(section.body, terms);
        const matched = new Set([...inTitle, ...inBody.matched]).size;
        return matched === 0 ? [] : [{ i, inTitle: inTitle.size, matched, occurrences: inBody.occurrences, first: inBody.first }];
      });
      scored.sort((a, b) => b.inTitle - a.inTitle || b.matched - a.matched || b.occurrences - a.occurrences || a.i - b.i);
      return scored.slice(0, 5).map(({ i, first }) => ({ id: sections[i].anchor, title: sections[i].title, path: `p#${sections[i].anchor}`, body: excerpt(sections[i].body, first) }));
    }
    const vocabulary = ['kalo', 'kal', 'Kalon', 'mine', 'ruta', 'x9', 'install', 'Installing', 'installed', 'happy', 'happiness', 'setup', 'café', 'CAFE', '北京', 'filler'];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const pick = () => vocabulary[next() % vocabulary.length];
    const text = (words: number) => Array.from({ length: words }, (_, i) => pick() + (i % 7 === 6 ? '. ' : ' ')).join('').trim();
    const queries = ['kal', 'kalo', 'install', 'installed setup', 'mine kal', 'happy ru', 'setup', 'cafe', '北京', 'x9 happ'];
    let plain = 0;
    for (let round = 0; round < 150; round++) {
      // Mostly plain ASCII pages (one pass), some with accents or CJK (section by section); anchors hold query words.
      const ascii = round % 4 !== 0;
      const word = () => {
        let w = pick();
        while (ascii && !/^[\x00-\x7f]*$/.test(w)) w = pick();
        return w;
      };
      const sections = Array.from({ length: 1 + (next() % 8) }, () => ({
        anchor: `${word().toLowerCase()}-${word().toLowerCase()}`,
        title: `${word()} ${word()}`,
        body: next() % 5 === 0 ? '' : ascii ? Array.from({ length: 5 + (next() % 60) }, word).join(' ') : text(5 + (next() % 60)),
      }));
      if (ascii) plain += 1;
      for (const query of queries) {
        const terms = queryTerms(query);
        expect(sectionHits('p', packSections(sections), terms), `${query} in ${JSON.stringify(sections)}`).toEqual(bySection(sections, terms));
      }
    }
    expect(plain).toBeGreaterThan(100);
  });
});

describe('findTerms', () => {
  /** What tokenizing the text and matching every term finds: the reference the fast path of findTerms must agree with. */
  function byTokens(text: string, terms: SearchTerms) {
    const matched = new Set<number>();
    let occurrences = 0;
    let first: number | undefined;
    for (const { term, offset, length } of termsWithOffsets(text)) {
      const q = matchTerm(terms, term, text.slice(offset, offset + length));
      if (q < 0) continue;
      matched.add(q);
      occurrences += 1;
      first ??= offset;
    }
    return { matched, occurrences, first };
  }

  it('finds in plain ASCII text what tokenizing finds: whole words, the prefix, exact terms before the prefix', () => {
    const vocabulary = ['ka', 'kal', 'kalo', 'kalon', 'lo', 'mi', 'mine', 'ruta', 'x9', '9x', 'kal-o', 'Kalo', 'KAL', 'a'.repeat(70) + 'kal', 'install', 'Installing', 'installed', 'instal', 'happy', 'happiness', 'study', 'studies', 'hoping', 'hope'];
    let seed = 7;
    const pick = () => vocabulary[(seed = (seed * 1103515245 + 12345) % 2147483648) % vocabulary.length];
    const separators = [' ', '. ', ', ', '\n', '_', '-', '(', ') '];
    const queries = ['kal', 'kal lo', 'kalo ka', 'mine kal', 'ruta mi', 'x9 9x', 'zz', 'installing', 'install ka', 'happy stud', 'studies hope', 'hoped', 'happiness inst'];
    for (let round = 0; round < 200; round++) {
      const text = Array.from({ length: 30 }, (_, i) => pick() + separators[i % separators.length]).join('');
      for (const query of queries) {
        const terms = queryTerms(query);
        expect(findTerms(text, terms), `${query} in ${text}`).toEqual(byTokens(text, terms));
      }
    }
  });

  it('falls back to tokenizing for text with accents and other scripts', () => {
    expect(findTerms('我们在北京大学学习', queryTerms('北京'))).toEqual({ matched: new Set([0]), occurrences: 1, first: 3 });
    const terms = queryTerms('cafe déj');
    expect(findTerms('Un café, déjà vu au CAFÉ', terms)).toEqual(byTokens('Un café, déjà vu au CAFÉ', terms));
    expect(findTerms('Un café, déjà vu au CAFÉ', terms).occurrences).toBe(3);
  });
});
