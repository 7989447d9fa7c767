import { api } from '../api.js';
import { useApi } from '../use-api.js';
import { Show } from './status.js';

interface Block {
  change: 'added' | 'removed' | 'unchanged' | 'changed';
  before?: string;
  after?: string;
}

interface PageDiff {
  page: { id: string; title: string; path: string };
  blocks: Block[];
  markdown: { before?: string; after?: string };
}

const LABEL: Record<Block['change'], string> = { added: 'Added', removed: 'Removed', changed: 'Changed', unchanged: 'Unchanged' };

/** One block's HTML, sanitized by the API (the published sites' renderer). */
const Html = ({ html }: { html: string | undefined }) => <div class="diff-html" dangerouslySetInnerHTML={{ __html: html ?? '' }} />;

/**
 * One page of a change request as rendered blocks, inline (changed blocks before then after) or side by side, and its
 * markdown one click away.
 */
export function PageDiffView({ spaceId, number, pageId, layout }: { spaceId: string; number: string; pageId: string; layout: 'inline' | 'split' }) {
  const [diff] = useApi(`${spaceId}:${number}:${pageId}`, (signal) => api<PageDiff>(`/spaces/${spaceId}/change-requests/${number}/changes/pages/${pageId}`, { signal }));
  return (
    <Show loaded={diff} what="the page's changes">
      {(value) => (
        <section aria-labelledby="diff-title" class={`diff diff-${layout}`}>
          <h2 id="diff-title">{value.page.title}</h2>
          <article aria-label="Changed blocks">
          <ol class="diff-blocks">
            {value.blocks.map((block, i) => (
              <li key={i} class={`diff-block diff-${block.change}`}>
                <span class="visually-hidden">{LABEL[block.change]}: </span>
                {block.change === 'unchanged' ? (
                  <Html html={block.after} />
                ) : layout === 'split' ? (
                  <div class="diff-sides">
                    <div class="diff-before" aria-label="Before">{block.before !== undefined && <Html html={block.before} />}</div>
                    <div class="diff-after" aria-label="After">{block.after !== undefined && <Html html={block.after} />}</div>
                  </div>
                ) : (
                  <>
                    {block.before !== undefined && (
                      <del class="diff-before">
                        <Html html={block.before} />
                      </del>
                    )}
                    {block.after !== undefined && (
                      <ins class="diff-after">
                        <Html html={block.after} />
                      </ins>
                    )}
                  </>
                )}
              </li>
            ))}
          </ol>
          </article>
          <details class="diff-markdown">
            <summary>Markdown</summary>
            <div class="diff-sides">
              <div>
                <h3>Before</h3>
                <pre>{value.markdown.before ?? '(no page)'}</pre>
              </div>
              <div>
                <h3>After</h3>
                <pre>{value.markdown.after ?? '(no page)'}</pre>
              </div>
            </div>
          </details>
        </section>
      )}
    </Show>
  );
}
