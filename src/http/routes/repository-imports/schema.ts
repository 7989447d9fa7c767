import { Type } from 'typebox';
import { ReferenceGitBookkeeping } from '../../schemas.js';
import { SpaceSchema } from '../spaces/schema.js';
import { SiteSchema } from '../sites/schema.js';

const Ref = Type.String({ minLength: 1, maxLength: 255, description: 'Git ref to import ("refs/heads/main", "main"); default: the repository\'s HEAD' });

/** POST /v1/orgs/{organizationId}/git/import (a Quire extension). */
export const ImportRepositoryBody = Type.Object({
  url: Type.String({ format: 'uri', description: 'http(s) URL of the git repository to import, with its history' }),
  ref: Type.Optional(Ref),
});

/** POST /v1/orgs/{organizationId}/git/import/upload: the body is a git bundle or a zip of a repository. */
export const ImportUploadQuery = Type.Object({ ref: Type.Optional(Ref) });

export const RepositoryImportResultSchema = Type.Object({
  revision: Type.String({ description: 'The imported commit: main of every space made' }),
  projects: Type.Array(
    Type.Object({
      key: Type.String({ description: "docs.yaml's key of the space, else its project directory" }),
      projectDirectory: Type.String({ description: "The space's project directory in the repository ('' for the root)" }),
      language: Type.Optional(Type.String({ description: "docs.yaml's content.language" })),
      space: SpaceSchema,
    }),
  ),
  site: Type.Optional(SiteSchema),
  skipped: Type.Array(Type.String(), { description: 'Keys of docs.yaml spaces whose directory is null: not imported' }),
});

/** POST /v1/spaces/{spaceId}/git/import: the reference's ImportGitRepository (the fields Quire uses). */
export const ImportGitRepositoryBody = Type.Object({
  url: Type.String({ format: 'uri', description: 'http(s) URL of the git repository to import' }),
  ref: Type.String({ minLength: 1, maxLength: 255, description: 'Git ref to import in the format "refs/heads/main"' }),
  repoProjectDirectory: Type.Optional(Type.String({ maxLength: 1000, description: 'Path to a root directory for the project in the repository' })),
  force: Type.Optional(Type.Boolean({ description: "Replace main even when it has commits the repository's ref does not contain (admin)" })),
  standalone: Type.Optional(Type.Boolean()),
  ...ReferenceGitBookkeeping,
});
