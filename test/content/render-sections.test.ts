/**
 * A page's search sections taken from the parse that renders it (page-html.ts `sections`, what a static export's
 * search index reads) are those search's own parse of the same markdown gives (pageRows): the same anchors, titles
 * and texts, and the same language of its stop words, before the render rewrites the page's links and titles.
 */
import { describe, expect, it } from 'vitest';
import { pageHtml } from '../../src/content/page-html.js';
import { pageRows, sectionRows } from '../../src/content/search-ranking.js';
import type { PageSection } from '../../src/content/search-text.js';

const PAGES: Record<string, string> = {
  plain: 'Text before any heading.\n\n## Install\n\nRun `quire init` then\n\n```sh\nquire serve --port 80\n```\n\n## Install\n\nAgain, a second heading of the same name.\n',
  links: 'See [](other.md) and [the guide](guide.md#top), ![a logo](logo.png) and <b>raw</b> html.\n\n### Links [here](x.md)\n\n* one\n* two\n  * three\n',
  blocks:
    '{% hint style="info" %}\n## Inside a hint\n\nA hint\'s text.\n{% endhint %}\n\n{% tabs %}\n{% tab title="First" %}\nFirst tab.\n{% endtab %}\n{% tab title="Second" %}\n## Tab heading\n\nSecond tab.\n{% endtab %}\n{% endtabs %}\n\n<details>\n<summary>More</summary>\n\nHidden words.\n</details>\n\n| a | b |\n|---|---|\n| cell one | cell two |\n',
  german: '## Über die Anleitung\n\nDie Anleitung ist für die Leute, die das Programm und den Dienst nicht kennen, und sie ist auch für alle anderen.\n',
  empty: '',
};

describe('search sections from the render', () => {
  it.each(Object.entries(PAGES))('are those of search for the %s page', (name, markdown) => {
    const page = { id: name, title: `The ${name} page`, path: name, blobOid: '0'.repeat(40), markdown, description: name === 'plain' ? 'What the page says.' : '' };
    let sections: PageSection[] | undefined;
    pageHtml(markdown, {
      resolveHref: (href) => `/site/${href}`,
      linkTitle: () => 'A linked page',
      sections: (found) => void (sections = found),
    });
    expect(sections).toBeDefined();
    const rows = pageRows(page);
    expect(sectionRows(page, sections!)).toEqual({ sections: rows.sections, language: rows.page.language, stop_words: rows.page.stop_words });
  });
});
