// Two texts side by side, line against line: the rule the answer diff draws
// with. Pure (no DOM), so a playbook test runs it in Node. Lines both sides
// share are kept (a longest common subsequence); between two shared lines,
// what only the left has is set beside what only the right has, row by row,
// so a changed value sits opposite the value it replaced.

/** How one row of a side-by-side diff reads. */
export type DiffKind = 'same' | 'changed' | 'left' | 'right';

/** One row: a line of the left text, of the right text, or of both. */
export interface DiffRow {
  /** `same`: the line is on both sides; `changed`: a left line beside the right line in its place; `left` / `right`: a line only that side has. */
  kind: DiffKind;
  /** The left line (absent on a `right` row). */
  left?: string;
  /** The right line (absent on a `left` row). */
  right?: string;
}

/**
 * Above this many cells (left lines × right lines, after the shared head
 * and tail are set aside) the middle is not searched for shared lines: it
 * is shown as one changed block. Keeps a diff of two huge answers from
 * freezing the page; answers that size differ mostly everywhere anyway.
 */
export const MAX_CELLS = 4_000_000;

/** The rows that show `left` beside `right` (see {@link DiffRow}). */
export function diffLines(left: readonly string[], right: readonly string[]): DiffRow[] {
  // The shared head and tail cost nothing to find and are most of a typical answer.
  let head = 0;
  while (head < left.length && head < right.length && left[head] === right[head]) head++;
  let tail = 0;
  while (tail < left.length - head && tail < right.length - head && left[left.length - 1 - tail] === right[right.length - 1 - tail]) tail++;
  const rows: DiffRow[] = left.slice(0, head).map((line) => ({ kind: 'same', left: line, right: line }));
  const a = left.slice(head, left.length - tail);
  const b = right.slice(head, right.length - tail);
  if (a.length * b.length > MAX_CELLS) pairUp(a, b, rows);
  else middle(a, b, rows);
  for (const line of left.slice(left.length - tail)) rows.push({ kind: 'same', left: line, right: line });
  return rows;
}

/** The middle of a diff by a longest common subsequence (a table of suffix lengths). */
function middle(a: readonly string[], b: readonly string[], rows: DiffRow[]): void {
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? (lcs[(i + 1) * width + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * width + j] as number, lcs[i * width + j + 1] as number);
    }
  }
  let i = 0;
  let j = 0;
  let onlyA: string[] = [];
  let onlyB: string[] = [];
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      pairUp(onlyA, onlyB, rows);
      onlyA = [];
      onlyB = [];
      rows.push({ kind: 'same', left: a[i] as string, right: b[j] as string });
      i++;
      j++;
    } else if (j < b.length && (i === a.length || (lcs[i * width + j + 1] as number) >= (lcs[(i + 1) * width + j] as number))) {
      onlyB.push(b[j++] as string);
    } else {
      onlyA.push(a[i++] as string);
    }
  }
  pairUp(onlyA, onlyB, rows);
}

/** Lines only one side has between two shared ones: set beside each other, the longer side's rest alone. */
function pairUp(a: readonly string[], b: readonly string[], rows: DiffRow[]): void {
  const both = Math.min(a.length, b.length);
  for (let k = 0; k < both; k++) rows.push({ kind: 'changed', left: a[k] as string, right: b[k] as string });
  for (let k = both; k < a.length; k++) rows.push({ kind: 'left', left: a[k] as string });
  for (let k = both; k < b.length; k++) rows.push({ kind: 'right', right: b[k] as string });
}
