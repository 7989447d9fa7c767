import type { GitSyncState } from '../../../domain/git-sync/state.js';

/** The hosts the reference's `installationProvider` names. */
const PROVIDERS: Record<string, string> = { 'github.com': 'github', 'gitlab.com': 'gitlab' };

/** The space's `gitSync` object: the reference's fields (repository, provider, web URL) and the connection's state. */
export function presentGitSync(state: GitSyncState) {
  const url = new URL(state.url);
  const path = url.pathname.replace(/\/+$/, '').replace(/\.git$/, '');
  const provider = PROVIDERS[url.hostname.toLowerCase()];
  return {
    repoName: path.replace(/^\/+/, ''),
    ...(provider ? { installationProvider: provider } : {}),
    integration: 'quire' as const,
    url: `${url.origin}${path}`,
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
  };
}
