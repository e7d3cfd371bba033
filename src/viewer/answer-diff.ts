// The side-by-side diff of a call's answers (see answer-pairs.ts for which):
// each answer as pretty JSON in its own column, a line the other side lacks
// or has otherwise marked. The answers are untrusted (the server's, or typed
// into the inject editor): every line goes in as text, never as markup.
import type { Instance } from '../protocol/run-model.js';
import { answerPairs, type AnswerPair, type AnswerSide } from './answer-pairs.js';
import { el, setAttr } from './dom.js';
import { pretty } from './format.js';
import { diffLines, type DiffRow } from './line-diff.js';

/** Rows drawn before "Show all" (a huge answer would make the call's row unwieldy). */
const SHOWN_ROWS = 400;

/** The diffs of `instance`'s answers, or null when it has none to show. */
export function answerDiffs(instance: Instance): HTMLElement | null {
  const pairs = answerPairs(instance);
  if (pairs.length === 0) return null;
  return el('div', { class: 'answer-diffs' }, ...pairs.map(pairBlock));
}

/** One pair: its caption, the two titles, and the rows. */
function pairBlock(pair: AnswerPair): HTMLElement {
  const rows = diffLines(lines(pair.left.value), lines(pair.right.value));
  const same = rows.every((row) => row.kind === 'same');
  const grid = el('div', { class: 'diff-grid', attrs: { role: 'group', 'aria-label': pair.caption } }, heading(pair.left, 'left'), heading(pair.right, 'right'));
  const drawn = Math.min(rows.length, SHOWN_ROWS);
  for (let i = 0; i < drawn; i++) grid.append(...cells(rows[i] as DiffRow));
  const block = el(
    'details',
    { class: 'answer-diff' },
    el('summary', {}, el('span', { class: 'json-label', text: pair.caption }), same ? el('span', { class: 'muted diff-same', text: ' · the same' }) : null),
    grid,
  );
  block.open = true;
  setAttr(block, 'data-diff', pair.key);
  if (rows.length > drawn) {
    block.append(el('p', { class: 'muted', text: `${(rows.length - drawn).toLocaleString()} more lines not shown: copy the output above to compare them all.` }));
  }
  return block;
}

/** A value as the lines of its pretty JSON. */
function lines(value: unknown): string[] {
  return value === undefined ? ['(nothing)'] : pretty(value).split('\n');
}

function heading(answer: AnswerSide, where: 'left' | 'right'): HTMLElement {
  return el('div', { class: `diff-title diff-${where}` }, el('span', { class: `pill status-${answer.status}`, text: answer.status }), ' ', answer.title);
}

/** The two cells of a row; a side with no line there is an empty cell. */
function cells(row: DiffRow): HTMLElement[] {
  const mark = row.kind === 'same' ? '' : ' diff-mark';
  const left = el('pre', { class: `diff-cell diff-left${row.left === undefined ? ' diff-none' : mark}`, text: row.left ?? '' });
  const right = el('pre', { class: `diff-cell diff-right${row.right === undefined ? ' diff-none' : mark}`, text: row.right ?? '' });
  setAttr(left, 'data-kind', row.kind);
  setAttr(right, 'data-kind', row.kind);
  return [left, right];
}
