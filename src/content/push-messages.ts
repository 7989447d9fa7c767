/**
 * What a refused push prints, for people and for programs. Every refusal starts with one line
 * `<PUSH_REFUSED_MARKER> <reason>` (the git client shows it as `remote: quire-push-refused stale`), so a program
 * (`quire sync`) can tell a refusal and its reason from the client's output without reading English; the lines
 * after it say the same for people.
 */

/** The first word of the first line of every refusal. */
export const PUSH_REFUSED_MARKER = 'quire-push-refused';

/**
 * Why a push was refused: `stale`, a ref moved since the client fetched it (fetch, rebase or merge, push again);
 * `invalid`, the pushed content breaks a rule (the lines after name the files); `busy`, the repository stayed
 * locked by other writers too long (push again); `failed`, the server could not check the push.
 */
export type PushRefusal = 'stale' | 'invalid' | 'busy' | 'failed';

/** The marker line of a refusal. */
export function refusalLine(reason: PushRefusal): string {
  return `${PUSH_REFUSED_MARKER} ${reason}`;
}

/** `refs/heads/main` -> `main`: the name the client pushed to. */
function branchName(ref: string): string {
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
}

/** The refusal of a push whose refs moved since the client fetched them. */
export function staleRefusal(refs: readonly string[]): string[] {
  return [refusalLine('stale'), ...refs.map((ref) => `${branchName(ref)} moved since you fetched it: fetch, rebase (or merge) and push again`)];
}

/** The refusal of a push whose content breaks the rules: one indented line per problem, as formatted by the caller. */
export function invalidRefusal(problems: readonly string[]): string[] {
  return [refusalLine('invalid'), 'Quire refused the push (nothing was changed):', ...problems.map((problem) => `  ${problem}`)];
}

/** The refusal of a push that waited too long for other writers of the repository. */
export function busyRefusal(waitedMs: number): string[] {
  return [refusalLine('busy'), `the space's repository stayed busy with other writes for ${Math.round(waitedMs / 1000)} s; nothing was changed: push again`];
}

/** The refusal of a push the server could not check. */
export function failedRefusal(reason: string): string[] {
  return [refusalLine('failed'), `Quire could not check the push, so it was refused: ${reason}`];
}
