/**
 * The bounds of the condition language. An expression comes from a person
 * (the find bar, a rule, a `where`) and is evaluated per frame in the relay,
 * so every size it can take is bounded here, in one place.
 *
 * @module
 */

/** The longest expression accepted, in characters. */
export const MAX_CONDITION_LENGTH = 4096;

/** How deep parentheses and `not` may nest. */
export const MAX_DEPTH = 64;

/** The longest regular expression accepted (after `~`), in characters. */
export const MAX_REGEX_LENGTH = 256;

/** The longest string shown for `text` in {@link conditionValues} (the text a model reads can be megabytes). */
export const MAX_VALUE_TEXT = 1000;
