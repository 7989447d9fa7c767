/**
 * Two sequences of strings aligned (the lines of two versions of a page's markdown, or its rendered blocks): the
 * elements both start and end with are set aside, and the rest is aligned by a longest common subsequence over ids
 * given to each distinct element (the table compares numbers, not strings). The table is the product of the two
 * middles: past `maxMiddle` elements on a side of what differs, the middle is left unaligned, one replaced run.
 * Pure, and bounded by that product: its callers run it on the CPU pool.
 */

/**
 * One step of an alignment: an element kept (its index in each sequence), or a run of elements removed beside a run
 * added between two kept ones (half-open index ranges, one of them possibly empty). `unaligned`: the middle was too
 * long to align, and this run is all of it.
 */
export type AlignmentStep =
  | { kind: 'same'; before: number; after: number }
  | { kind: 'replaced'; before: [number, number]; after: [number, number]; unaligned?: true };

export function align(before: readonly string[], after: readonly string[], maxMiddle: number): AlignmentStep[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const steps: AlignmentStep[] = [];
  for (let i = 0; i < start; i++) steps.push({ kind: 'same', before: i, after: i });
  const n = endBefore - start;
  const m = endAfter - start;
  if (n > maxMiddle || m > maxMiddle) steps.push({ kind: 'replaced', before: [start, endBefore], after: [start, endAfter], unaligned: true });
  else if (n === 0 || m === 0) replaced(steps, start, endBefore, start, endAfter);
  else middle(before.slice(start, endBefore), after.slice(start, endAfter), start, steps);
  for (let i = endBefore, j = endAfter; i < before.length; i++, j++) steps.push({ kind: 'same', before: i, after: j });
  return steps;
}

function replaced(steps: AlignmentStep[], fromBefore: number, toBefore: number, fromAfter: number, toAfter: number): void {
  if (fromBefore < toBefore || fromAfter < toAfter) steps.push({ kind: 'replaced', before: [fromBefore, toBefore], after: [fromAfter, toAfter] });
}

/** The LCS alignment of two middles that differ at both ends, `offset` into the whole sequences. */
function middle(a: readonly string[], b: readonly string[], offset: number, steps: AlignmentStep[]): void {
  const ids = new Map<string, number>();
  const idOf = (element: string) => {
    let id = ids.get(element);
    if (id === undefined) ids.set(element, (id = ids.size));
    return id;
  };
  const x = Int32Array.from(a, idOf);
  const y = Int32Array.from(b, idOf);
  const n = x.length;
  const m = y.length;
  const width = m + 1;
  // lcs[i * width + j]: the longest common subsequence of x[i..] and y[j..] (at most 65,535: callers bound the middle).
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = x[i] === y[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  // Where the run of removals and additions since the last kept element starts, in each middle.
  let runI = 0;
  let runJ = 0;
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      replaced(steps, offset + runI, offset + i, offset + runJ, offset + j);
      steps.push({ kind: 'same', before: offset + i, after: offset + j });
      runI = ++i;
      runJ = ++j;
    } else if (j >= m || (i < n && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) i++;
    else j++;
  }
  replaced(steps, offset + runI, offset + n, offset + runJ, offset + m);
}
