import { api } from '../api.js';
import { useApi } from '../use-api.js';
import { Show } from './status.js';

interface Block {
  change: 'added' | 'removed' | 'unchanged' | 'changed';
  before?: string;
  after?: string;
}

interface LineHunk {
  beforeStart: number;
  beforeLines: number;
  afterStart: number;
  afterLines: number;
  lines: Array<{ change: 'added' | 'removed' | 'unchanged'; text: string }>;
}

interface PageDiff {
  page: { id: string; title: string; path: string };
  blocks: Block[];
  markdown: { before?: string; after?: string };
  hunks?: LineHunk[];
}

export type DiffLayout = 'inline' | 'split' | 'markdown';

const LABEL: Record<Block['change'], string> = { added: 'Added', removed: 'Removed', changed: 'Changed', unchanged: 'Unchanged' };

/** One block's HTML, sanitized by the API (the published sites' renderer). */
const Html = ({ html }: { html: string | undefined }) => <div class="diff-html" dangerouslySetInnerHTML={{ __html: html ?? '' }} />;

const MARK = { added: '+', removed: '−', unchanged: ' ' } as const;
const LINE_LABEL = { added: 'added', removed: 'removed', unchanged: 'unchanged' } as const;

/** The markdown compared line by line, as `diff -u` shows it: each line marked + or − in text, not by colour alone. */
function MarkdownLines({ hunks }: { hunks: LineHunk[] }) {
  if (hunks.length === 0) return <p>The markdown is the same.</p>;
  return (
    <div class="line-diff">
      {hunks.map((hunk, i) => (
        <figure key={i} class="line-hunk">
          <figcaption>
            Lines {hunk.beforeStart}–{hunk.beforeStart + Math.max(hunk.beforeLines, 1) - 1} before, {hunk.afterStart}–{hunk.afterStart + Math.max(hunk.afterLines, 1) - 1} after
          </figcaption>
          <pre>
            {hunk.lines.map((line, j) => (
              <span key={j} class={`line line-${line.change}`}>
                <span aria-hidden="true">{MARK[line.change]} </span>
                <span class="visually-hidden">{LINE_LABEL[line.change]}: </span>
                {line.text}
                {'\n'}
              </span>
            ))}
          </pre>
        </figure>
      ))}
    </div>
  );
}

/**
 * One page of a change request as rendered blocks, inline (changed blocks before then after) or side by side, or as
 * its markdown compared line by line.
 */
export function PageDiffView({ spaceId, number, pageId, layout }: { spaceId: string; number: string; pageId: string; layout: DiffLayout }) {
  const format = layout === 'markdown' ? 'markdown' : 'blocks';
  const [diff] = useApi(`${spaceId}:${number}:${pageId}:${format}`, (signal) =>
    api<PageDiff>(`/spaces/${spaceId}/change-requests/${number}/changes/pages/${pageId}`, { signal, query: { format } }),
  );
  return (
    <Show loaded={diff} what="the page's changes">
      {(value) => (
        <section aria-labelledby="diff-title" class={`diff diff-${layout}`}>
          <h2 id="diff-title">{value.page.title}</h2>
          {value.hunks ? (
            <article aria-label="Changed lines of the markdown">
              <MarkdownLines hunks={value.hunks} />
            </article>
          ) : (
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
          )}
        </section>
      )}
    </Show>
  );
}
