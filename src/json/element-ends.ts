/**
 * The one scanner here that reads decoded JSON text rather than bytes: the
 * ingest's plain path has parsed a message from its text, and the log takes
 * each element's text by its offsets in that string (UTF-16 units, which
 * are not byte offsets once the text is not ASCII). Its rules are those of
 * skip.ts: a string ends at a quote after an even run of backslashes, and
 * only strings and brackets matter in valid JSON.
 *
 * @module
 */

import * as bytes from './bytes.js';

// Bound to module constants once (see bytes.ts).
const { QUOTE, BACKSLASH, COMMA, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT } = bytes;
const SPACE = 0x20;

/**
 * Where each element of a JSON array of objects ends: the index of the `,`
 * or `]` after it. Element `i` is `text.slice(ends[i - 1] + 1, ends[i])`
 * (with `ends[-1]` taken as 0).
 *
 * `text` must be valid JSON (it has just been parsed). Returns undefined
 * unless it is an array of `count` objects written compactly: whitespace
 * outside strings (which could be a newline) or anything unexpected makes
 * the caller stringify instead.
 */
export function arrayElementEnds(text: string, count: number): number[] | undefined {
  const last = text.length - 1;
  if (text.charCodeAt(0) !== OPEN_ARRAY || text.charCodeAt(last) !== CLOSE_ARRAY) return undefined;
  const ends: number[] = [];
  let i = 1;
  while (i < last) {
    if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined;
    let depth = 0;
    // Walk to the brace that closes this element: in valid JSON only strings and nesting matter.
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        // Jump to the closing quote: one not escaped by an odd run of backslashes.
        let close = text.indexOf('"', i + 1);
        for (;;) {
          let slashes = 0;
          while (text.charCodeAt(close - 1 - slashes) === BACKSLASH) slashes++;
          if ((slashes & 1) === 0) break;
          close = text.indexOf('"', close + 1);
        }
        if (close === -1) return undefined;
        i = close;
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        depth++;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        if (--depth === 0) break;
      } else if (c <= SPACE || Number.isNaN(c)) {
        return undefined;
      }
      i++;
    }
    i++;
    const separator = text.charCodeAt(i);
    if (separator !== COMMA && !(separator === CLOSE_ARRAY && i === last)) return undefined;
    ends.push(i);
    i++;
  }
  return ends.length === count ? ends : undefined;
}
