import { useEffect, useId, useState } from 'preact/hooks';
import { api, BASE } from '../api.js';

interface SectionHit {
  id: string;
  title: string;
  body: string;
  urls: { app: string };
}
interface PageHit {
  id: string;
  title: string;
  sections: SectionHit[];
  urls: { app: string };
}
interface SpaceHit {
  id: string;
  title: string;
  pages: PageHit[];
}

/** An app URL the API handed out, as a path of this origin (links stay inside the app, whatever host it named). */
const appPath = (url: string) => {
  const parsed = new URL(url, location.href);
  return parsed.pathname.startsWith(`${BASE}/app/`) ? `${parsed.pathname}${parsed.hash}` : url;
};

function PageHits({ pages }: { pages: PageHit[] }) {
  return (
    <ul class="hits">
      {pages.map((page) => (
        <li key={page.id}>
          <a href={appPath(page.urls.app)}>{page.title}</a>
          {page.sections.slice(0, 2).map((section) => (
            <p key={section.id} class="hit-excerpt">
              {section.title && <strong>{section.title}: </strong>}
              {section.body}
            </p>
          ))}
        </li>
      ))}
    </ul>
  );
}

/** Search as you type: of one space, or of an organization (its results grouped by space). */
export function Search({ scope, label }: { scope: { space: string } | { organization: string }; label: string }) {
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<{ spaces?: SpaceHit[]; pages?: PageHit[]; error?: string }>();
  const id = useId();

  useEffect(() => {
    const text = query.trim();
    if (text.length < 2) {
      setResults(undefined);
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(async () => {
      try {
        if ('space' in scope) {
          const list = await api<{ items: PageHit[] }>(`/spaces/${scope.space}/search`, { query: { query: text, limit: 20 }, signal: controller.signal });
          setResults({ pages: list.items });
        } else {
          const list = await api<{ items: SpaceHit[] }>(`/orgs/${scope.organization}/search`, { query: { query: text, limit: 10 }, signal: controller.signal });
          setResults({ spaces: list.items });
        }
      } catch (error) {
        if (!controller.signal.aborted) setResults({ error: (error as Error).message });
      }
    }, 150);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query, 'space' in scope ? scope.space : scope.organization]);

  const count = results?.pages?.length ?? results?.spaces?.reduce((n, s) => n + s.pages.length, 0);
  return (
    <search class="search" aria-label={label}>
      <label for={id} class="visually-hidden">
        {label}
      </label>
      <input id={id} type="search" placeholder={`${label}…`} value={query} onInput={(e) => setQuery((e.currentTarget as HTMLInputElement).value)} autoComplete="off" />
      <p class="visually-hidden" role="status" aria-live="polite">
        {count === undefined ? '' : `${count} results`}
      </p>
      {results?.error && <p class="notice notice-error">{results.error}</p>}
      {results?.pages && (results.pages.length === 0 ? <p class="muted">Nothing found.</p> : <PageHits pages={results.pages} />)}
      {results?.spaces &&
        (results.spaces.length === 0 ? (
          <p class="muted">Nothing found.</p>
        ) : (
          results.spaces.map((space) => (
            <section key={space.id} class="hit-space" aria-label={space.title}>
              <h3>{space.title}</h3>
              <PageHits pages={space.pages} />
            </section>
          ))
        ))}
    </search>
  );
}
