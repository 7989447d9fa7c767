/**
 * The content of a migrated space or change request: fetched through git when the source serves the repository
 * (another Quire), else written as one commit from the pages and files the source's API gives. Apart from the space
 * and change-request steps because both use it.
 */
import type { MigrationRun } from './migration-run.js';
import { SourceFailure } from './source.js';
import type { SourceFileInfo } from './source-resources.js';
import { treeOfPages, type SourcePage } from '../../content/pages-tree.js';
import { fetchRefsFromUrl } from '../../store/git/transfer.js';

/** Main and the change requests' branches of the source's repository, with their history, into `staging`. */
export async function fetchRepository(run: MigrationRun, staging: string, spaceId: string): Promise<void> {
  const url = run.source.gitUrl(spaceId);
  const pin = await run.ctx.fetcher.resolvePinned(url);
  await fetchRefsFromUrl(
    run.ctx.git,
    staging,
    url,
    ['+refs/heads/main:refs/heads/main', '+refs/heads/change-requests/*:refs/migrate/change-requests/*'],
    pin,
    run.source.gitHeaders(),
  ).catch((error: unknown) => {
    throw new SourceFailure(undefined, `space ${spaceId}: git could not fetch its repository: ${(error as Error).message}`);
  });
}

/**
 * Writes the pages and files the source's API gives for the space (or one of its change requests) as one commit
 * on `ref` of `repository`, on top of `parent`.
 */
export async function writeFromApi(run: MigrationRun, repository: string, spaceId: string, changeRequestId: string | undefined, ref: string, parent?: string): Promise<string> {
  const where = changeRequestId ? `change request ${changeRequestId} of space ${spaceId}` : `space ${spaceId}`;
  const { pages } = await run.source.read<{ pages: SourcePage[] }>(`pages of ${where}`, (c) =>
    changeRequestId ? c.spaces.listPagesInChangeRequest(spaceId, changeRequestId, {}) : c.spaces.listPages(spaceId, {}),
  );
  const withMarkdown = async (list: SourcePage[]): Promise<SourcePage[]> => {
    const out: SourcePage[] = [];
    for (const page of list) {
      let markdown = page.markdown;
      if ((page.type ?? 'document') === 'document' && typeof markdown !== 'string') {
        const read = await run.source.read<{ markdown?: string }>(`page ${page.id} of ${where}`, (c) =>
          changeRequestId
            ? c.spaces.getPageInChangeRequestById(spaceId, changeRequestId, page.id, { format: 'markdown' })
            : c.spaces.getPageById(spaceId, page.id, { format: 'markdown' }),
        );
        markdown = read.markdown;
      }
      out.push({ ...page, markdown, pages: await withMarkdown(page.pages ?? []) });
    }
    return out;
  };
  const files = await run.source.list<SourceFileInfo>(`files of ${where}`, (c, p) =>
    changeRequestId ? c.spaces.listFilesInChangeRequestById(spaceId, changeRequestId, { ...p, metadata: true }) : c.spaces.listFiles(spaceId, { ...p, metadata: true }),
  );
  const withBytes = [];
  for (const file of files) {
    const gitPath = typeof file.git?.path === 'string' ? { gitPath: file.git.path } : {};
    withBytes.push({ id: file.id, name: file.name, bytes: await run.source.download(file.downloadURL), ...gitPath });
  }
  const tree = await run.ctx.git.replaceInTree(repository, EMPTY_TREE, treeOfPages(await withMarkdown(pages), withBytes));
  const commit = await run.ctx.git.commitTree(repository, tree, parent ? [parent] : [], `Migrated from ${run.source.endpoint}`, {
    name: run.actor.user.display_name,
    email: run.actor.user.email,
  });
  await run.ctx.git.setRef(repository, ref, commit);
  return commit;
}

/** git's empty tree: the base of a tree written from nothing. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
