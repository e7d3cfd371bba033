/**
 * How deep a recorded value may nest, and what is recorded in place of one
 * nested deeper. The relay has no such bound: its scanners read frames of
 * any depth with a stack that grows, and the bytes go on as they came. A
 * bound is needed only where something walks a value recursively (the
 * reporter's encoder, `JSON.stringify`, the debugger's API and viewer), so
 * a value recorded for the debugger is at most {@link RECORD_MAX_DEPTH}
 * levels deep; a deeper one is recorded as {@link tooDeepNote}, and its
 * call is still recorded as answered.
 *
 * @module
 */

/**
 * The deepest a recorded value may nest (the outermost object or array
 * counts as one level; a scalar is none). A deeper value (a call's input
 * or answer, a held message's params or result, an error's data) is
 * recorded as {@link tooDeepNote}.
 */
export const RECORD_MAX_DEPTH = 256;

/**
 * The deepest JSON text the debugger accepts from a reporter or in a
 * request body: a recorded value with what a message puts around it (a
 * batch, an event, a group of calls, a held frame), with room to spare.
 * Anything up to it can be serialised again without overflowing the stack.
 */
export const MESSAGE_MAX_DEPTH = 2 * RECORD_MAX_DEPTH;

/** The words of the note recorded in place of a value nested too deep. */
export const TOO_DEEP = 'too deep to record';

/** The note recorded in place of a value nested deeper than {@link RECORD_MAX_DEPTH}. */
export interface TooDeepNote {
  /** Always {@link TOO_DEEP}: the key is the one the record's other notes use (a frame too large, say). */
  '[graphmind]': typeof TOO_DEEP;
  /** The bound that was passed: {@link RECORD_MAX_DEPTH}. */
  maxDepth: number;
}

/** `{ "[graphmind]": "too deep to record", "maxDepth": 256 }`: what is recorded in place of a value nested too deep. */
export function tooDeepNote(): TooDeepNote {
  return { '[graphmind]': TOO_DEEP, maxDepth: RECORD_MAX_DEPTH };
}

/**
 * True if `value` nests more than `maxDepth` levels of objects and arrays
 * (as `JSON.stringify` would walk them: the enumerable keys of an object).
 * It stops at the first level past the bound, so its own stack is at most
 * `maxDepth` calls deep, and a value with a cycle counts as too deep.
 */
export function nestsDeeper(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth === 0) return true;
  const below = maxDepth - 1;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null && nestsDeeper(item, below)) return true;
    }
    return false;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (typeof item === 'object' && item !== null && nestsDeeper(item, below)) return true;
  }
  return false;
}

/** `value` as it can be recorded: itself, or {@link tooDeepNote} if it nests deeper than {@link RECORD_MAX_DEPTH}. */
export function recordable(value: unknown): unknown {
  return typeof value === 'object' && value !== null && nestsDeeper(value, RECORD_MAX_DEPTH) ? tooDeepNote() : value;
}
