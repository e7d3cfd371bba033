/**
 * Regular expressions for `~`: compiled by re2js, a port of RE2 that
 * matches in time linear in the text (no backtracking, so `(a+)+$` on a
 * long string cannot hang the relay), case-insensitive, their length
 * bounded by {@link MAX_REGEX_LENGTH}. A plain substring (no regex syntax
 * at all) is searched by V8's engine instead: nothing in it can backtrack.
 * No I/O.
 *
 * @module
 */
import { RE2JS } from 're2js';
import { MAX_REGEX_LENGTH } from './limits.js';

/** A compiled regular expression, or why it cannot be. */
export type CompiledRegex = { ok: true; regex: TextTest } | { ok: false; error: string };

/** A compiled regular expression: does it match somewhere in `text`? */
export interface TextTest {
  test(text: string): boolean;
}

/** A pattern with no regex syntax at all: a plain substring. */
const LITERAL = /^[^\\^$.|?*+()[\]{}]*$/;

/** Compile `source` (case-insensitive, unanchored: it matches anywhere in the text). */
export function compileRegex(source: string): CompiledRegex {
  if (source.length > MAX_REGEX_LENGTH) return { ok: false, error: `the regular expression is ${source.length} characters long; at most ${MAX_REGEX_LENGTH}` };
  try {
    const regex = RE2JS.compile(source, RE2JS.CASE_INSENSITIVE);
    // A plain substring (`PAY-`, `rate limit`) has no quantifier to backtrack over: V8's own engine finds it in linear time, several times faster than re2js.
    return { ok: true, regex: LITERAL.test(source) ? new RegExp(source, 'i') : regex };
  } catch (error) {
    // re2js says what is wrong ("missing closing )"); RE2 has no backreferences or look-around, and says so.
    const message = (error instanceof Error ? error.message : String(error)).replace("`(?i)", "`");
    return { ok: false, error: `bad regular expression: ${message}` };
  }
}
