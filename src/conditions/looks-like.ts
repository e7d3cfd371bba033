/**
 * Telling an expression from plain words, for a find bar that takes both:
 * text that names an atom (`tool:`…), a `$` path, `dur`/`bytes` with a
 * comparison, `text ~` or `exists(` is an expression; anything else
 * (`rate limit`, `not found`) is words to search for. No I/O.
 *
 * @module
 */

const SIGNS = [
  /(?:^|[\s(])(?:method|tool|resource|prompt|node|from|is|status):/i,
  /(?:^|[\s(])\$(?:$|[.[\s])/,
  /(?:^|[\s(])(?:dur|bytes)\s*[<>]/i,
  /(?:^|[\s(])text\s*~/i,
  /(?:^|[\s(])exists\s*\(/i,
];

/** Does `text` use the language, or is it plain words for a text search? */
export function looksLikeCondition(text: string): boolean {
  return SIGNS.some((sign) => sign.test(text));
}
