import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useApi } from '../use-api.js';
import { Show } from './status.js';
import { CommentThreads, NewComment, useComments, type Comment, type CommentScope } from './comment-thread.js';
import type { LiveCounts } from '../live.js';

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

/** FNV-1a of a string, in base 36: short, and the same for the same text in every browser. */
function textHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36);
}

/**
 * The node id a comment on each block targets. The blocks of a page diff carry no ids of their own (they are the
 * rendered HTML of the page's top-level blocks), so a block is named by its content as it is at the head (as it was,
 * for a removed block), with its rank among equal blocks: a thread stays on its block while the block is unchanged,
 * and when the block is rewritten the thread is shown with the page's other comments, as on an earlier version.
 */
export function blockNodeIds(blocks: Block[]): string[] {
  const seen = new Map<string, number>();
  return blocks.map((block) => {
    const hash = textHash(block.after ?? block.before ?? '');
    const rank = seen.get(hash) ?? 0;
    seen.set(hash, rank + 1);
    return `block-${hash}-${rank}`;
  });
}

/** A block's comment control: the threads on it, and a form to start one, opened by a button. */
function BlockComments({ scope, pageId, node, index, threads, version, mayComment, onChange }: { scope: CommentScope; pageId: string; node: string; index: number; threads: Comment[]; version: number; mayComment: boolean; onChange: () => void }) {
  const [open, setOpen] = useState(false);
  const formId = `block-comment-${index}`;
  return (
    <div class="block-comments">
      <CommentThreads scope={scope} comments={threads} version={version} onChange={onChange} />
      {mayComment && (
      <button type="button" class="button button-quiet block-comment-toggle" aria-expanded={open} aria-controls={open ? `${formId}-form` : undefined} onClick={() => setOpen(!open)}>
        Comment<span class="visually-hidden"> on block {index + 1}</span>
      </button>
      )}
      {open && (
        <div id={`${formId}-form`}>
          <NewComment
            scope={scope}
            page={pageId}
            node={node}
            id={formId}
            label={`Comment on block ${index + 1}`}
            onPosted={() => {
              setOpen(false);
              onChange();
            }}
          />
        </div>
      )}
    </div>
  );
}

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
export function PageDiffView({ spaceId, number, pageId, layout, live, mayComment }: { spaceId: string; number: string; pageId: string; layout: DiffLayout; live: LiveCounts; mayComment: boolean }) {
  const format = layout === 'markdown' ? 'markdown' : 'blocks';
  const [diff, reloadDiff] = useApi(`${spaceId}:${number}:${pageId}:${format}`, (signal) =>
    api<PageDiff>(`/spaces/${spaceId}/change-requests/${number}/changes/pages/${pageId}`, { signal, query: { format } }),
  );
  // A push to the branch (or an update from main) changes the page: read it again.
  useEffect(() => {
    if (live['change-request'] > 0) reloadDiff();
  }, [live['change-request']]);
  const scope: CommentScope = { spaceId, changeRequest: number };
  const [comments, reloadComments, commentsFailed] = useComments(scope, pageId, live.comment);
  return (
    <Show loaded={diff} what="the page's changes">
      {(value) => {
        const nodes = blockNodeIds(value.blocks);
        const onBlocks = new Set(nodes);
        const all = comments?.items ?? [];
        // The markdown layout shows no blocks: comments on blocks stay with them in the rendered layouts.
        const ofPage = value.hunks ? all.filter((c) => !c.target.node) : all.filter((c) => !c.target.node || !onBlocks.has(c.target.node.id));
        return (
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
              <li key={nodes[i]} class={`diff-block diff-${block.change}`}>
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
                <BlockComments
                  scope={scope}
                  pageId={pageId}
                  node={nodes[i]}
                  index={i}
                  threads={all.filter((c) => c.target.node?.id === nodes[i])}
                  version={live.comment}
                  mayComment={mayComment}
                  onChange={reloadComments}
                />
              </li>
            ))}
          </ol>
          </article>
          )}
          <section aria-labelledby="page-comments-title" class="page-comments">
            <h3 id="page-comments-title">Comments on this page</h3>
            {commentsFailed && <p class="notice notice-error">The comments could not be read: {commentsFailed.message}</p>}
            <CommentThreads
              scope={scope}
              comments={ofPage}
              version={live.comment}
              empty="No comments on the page itself (comments on a block are shown with it; those on blocks since rewritten, here)."
              onChange={reloadComments}
            />
            {mayComment && <NewComment scope={scope} page={pageId} id="page-comment" label="Comment on this page" onPosted={reloadComments} />}
          </section>
        </section>
        );
      }}
    </Show>
  );
}
