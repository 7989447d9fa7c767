/**
 * Where space repositories live and how they are created, copied and removed. The only code that knows the
 * disk layout: `<dataDir>/repositories/<first two chars of id>/<id>.git`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { runGit } from './run.js';

const SAFE_ID = /^[a-zA-Z0-9_-]+$/;

export interface Signature {
  name: string;
  email: string;
}

export interface InitialFile {
  path: string;
  content: string;
}

export const QUIRE_SIGNATURE: Signature = { name: 'Quire', email: 'quire@localhost' };

/**
 * A signature git accepts. Git refuses an ident whose name is only "crud" (`.`, `,`, `:`, `;`, `<`, `>`, quotes,
 * spaces) and strips angle brackets and line breaks; display names are free text, so such names fall back to the
 * e-mail's local part, then to "Quire user".
 */
export function gitSignature(signature: Signature): Signature {
  const clean = (text: string) => text.replace(/[<>\0\r\n]/g, '').trim();
  const usable = (text: string) => /[^\s.,:;<>"'\\]/.test(text);
  const email = clean(signature.email);
  const candidates = [clean(signature.name), email.split('@')[0]];
  return { name: candidates.find(usable) ?? 'Quire user', email };
}

export class GitStore {
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'repositories');
  }

  /** Absolute path of a space's bare repository. Ids outside `[a-zA-Z0-9_-]` are refused, so no `..` escapes. */
  repositoryPath(spaceId: string): string {
    if (!SAFE_ID.test(spaceId) || spaceId.length < 2) throw new Error(`unsafe repository id "${spaceId}"`);
    return path.join(this.root, spaceId.slice(0, 2), `${spaceId}.git`);
  }

  /**
   * Creates the bare repository with a first commit on main holding `files`, and returns that commit's oid.
   * Objects are written with plumbing (hash-object, mktree, commit-tree), so no working tree is involved. Fails
   * (EEXIST) when the repository already exists; a repository left half-made by a failing step is removed.
   */
  async createRepository(spaceId: string, files: InitialFile[], message: string, author: Signature): Promise<string> {
    const gitDir = this.repositoryPath(spaceId);
    await fs.mkdir(path.dirname(gitDir), { recursive: true });
    // Claimed exclusively (EEXIST otherwise), so the cleanup below only ever removes what this call made.
    await fs.mkdir(gitDir);
    try {
      return await this.initialize(gitDir, files, message, author);
    } catch (error) {
      await fs.rm(gitDir, { recursive: true, force: true });
      throw error;
    }
  }

  private async initialize(gitDir: string, files: InitialFile[], message: string, author: Signature): Promise<string> {
    await runGit(['init', '--bare', '--quiet', '--initial-branch=main', gitDir]);
    // Pushes are checked by Quire itself; receive.denyNonFastForwards would block legitimate force-pushes to CRs.
    await runGit(['config', 'core.logAllRefUpdates', 'true'], { gitDir });
    const tree = await this.writeFlatTree(gitDir, files);
    const when = `${Math.floor(Date.now() / 1000)} +0000`;
    const signature = gitSignature(author);
    const env = {
      GIT_AUTHOR_NAME: signature.name,
      GIT_AUTHOR_EMAIL: signature.email,
      GIT_AUTHOR_DATE: when,
      GIT_COMMITTER_NAME: QUIRE_SIGNATURE.name,
      GIT_COMMITTER_EMAIL: QUIRE_SIGNATURE.email,
      GIT_COMMITTER_DATE: when,
    };
    const commit = (await runGit(['commit-tree', tree, '-m', message], { gitDir, env })).toString().trim();
    // The all-zero old value makes this a compare-and-swap: it fails if main already exists.
    await runGit(['update-ref', 'refs/heads/main', commit, '0'.repeat(40)], { gitDir });
    return commit;
  }

  /** Files at the top level only; nested trees come with the content writer. */
  private async writeFlatTree(gitDir: string, files: InitialFile[]): Promise<string> {
    const entries: string[] = [];
    for (const file of files) {
      if (file.path.includes('/')) throw new Error('writeFlatTree: nested paths are not supported');
      const blob = (await runGit(['hash-object', '-w', '--stdin'], { gitDir, input: file.content })).toString().trim();
      entries.push(`100644 blob ${blob}\t${file.path}`);
    }
    return (await runGit(['mktree'], { gitDir, input: entries.join('\n') + '\n' })).toString().trim();
  }

  /** The oid a ref points at, or undefined. */
  async resolveRef(spaceId: string, ref = 'refs/heads/main'): Promise<string | undefined> {
    try {
      return (await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { gitDir: this.repositoryPath(spaceId) })).toString().trim();
    } catch {
      return undefined;
    }
  }

  async exists(spaceId: string): Promise<boolean> {
    try {
      await fs.access(path.join(this.repositoryPath(spaceId), 'HEAD'));
      return true;
    } catch {
      return false;
    }
  }

  /** Removes the repository for good. */
  async removeRepository(spaceId: string): Promise<void> {
    await fs.rm(this.repositoryPath(spaceId), { recursive: true, force: true });
  }
}
