// What the find bar's text is: plain words (a text search, as always), an
// expression of the condition language (docs/conditions.md), or an
// expression with a mistake in it (the error and where it is). Compiled once
// per text, not per call: the last text is kept.
import { compileCondition, looksLikeCondition, type Condition } from '../conditions/index.js';

/** The find bar's text, read. */
export type FindFilter =
  | { kind: 'words' }
  | { kind: 'condition'; text: string; condition: Condition }
  | { kind: 'invalid'; text: string; error: string; position: number };

const WORDS: FindFilter = { kind: 'words' };

let lastText = '';
let lastFilter: FindFilter = WORDS;

/**
 * Read the find bar's text. Plain words (nothing of the language in them)
 * stay a text search; anything else is compiled, and a mistake is reported
 * with its 0-based position in the text as typed.
 */
export function findFilter(text: string): FindFilter {
  if (text === lastText) return lastFilter;
  lastText = text;
  lastFilter = readFilter(text);
  return lastFilter;
}

function readFilter(text: string): FindFilter {
  const trimmed = text.trim();
  if (trimmed === '' || !looksLikeCondition(trimmed)) return WORDS;
  // The expression is compiled as typed, so a position points into the box as the user sees it.
  const compiled = compileCondition(text);
  if (compiled.ok) return { kind: 'condition', text: trimmed, condition: compiled.condition };
  const position = Math.max(0, Math.min(text.length, Math.trunc(Number.isFinite(compiled.position) ? compiled.position : 0)));
  return { kind: 'invalid', text, error: compiled.error, position };
}

/** The text around an error, split at its position: before, the character at it (a space past the end), after. */
export function errorParts(text: string, position: number): { before: string; at: string; after: string } {
  const at = Math.max(0, Math.min(text.length, position));
  const char = text.slice(at, at + 1);
  return { before: text.slice(0, at), at: char === '' ? ' ' : char, after: text.slice(at + 1) };
}

/** Characters of the expression shown either side of a mistake. */
const AROUND = 48;

/** Atoms that read an answer, each where an atom starts (not `$.params.text ~`, a path that ends in `text`). */
const ANSWER_SIGNS = /(?:^|[\s(])(?:dur\s*[<>=]|is:(?:error|answer)\b|status:(?:ok|error)\b|\$\.(?:result|error)\b|text\s*~)/i;

/**
 * The gate a rule made from `text` starts at: `after` when the expression
 * reads the answer (its time, its error, its result or its text), which a
 * request at the before gate does not have yet; else `before`.
 */
export function suggestedGate(text: string): 'before' | 'after' {
  return ANSWER_SIGNS.test(text) ? 'after' : 'before';
}

/** The expression around `position`, cut to a window, with where the mistake falls in the cut text. */
export function errorWindow(text: string, position: number): { before: string; at: string; after: string } {
  const parts = errorParts(text, position);
  const before = parts.before.length > AROUND ? `…${parts.before.slice(-AROUND)}` : parts.before;
  const after = parts.after.length > AROUND ? `${parts.after.slice(0, AROUND)}…` : parts.after;
  return { before, at: parts.at, after };
}

