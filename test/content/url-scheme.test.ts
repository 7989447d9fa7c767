/**
 * The URL rule of content (src/content/url-scheme.ts): schemes read as browsers read them, so no spelling of
 * `javascript:` passes as a relative URL.
 */
import { describe, expect, it } from 'vitest';
import { isAllowedUrl, urlScheme, WEB_SCHEMES } from '../../src/content/url-scheme.js';

describe('the URL rule', () => {
  it('reads the scheme as a browser does: any case, around spaces and control characters, tabs and newlines inside', () => {
    for (const url of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', '\u0001\u0000 javascript:alert(1)', 'java\tscript:alert(1)', 'java\nscr\ript:alert(1)', 'javascript\n:alert(1)']) {
      expect([url, urlScheme(url)]).toEqual([url, 'javascript']);
    }
    expect(urlScheme('data:text/html,<script>')).toBe('data');
    expect(urlScheme('VBScript:msgbox(1)')).toBe('vbscript');
    // Relative: no scheme a browser would read either.
    for (const url of ['page.md', '/a/b', '#x', '?q=1', '//example.com/a', 'a/b:c', '%20javascript:alert(1)', 'java\u0000script:alert(1)', '1http:x']) expect([url, urlScheme(url)]).toEqual([url, undefined]);
  });

  it('allows relative, http(s) and mailto links; http(s) only for what loads or redirects', () => {
    const allowed = (url: string) => isAllowedUrl(url);
    expect(['https://example.com', 'HTTP://example.com', 'mailto:a@example.com', '/docs', 'install.md#linux', '#top'].filter(allowed)).toHaveLength(6);
    expect(['javascript:alert(1)', ' JAVASCRIPT:alert(1)', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', 'blob:https://x/y'].filter(allowed)).toEqual([]);
    expect(isAllowedUrl('mailto:a@example.com', WEB_SCHEMES)).toBe(false);
    expect(isAllowedUrl('https://example.com/moved', WEB_SCHEMES)).toBe(true);
  });
});
