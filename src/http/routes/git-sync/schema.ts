import { Type } from 'typebox';
import { ReferenceGitBookkeeping } from '../../schemas.js';

/** PUT /v1/spaces/{spaceId}/git/sync (a Quire extension): connect the space to a branch of a repository. */
export const ConnectGitSyncBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'The git repository: its https URL (plain http only to a host QUIRE_FETCH_ALLOW allows), or an SSH one (ssh://git@host/owner/name.git or git@host:owner/name.git) with auth.sshPrivateKey',
    }),
    ref: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'The branch ("refs/heads/main" or "main"); default refs/heads/main' })),
    projectDirectory: Type.Optional(Type.String({ maxLength: 1000, description: "The space's folder in the repository; default the space's own" })),
    auth: Type.Optional(
      Type.Object(
        {
          username: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The name sent with the token; default x-access-token' })),
          token: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'A personal access token or deploy token of the host (stored encrypted, never returned)' })),
          sshPrivateKey: Type.Optional(
            Type.String({
              maxLength: 16384,
              description: "With an SSH URL: a deploy key, the private key (OpenSSH or PEM, without passphrase) whose public key the host has (stored encrypted, never returned); the host's own key is trusted on first use",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    firstSync: Type.String({ description: '"import": the repository\'s history becomes the space\'s; "export": the space\'s history is pushed to the branch (absent, or one the space contains)' }),
    webhookSecret: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'The secret the host signs its webhook deliveries with (stored encrypted, never returned)' })),
    branches: Type.Optional(
      Type.Boolean({
        description: "Keep branches and change requests in step too: each of the host's branches matching branchPattern opens or updates a change request holding its commits, and each change request made in Quire appears on the host as the branch quire/cr-<number>; merging either side ends both",
      }),
    ),
    branchPattern: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'With branches: the host\'s branches that open change requests ("*" stands for any characters); default "docs/*"' })),
  },
  { additionalProperties: false },
);

/** A branch of the host kept in step with a change request. */
const GitSyncBranchSchema = Type.Object({
  branch: Type.String({ description: 'The branch on the host: one the pattern matches, or quire/cr-<number> for a change request made in Quire' }),
  origin: Type.Union([Type.Literal('host'), Type.Literal('quire')], { description: 'Where the branch was made' }),
  changeRequest: Type.Optional(Type.String({ description: "The change request holding the branch's commits (its id); absent while the branch holds nothing to review" })),
  commit: Type.Optional(Type.String({ description: 'Where both sides were when last in step' })),
  error: Type.Optional(Type.String({ description: 'Why the last run could not bring the two in step, and what to do' })),
});

/** The space's `gitSync`: the reference's fields, and Quire's own. */
export const GitSyncSchema = Type.Object({
  repoName: Type.String({ description: 'owner/name of the repository' }),
  installationProvider: Type.Optional(Type.String({ description: '"github" or "gitlab" when the host is one of them' })),
  integration: Type.Literal('quire'),
  url: Type.String({ description: "The repository's web page (no credentials)" }),
  updatedAt: Type.String({ format: 'date-time' }),
  ref: Type.String(),
  projectDirectory: Type.String(),
  firstSync: Type.String(),
  status: Type.Union([Type.Literal('syncing'), Type.Literal('synced'), Type.Literal('conflict'), Type.Literal('error'), Type.Literal('paused')]),
  error: Type.Optional(Type.String({ description: 'What went wrong, and what to do' })),
  remoteCommit: Type.Optional(Type.String()),
  localCommit: Type.Optional(Type.String()),
  lastSyncedAt: Type.Optional(Type.String({ format: 'date-time' })),
  changeRequest: Type.Optional(Type.String({ description: "The change request holding the host's commits that conflict with main (its id)" })),
  notice: Type.Optional(Type.String({ description: 'News of the last run that moved commits: main followed a force-push on the host, and where the former main is kept' })),
  webhook: Type.Boolean({ description: 'Whether a webhook secret is set' }),
  branchPattern: Type.Optional(Type.String({ description: "With branches on: the host's branches that open change requests" })),
  branches: Type.Optional(Type.Array(GitSyncBranchSchema, { description: 'With branches on: each branch of the host kept in step with a change request' })),
});

/** POST /v1/spaces/{spaceId}/git/export (the reference's exportToGitRepository): push main to a branch, once. */
export const ExportToGitRepositoryBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2048, description: 'https URL of the git repository; it may carry HTTP Basic credentials, used for this push and kept nowhere' }),
  ref: Type.String({ minLength: 1, maxLength: 255, description: 'The branch to push to, "refs/heads/main"' }),
  commitMessage: Type.String({ maxLength: 10_000, description: "Not used: the space's commits are pushed as they are, with their own messages" }),
  force: Type.Optional(Type.Boolean({ description: 'Replace a branch that holds commits the space does not have' })),
  repoProjectDirectory: Type.Optional(Type.String({ description: "Not used: main's whole tree is pushed, the space's project directory in it" })),
  ...ReferenceGitBookkeeping,
});
