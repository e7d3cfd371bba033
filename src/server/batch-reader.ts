import type { NodeDeclaration, RunEvent } from '../protocol/ingest.js';
import * as bytes from '../json/bytes.js';
import * as values from '../json/read-value.js';
import * as strict from '../json/strict-json.js';
import * as layout from '../protocol/ingest-batch-layout.js';
import { expandCompletedGroup, isCompletedGroup } from '../report/completed-group.js';
import { RawJson } from './raw-json.js';
import { validateEvent } from '../protocol/validate-event.js';

// The layout the bundled reporter writes a batch in, shared with its writer
// (report/encode-batch.ts), and the byte rules of src/json/, bound to module
// constants once: V8 checks an imported binding each time it is used, a
// module constant it folds away (this runs for every event ingested).
const { BATCH_OPEN, BATCH_SEPARATOR, BATCH_CLOSE, TYPE_LETTER_AT, STARTED_HEAD, FINISHED_HEAD, ERROR_HEAD, COMPLETED_HEAD } = layout;
const { NODE_KEY, INPUT_KEY, OUTPUT_KEY, ERROR_KEY, END_T_KEY, REQUEST_ID_KEY, RUN_ID_KEY, SEQ_KEY, T_KEY } = layout;
const { GROUP_HEAD, CALLS_KEY, CALL_OPEN, CALL_SEPARATOR, CALL_CLOSE, CALLS_CLOSE, GROUP_CLOSE } = layout;
const { OPEN_OBJECT, CLOSE_OBJECT, QUOTE, startsWith } = bytes;
const { digitsValue, plainIntegerEnd, plainStringEnd } = values;
const { jsonValueEnd } = strict;
// The letter that tells the heads apart, where they first differ.
const [STARTED_LETTER, FINISHED_LETTER, ERROR_LETTER, COMPLETED_LETTER] = [STARTED_HEAD, FINISHED_HEAD, ERROR_HEAD, COMPLETED_HEAD].map(
  (head) => head[TYPE_LETTER_AT] as number,
);

/** The head of the execution event whose type has `letter` where the heads differ; undefined for none. */
function headOf(letter: number | undefined): Buffer | undefined {
  if (letter === STARTED_LETTER) return STARTED_HEAD;
  if (letter === FINISHED_LETTER) return FINISHED_HEAD;
  if (letter === ERROR_LETTER) return ERROR_HEAD;
  return letter === COMPLETED_LETTER ? COMPLETED_HEAD : undefined;
}

/** The most distinct node declarations remembered per connection. */
const MAX_NODES = 4096;

/**
 * A batch as read: its events; where each element's text ends (the `,` or
 * `]` after it); and which element each event came from. An element is one
 * event, or a group of completed calls (see report/completed-group.ts) that
 * stands for several.
 */
export interface ReadBatch {
  events: RunEvent[];
  ends: number[];
  /** `elements[i]`: the index in `ends` of the element `events[i]` came from. */
  elements: number[];
  /** The elements that are groups, if any. */
  groups: Set<number> | undefined;
}

/**
 * Reads an ingest message from its bytes. The events a reporter sends most
 * (an execution starting and ending, two per call) are read straight from
 * the layout the reporter writes them in: their ids and times as plain
 * strings and numbers, their node declaration looked up among those met
 * before, their input and output checked as strict JSON and kept as text
 * ({@link RawJson}) rather than parsed into objects. Every other event, and
 * any of these written another way, is parsed in full. Either way the event
 * then passes {@link validateEvent}, the same check as the plain path.
 *
 * One reader per connection: it remembers that connection's nodes.
 */
export class BatchReader {
  readonly #nodes = new Map<string, NodeDeclaration>();
  #lastNodeBytes: Buffer = Buffer.alloc(0);
  #lastNode: NodeDeclaration | undefined;
  #lastRunIdBytes: Buffer = Buffer.alloc(0);
  #lastRunId = '';
  /** Where {@link #readExecution} is reading. */
  #k = 0;
  /** The element {@link #readElement} read last was a group of calls. */
  #grouped = false;

