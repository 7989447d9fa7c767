import type { GitSyncState } from '../../../domain/git-sync/state.js';

/** The hosts the reference's `installationProvider` names. */
const PROVIDERS: Record<string, string> = { 'github.com': 'github', 'gitlab.com': 'gitlab' };

/**
 * The repository's web page: its https URL without `.git`. An SSH remote (`ssh://git@github.com/acme/docs.git`)
 * names no web page; the host's usual one is `https://<host>/<path>`, the SSH user and port left out.
 */
function webPage(url: URL, path: string): string {
  return url.protocol === 'ssh:' ? `https://${url.hostname}${path.replace(/^\/~[^/]*/, '')}` : `${url.origin}${path}`;
}

/** The space's `gitSync` object: the reference's fields (repository, provider, web URL) and the connection's state. */
export function presentGitSync(state: GitSyncState) {
  const url = new URL(state.url);
  const path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  const provider = PROVIDERS[url.hostname.toLowerCase()];
  return {
    repoName: path.replace(/^\/+/, '').replace(/^~[^/]*\//, ''),
    ...(provider ? { installationProvider: provider } : {}),
    integration: 'quire' as const,
    url: webPage(url, path),
    updatedAt: state.updatedAt,
    ref: state.ref,
    projectDirectory: state.projectDirectory,
    firstSync: state.firstSync,
    status: state.status,
    ...(state.error ? { error: state.error } : {}),
    ...(state.remoteCommit ? { remoteCommit: state.remoteCommit } : {}),
    ...(state.localCommit ? { localCommit: state.localCommit } : {}),
    ...(state.lastSyncedAt ? { lastSyncedAt: state.lastSyncedAt } : {}),
    ...(state.changeRequestId ? { changeRequest: state.changeRequestId } : {}),
    ...(state.notice ? { notice: state.notice } : {}),
    webhook: state.webhook,
    ...(state.branchPattern !== undefined ? { branchPattern: state.branchPattern } : {}),
    ...(state.branches
      ? { branches: state.branches.map(({ changeRequestId, ...branch }) => ({ ...branch, ...(changeRequestId ? { changeRequest: changeRequestId } : {}) })) }
      : {}),
  };
}
