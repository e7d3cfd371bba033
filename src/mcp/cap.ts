/**
 * Value capping, pure: every big value in a result is cut to a number of
 * characters, and a cut always says how much was left out, so neither the
 * assistant nor its user mistakes a part for the whole.
 *
 * @module
 */

/** What a cut text ends with: how many characters were left out. */
export function truncationMarker(more: number): string {
  return `… [truncated, ${more} more characters]`;
}

/** A text after {@link capText}. */
export interface CappedText {
  /** The text, or its first characters followed by {@link truncationMarker}. */
  text: string;
  /** Characters left out; 0 when the text was whole. */
  more: number;
}

/**
 * Keep the first `max` characters of `text` (UTF-16 units, as `length`
 * counts them) and mark the cut. A cut never splits a surrogate pair: the
 * high half goes with the rest, and is counted among the characters left out.
 */
export function capText(text: string, max: number): CappedText {
  if (text.length <= max) return { text, more: 0 };
  let cut = Math.max(0, max);
  const last = text.charCodeAt(cut - 1);
  if (cut > 0 && last >= 0xd800 && last <= 0xdbff) cut--;
  const more = text.length - cut;
  return { text: `${text.slice(0, cut)}${truncationMarker(more)}`, more };
}

/** A JSON value after {@link capValue}. */
export interface CappedValue {
  /**
   * The value itself when it fits; else the first characters of its JSON
   * text (of the string itself, for a string) followed by
   * {@link truncationMarker}.
   */
  value: unknown;
  /** Characters left out; 0 when the value is whole. */
  more: number;
}

/**
 * Cap a JSON value at `max` characters of its JSON text. A value that fits
 * is returned as it is (structured, for the assistant to read); one that
 * does not becomes a cut text. A string is measured and cut as itself, not
 * as its quoted JSON, so the text stays readable.
 */
export function capValue(value: unknown, max: number): CappedValue {
  if (typeof value === 'string') {
    const capped = capText(value, max);
    return { value: capped.text, more: capped.more };
  }
  const json = jsonText(value);
  if (json.length <= max) return { value, more: 0 };
  const capped = capText(json, max);
  return { value: capped.text, more: capped.more };
}

/**
 * A one-line preview of a value for a list row: a string as itself, any
 * other value as compact JSON, runs of white space (line breaks included)
 * as one space, cut at `max` characters with the marker.
 */
export function preview(value: unknown, max: number): string {
  const text = typeof value === 'string' ? value : jsonText(value);
  return capText(text.replace(/\s+/g, ' '), max).text;
}

/** `JSON.stringify`, total: a value it cannot write (a cycle, a BigInt, undefined) is described instead. */
export function jsonText(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text;
  } catch {
    return String(value);
  }
}