  /**
   * The events of a message that is a compact JSON array of event objects
   * (`[{…},{…}]`, nothing between them), every one of them valid. Undefined
   * for anything else, which the caller then parses the plain way (and
   * rejects if it is malformed).
   */
  read(buf: Buffer): ReadBatch | undefined {
    const last = buf.length - 1;
    if (last < 1 || buf[0] !== BATCH_OPEN || buf[last] !== BATCH_CLOSE) return undefined;
    const events: RunEvent[] = [];
    const ends: number[] = [];
    const elements: number[] = [];
    let groups: Set<number> | undefined;
    let at = 1;
    if (last === 1) return { events, ends, elements, groups };
    for (;;) {
      const before = events.length;
      this.#grouped = false;
      const end = this.#readElement(buf, at, last, events);
      if (end === -1) return undefined;
      const element = ends.length;
      ends.push(end);
      for (let i = before; i < events.length; i++) elements.push(element);
      // A group is marked as one whatever its size: its text is never an event's, even with one call in it.
      if (this.#grouped) (groups ??= new Set()).add(element);
      if (end === last) return { events, ends, elements, groups };
      if (buf[end] !== BATCH_SEPARATOR) return undefined;
      at = end + 1;
    }
  }

  /** Read the element at `at` (an event, or a group of them) into `events`; the index just past it, or -1. */
  #readElement(buf: Buffer, at: number, end: number, events: RunEvent[]): number {
    if (buf[at] !== OPEN_OBJECT) return -1;
    const before = events.length;
    const group = startsWith(buf, at, end, GROUP_HEAD);
    const fast = group ? this.#readGroup(buf, at, end, events) : this.#readExecution(buf, at, end, events);
    if (fast !== -1) {
      this.#grouped = group;
      return fast;
    }
    events.length = before;
    // Another kind of event, or one written differently: parsed in full.
    const close = jsonValueEnd(buf, at, end);
    if (close === -1) return -1;
    let expanded: unknown[] | undefined;
    try {
      const value: unknown = JSON.parse(buf.toString('utf8', at, close));
      this.#grouped = isCompletedGroup(value);
      expanded = expandCompletedGroup(value);
    } catch {
      return -1;
    }
    if (expanded === undefined) return -1;
    for (const item of expanded) {
      const event = validateEvent(item);
      if (event === undefined) return -1;
      events.push(event);
    }
    return close;
  }

