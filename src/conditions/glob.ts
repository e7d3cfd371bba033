/**
 * Globs for the atoms (`tool:search_*`, `method:notifications/*`): `*` is
 * any run of characters (`/` included), `?` one character, everything else
 * itself, case-sensitive, and the glob matches the whole value. Matched
 * in place from an offset (no slicing), by the usual two-pointer walk that
 * backs up only to the last `*`: at worst the product of the two lengths,
 * both bounded. No I/O.
 *
 * @module
 */

/** Does `glob` match `text` from `offset` to its end? */
export function globMatches(glob: string, text: string, offset = 0): boolean {
  let g = 0;
  let t = offset;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    const char = glob.charCodeAt(g);
    if (g < glob.length && (char === 63 /* ? */ || (char !== 42 /* * */ && char === text.charCodeAt(t)))) {
      g++;
      t++;
    } else if (g < glob.length && char === 42) {
      star = g++;
      resume = t;
    } else if (star !== -1) {
      g = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (g < glob.length && glob.charCodeAt(g) === 42) g++;
  return g === glob.length;
}

/** A glob compiled: does it match `text` from `offset` to its end? */
export type GlobTest = (text: string, offset: number) => boolean;

/** Compile `glob`: a glob with no wildcard is a plain comparison, one ending in its only `*` a prefix test. */
export function compileGlob(glob: string): GlobTest {
  const star = glob.indexOf('*');
  if (!glob.includes('?') && (star === -1 || star === glob.length - 1)) {
    if (star === -1) return (text, offset) => text.length - offset === glob.length && text.startsWith(glob, offset);
    const head = glob.slice(0, -1);
    return (text, offset) => text.startsWith(head, offset);
  }
  return (text, offset) => globMatches(glob, text, offset);
}
