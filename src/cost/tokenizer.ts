/**
 * The token counter behind every estimate: `gpt-tokenizer`'s `o200k_base`
 * encoding (the one OpenAI's GPT-4o, GPT-4.1, GPT-5 and o-series models
 * use), loaded on first use. Loading its vocabulary takes a few hundred
 * milliseconds, so a command that never shows a cost never pays for it.
 *
 * @module
 */
import { createRequire } from 'node:module';

/** The tokenizer every token figure comes from: a package, an encoding, and what the figure is. */
export const TOKENIZER: { package: string; encoding: string; note: string } = Object.freeze({
  package: 'gpt-tokenizer',
  encoding: 'o200k_base',
  note: 'an estimate: exact for OpenAI models that use o200k_base, about 20-30% low for Claude; see docs/context-cost.md',
});

/** What this module uses of the package's encoding. */
interface Encoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/**
 * Text up to this length is counted whole; longer text is counted on
 * {@link SAMPLES} windows spread over it and scaled to its length. Random
 * base64 counts at about 100 KiB a second (plain prose and JSON ten times
 * faster), and a reading side (serve, `graphmind mcp`) must not stall for
 * seconds on one huge result.
 */
export const MAX_COUNTED_CHARS = 64 * 1024;

/** How many windows of a long text are counted (see {@link MAX_COUNTED_CHARS}). */
export const SAMPLES = 8;

/**
 * Runs of letters, or of punctuation, longer than this are counted in
 * slices: the package's byte-pair merge is quadratic in the length of one
 * pre-token (64,000 letters without a break took 30 s), and a slice costs
 * at most one token more than the whole run would.
 */
export const MAX_RUN = 256;

const LONG_RUN = new RegExp(`[\\p{L}\\p{M}]{${MAX_RUN + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${MAX_RUN + 1},}`, 'gu');

/** Special tokens such as `<|endoftext|>` in a server's text are text, not control tokens. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

let encoding: Encoding | undefined;
let loadMs: number | undefined;

function load(): Encoding {
  if (encoding === undefined) {
    const start = performance.now();
    // Synchronous on purpose: the cost functions are plain functions, and the CommonJS build loads in one step.
    const required = createRequire(import.meta.url)('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding;
    encoding = required;
    loadMs = performance.now() - start;
  }
  return encoding;
}

/** How long loading the tokenizer took, in ms; undefined until something was counted. */
export function tokenizerLoadMs(): number | undefined {
  return loadMs;
}

/** A slice end at or before `end` that does not split a surrogate pair. */
function cutAt(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

function countRuns(counter: Encoding, text: string): number {
  let total = 0;
  let from = 0;
  LONG_RUN.lastIndex = 0;
  for (let match = LONG_RUN.exec(text); match !== null; match = LONG_RUN.exec(text)) {
    if (match.index > from) total += counter.countTokens(text.slice(from, match.index), AS_TEXT);
    const end = match.index + match[0].length;
    for (let at = match.index; at < end; ) {
      const next = Math.min(end, cutAt(text, at + MAX_RUN));
      total += counter.countTokens(text.slice(at, next), AS_TEXT);
      at = next;
    }
    from = end;
  }
  if (from < text.length) total += counter.countTokens(from === 0 ? text : text.slice(from), AS_TEXT);
  return total;
}

/**
 * The estimated number of tokens in `text` (see {@link TOKENIZER}). Text
 * longer than {@link MAX_COUNTED_CHARS} is counted on windows spread over
 * it (so a blob at its end weighs as it should) and scaled to the whole.
 */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const counter = load();
  if (text.length <= MAX_COUNTED_CHARS) return countRuns(counter, text);
  const window = Math.floor(MAX_COUNTED_CHARS / SAMPLES);
  const step = Math.floor(text.length / SAMPLES);
  let counted = 0;
  let chars = 0;
  for (let i = 0; i < SAMPLES; i++) {
    // Start past the second half of a surrogate pair, end before the first half of one.
    const low = text.charCodeAt(i * step);
    const start = low >= 0xdc00 && low <= 0xdfff ? i * step + 1 : i * step;
    const piece = text.slice(start, cutAt(text, start + window));
    counted += countRuns(counter, piece);
    chars += piece.length;
  }
  return Math.round((counted * text.length) / chars);
}