  /**
   * A group of completed calls in the reporter's own layout: each call read
   * as {@link #readExecution} reads an `instance.completed` event, or -1
   * (what was pushed is the caller's to take back).
   */
  #readGroup(buf: Buffer, at: number, end: number, events: RunEvent[]): number {
    this.#k = at + GROUP_HEAD.length;
    const nodeStart = this.#k;
    const nodeEnd = this.#value(buf, end);
    const node = nodeEnd === -1 ? undefined : this.#node(buf, nodeStart, nodeEnd);
    if (node === undefined) return -1;
    const runId = this.#runIdField(buf, end);
    const seq = runId === undefined ? -1 : this.#seqField(buf, end);
    if (seq === -1 || !this.#literal(buf, end, CALLS_KEY)) return -1;
    for (let k = 0; ; k++) {
      if (buf[this.#k++] !== CALL_OPEN || buf[this.#k++] !== QUOTE) return -1;
      const idStart = this.#k;
      const idEnd = this.#quoted(buf, end);
      if (idEnd === -1 || buf[this.#k++] !== CALL_SEPARATOR) return -1;
      const instanceId = buf.toString('latin1', idStart, idEnd);
      const t = this.#integer(buf, end);
      if (t === -1 || buf[this.#k++] !== CALL_SEPARATOR) return -1;
      const endT = this.#integer(buf, end);
      if (endT === -1 || buf[this.#k++] !== CALL_SEPARATOR) return -1;
      const input = this.#rawJson(buf, end);
      if (input === undefined || buf[this.#k++] !== CALL_SEPARATOR) return -1;
      const output = this.#rawJson(buf, end);
      if (output === undefined) return -1;
      // A sixth slot: the call's request id (a call without one has five).
      let requestId: string | number | undefined;
      if (buf[this.#k] === CALL_SEPARATOR) {
        this.#k++;
        requestId = this.#requestId(buf, end);
        if (requestId === undefined) return -1;
      }
      if (buf[this.#k++] !== CALL_CLOSE) return -1;
      const valid = validateEvent({ type: 'instance.completed', instanceId, node, input, output, endT, requestId, runId, seq: seq + k, t });
      if (valid === undefined) return -1;
      events.push(valid);
      const after = buf[this.#k++];
      if (after === CALL_SEPARATOR) continue;
      if (after !== CALLS_CLOSE || buf[this.#k] !== GROUP_CLOSE) return -1;
      return this.#k + 1;
    }
  }

  /** An execution's event in the reporter's own layout, or -1 (nothing pushed). */
  #readExecution(buf: Buffer, at: number, end: number, events: RunEvent[]): number {
    const head = headOf(buf[at + TYPE_LETTER_AT]);
    if (head === undefined || !startsWith(buf, at, end, head)) return -1;
    this.#k = at + head.length;
    if (buf[this.#k++] !== QUOTE) return -1;
    const idStart = this.#k;
    const idEnd = this.#quoted(buf, end);
    if (idEnd === -1) return -1;
    const instanceId = buf.toString('latin1', idStart, idEnd);

    let node: NodeDeclaration | undefined;
    let input: RawJson | undefined;
    let output: RawJson | undefined;
    let error: unknown;
    let endT = 0;
    let requestId: string | number | undefined;
    const started = head === STARTED_HEAD || head === COMPLETED_HEAD;
    if (started) {
      if (!this.#literal(buf, end, NODE_KEY)) return -1;
      const nodeStart = this.#k;
      const nodeEnd = this.#value(buf, end);
      node = nodeEnd === -1 ? undefined : this.#node(buf, nodeStart, nodeEnd);
      if (node === undefined) return -1;
    }
    if (started && this.#literal(buf, end, INPUT_KEY)) {
      input = this.#rawJson(buf, end);
      if (input === undefined) return -1;
    }
    if (head !== STARTED_HEAD && this.#literal(buf, end, OUTPUT_KEY)) {
      output = this.#rawJson(buf, end);
      if (output === undefined) return -1;
    }
    if (head === ERROR_HEAD) {
      if (!this.#literal(buf, end, ERROR_KEY)) return -1;
      const errorStart = this.#k;
      const errorEnd = this.#value(buf, end);
      if (errorEnd === -1) return -1;
      try {
        error = JSON.parse(buf.toString('utf8', errorStart, errorEnd));
      } catch {
        return -1;
      }
    }
    if (head === COMPLETED_HEAD) {
      if (!this.#literal(buf, end, END_T_KEY)) return -1;
      endT = this.#integer(buf, end);
      if (endT === -1) return -1;
    }
    if (started && this.#literal(buf, end, REQUEST_ID_KEY)) {
      requestId = this.#requestId(buf, end);
      if (requestId === undefined) return -1;
    }

    const runId = this.#runIdField(buf, end);
    const seq = runId === undefined ? -1 : this.#seqField(buf, end);
    if (seq === -1 || !this.#literal(buf, end, T_KEY)) return -1;
    const t = this.#integer(buf, end);
    if (t === -1 || buf[this.#k] !== CLOSE_OBJECT) return -1;

    // One object shape per kind, with the fields in the order they came.
    const event: unknown =
      head === COMPLETED_HEAD
        ? { type: 'instance.completed', instanceId, node, input, output, endT, requestId, runId, seq, t }
        : head === STARTED_HEAD
          ? { type: 'instance.started', instanceId, node, input, requestId, runId, seq, t }
          : head === FINISHED_HEAD
            ? { type: 'instance.finished', instanceId, output, runId, seq, t }
            : { type: 'instance.error', instanceId, output, error, runId, seq, t };
    const valid = validateEvent(event);
    if (valid === undefined) return -1;
    events.push(valid);
    return this.#k + 1;
  }

  // Reading an execution's fields: each step starts at the cursor and moves
  // it past what it read, or returns its mark of failure (-1, false,
  // undefined) and the event is read the plain way.

  /** The bytes of `literal`. */
  #literal(buf: Buffer, end: number, literal: Uint8Array): boolean {
    if (!startsWith(buf, this.#k, end, literal)) return false;
    this.#k += literal.length;
    return true;
  }

  /** `,"runId":"…"`: the run id, or undefined. */
  #runIdField(buf: Buffer, end: number): string | undefined {
    if (!this.#literal(buf, end, RUN_ID_KEY) || buf[this.#k++] !== QUOTE) return undefined;
    const start = this.#k;
    const close = this.#quoted(buf, end);
    return close === -1 ? undefined : this.#runId(buf, start, close);
  }

  /** `,"seq":` and its digits: the seq, or -1. */
  #seqField(buf: Buffer, end: number): number {
    return this.#literal(buf, end, SEQ_KEY) ? this.#integer(buf, end) : -1;
  }

  /** The text of a plain string (its opening quote already read): the index of its closing quote. */
  #quoted(buf: Buffer, end: number): number {
    const close = plainStringEnd(buf, this.#k, end);
    if (close !== -1) this.#k = close + 1;
    return close;
  }

  /** A non-negative integer in plain digits (no sign, fraction or exponent). */
  #integer(buf: Buffer, end: number): number {
    const digitsStop = plainIntegerEnd(buf, this.#k, end);
    if (digitsStop === -1) return -1;
    const value = digitsValue(buf, this.#k, digitsStop);
    this.#k = digitsStop;
    return value;
  }

  /** A request id: a plain string or a plain integer (see {@link #quoted}, {@link #integer}); undefined for any other. */
  #requestId(buf: Buffer, end: number): string | number | undefined {
    if (buf[this.#k] !== QUOTE) {
      const id = this.#integer(buf, end);
      return id === -1 ? undefined : id;
    }
    const start = ++this.#k;
    const close = this.#quoted(buf, end);
    return close === -1 ? undefined : buf.toString('latin1', start, close);
  }

  /** A strictly valid JSON value: where it ends. */
  #value(buf: Buffer, end: number): number {
    const valueEnd = jsonValueEnd(buf, this.#k, end);
    if (valueEnd !== -1) this.#k = valueEnd;
    return valueEnd;
  }

  /** A strictly valid JSON value, kept as its text. */
  #rawJson(buf: Buffer, end: number): RawJson | undefined {
    const valueStart = this.#k;
    const valueEnd = this.#value(buf, end);
    return valueEnd === -1 ? undefined : new RawJson(buf, valueStart, valueEnd);
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

  /** The run id at `[start, end)`: the string of the last one when the bytes are the same. */
  #runId(buf: Buffer, start: number, end: number): string {
    if (this.#lastRunIdBytes.compare(buf, start, end) === 0 && this.#lastRunId !== '') return this.#lastRunId;
    const runId = buf.toString('latin1', start, end);
    this.#lastRunId = runId;
    this.#lastRunIdBytes = Buffer.from(buf.subarray(start, end));
    return runId;
  }
}
