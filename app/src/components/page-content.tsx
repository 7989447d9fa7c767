import { useEffect, useRef } from 'preact/hooks';
import type { PageHtml } from '../types.js';

/**
 * A page as its published site shows it: the HTML comes sanitized from the API (the sites' renderer), so it is set
 * as it is. Links inside it to the app's pages are followed by the router like any other link.
 */
export function PageContent({ page }: { page: PageHtml }) {
  const article = useRef<HTMLElement>(null);
  useEffect(() => {
    const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target) target.scrollIntoView();
  }, [page.id]);
  return (
    <div class="page-layout">
      <article ref={article} class="page-article">
        <h1>{page.title}</h1>
        <div dangerouslySetInnerHTML={{ __html: page.html }} />
      </article>
      {page.outline.length > 1 && (
        <nav class="outline" aria-label="On this page">
          <p class="outline-heading">On this page</p>
          <ul>
            {page.outline.map((heading) => (
              <li key={heading.id} class={`depth-${heading.depth}`}>
                <a href={`#${heading.id}`}>{heading.text}</a>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </div>
  );
}
