import type { NodeDeclaration } from '../protocol/ingest.js';
import * as bytes from '../json/bytes.js';
import * as values from '../json/read-value.js';
import * as strict from '../json/strict-json.js';
import * as layout from '../protocol/ingest-batch-layout.js';
import { RawJson } from './raw-json.js';

// Bound to module constants once: V8 checks an imported binding each time it
// is used, a module constant it folds away (this runs for every event ingested).
const { RUN_ID_KEY, SEQ_KEY } = layout;
const { OPEN_OBJECT, QUOTE, startsWith } = bytes;
const { digitsValue, plainIntegerEnd, plainStringEnd } = values;
const { jsonValueEnd } = strict;

/** The most distinct node declarations remembered per connection. */
const MAX_NODES = 4096;

/**
 * The steps {@link BatchReader} reads a reporter's layout with: each starts
 * at the cursor ({@link BatchCursor.k}) and moves it past what it read, or
 * returns its mark of failure (-1, false, undefined) and the element is
 * read the plain way. With what they remember of the connection: its
 * nodes, its last run id.
 */
export class BatchCursor {
  /** Where the reader is reading. */
  protected k = 0;
  readonly #nodes = new Map<string, NodeDeclaration>();
  #lastNodeBytes: Buffer = Buffer.alloc(0);
  #lastNode: NodeDeclaration | undefined;
  #lastRunId = '';

  /** The bytes of `literal`. */
  protected literal(buf: Buffer, end: number, literal: Uint8Array): boolean {
    if (!startsWith(buf, this.k, end, literal)) return false;
    this.k += literal.length;
    return true;
  }

  /** `,"runId":"…"`: the run id, or undefined. */
  protected runIdField(buf: Buffer, end: number): string | undefined {
    if (!this.literal(buf, end, RUN_ID_KEY) || buf[this.k++] !== QUOTE) return undefined;
    const start = this.k;
    const close = this.quoted(buf, end);
    return close === -1 ? undefined : this.#runId(buf, start, close);
  }

  /** `,"seq":` and its digits: the seq, or -1. */
  protected seqField(buf: Buffer, end: number): number {
    return this.literal(buf, end, SEQ_KEY) ? this.integer(buf, end) : -1;
  }

  /** The text of a plain string (its opening quote already read): the index of its closing quote. */
  protected quoted(buf: Buffer, end: number): number {
    const close = plainStringEnd(buf, this.k, end);
    if (close !== -1) this.k = close + 1;
    return close;
  }

  /** A plain string, opening quote and all: its text, or undefined. */
  protected text(buf: Buffer, end: number): string | undefined {
    if (buf[this.k++] !== QUOTE) return undefined;
    const start = this.k;
    const close = this.quoted(buf, end);
    return close === -1 ? undefined : buf.toString('latin1', start, close);
  }

  /** A non-negative integer in plain digits (no sign, fraction or exponent). */
  protected integer(buf: Buffer, end: number): number {
    const digitsStop = plainIntegerEnd(buf, this.k, end);
    if (digitsStop === -1) return -1;
    const value = digitsValue(buf, this.k, digitsStop);
    this.k = digitsStop;
    return value;
  }

  /** A request id: a plain string or a plain integer (see {@link quoted}, {@link integer}); undefined for any other. */
  protected requestId(buf: Buffer, end: number): string | number | undefined {
    if (buf[this.k] !== QUOTE) {
      const id = this.integer(buf, end);
      return id === -1 ? undefined : id;
    }
    return this.text(buf, end);
  }

  /** A strictly valid JSON value: where it ends. */
  protected value(buf: Buffer, end: number): number {
    const valueEnd = jsonValueEnd(buf, this.k, end);
    if (valueEnd !== -1) this.k = valueEnd;
    return valueEnd;
  }

  /** A strictly valid JSON value, kept as its text. */
  protected rawJson(buf: Buffer, end: number): RawJson | undefined {
    const valueStart = this.k;
    const valueEnd = this.value(buf, end);
    return valueEnd === -1 ? undefined : new RawJson(buf, valueStart, valueEnd);
  }

  /** A node declaration (strictly valid JSON): the same object for the same text. */
  protected nodeValue(buf: Buffer, end: number): NodeDeclaration | undefined {
    // The last node's bytes again: an object ends where its bytes do, so the same bytes are the same value, unscanned.
    if (this.#lastNode !== undefined && this.#lastNodeBytes[0] === OPEN_OBJECT && this.literal(buf, end, this.#lastNodeBytes)) return this.#lastNode;
    const start = this.k;
    const valueEnd = this.value(buf, end);
    return valueEnd === -1 ? undefined : this.#node(buf, start, valueEnd);
  }

  /** The node declared by the JSON at `[start, end)`: the same object for the same text. */
  #node(buf: Buffer, start: number, end: number): NodeDeclaration | undefined {
    // Calls to one tool follow each other: the last node first, without a string or a lookup.
    if (this.#lastNode !== undefined && this.#lastNodeBytes.compare(buf, start, end) === 0) return this.#lastNode;
    const text = buf.toString('utf8', start, end);
    let node = this.#nodes.get(text);
    if (node === undefined) {
      try {
        node = JSON.parse(text) as NodeDeclaration;
      } catch {
        return undefined;
      }
      // Not checked here: validateEvent checks the event, its node included.
      if (this.#nodes.size >= MAX_NODES) this.#nodes.clear();
      this.#nodes.set(text, node);
    }
    this.#lastNode = node;
    this.#lastNodeBytes = Buffer.from(buf.subarray(start, end));
    return node;
  }

  /**
   * A plain string, opening quote and all: `last` itself when the text is
   * the same (no new string for a value every run repeats), else its text;
   * undefined if it is not one.
   */
  protected textLike(buf: Buffer, end: number, last: string): string | undefined {
    if (buf[this.k++] !== QUOTE) return undefined;
    const start = this.k;
    const close = this.quoted(buf, end);
    return close === -1 ? undefined : sameText(buf, start, close, last) ? last : buf.toString('latin1', start, close);
  }

  /** The run id at `[start, end)`: the string of the last one when the bytes are the same. */
  #runId(buf: Buffer, start: number, end: number): string {
    // No copy of the last id's bytes is kept: an adapter's runs each have a new id.
    if (sameText(buf, start, end, this.#lastRunId)) return this.#lastRunId;
    const runId = buf.toString('latin1', start, end);
    this.#lastRunId = runId;
    return runId;
  }
}

/** Are the plain ASCII bytes `[start, end)` the characters of `text` (not empty)? */
function sameText(buf: Buffer, start: number, end: number, text: string): boolean {
  if (text.length !== end - start || text === '') return false;
  let k = 0;
  while (k < text.length && text.charCodeAt(k) === buf[start + k]) k++;
  return k === text.length;
}
