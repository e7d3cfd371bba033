import type { NodeDeclaration, RunEvent } from '../protocol/ingest.js';
import { RawJson } from './raw-json.js';
import * as bytes from '../json/bytes.js';
import * as strict from '../json/strict-json.js';
import * as layout from '../protocol/ingest-batch-layout.js';
import { expandCompletedGroup, isCompletedGroup } from '../report/completed-group.js';
import { BatchCursor } from './batch-cursor.js';
import { validateEvent } from '../protocol/validate-event.js';

// The layout the bundled reporter writes a batch in, shared with its writer
// (report/encode-batch.ts), and the byte rules of src/json/, bound to module
// constants once: V8 checks an imported binding each time it is used, a
// module constant it folds away (this runs for every event ingested).
const { BATCH_OPEN, BATCH_SEPARATOR, BATCH_CLOSE, TYPE_LETTER_AT, STARTED_HEAD, FINISHED_HEAD, ERROR_HEAD, COMPLETED_HEAD } = layout;
const { NODE_KEY, INPUT_KEY, OUTPUT_KEY, ERROR_KEY, END_T_KEY, REQUEST_ID_KEY, T_KEY, INSTANCE_ID_KEY } = layout;
const { GROUP_HEAD, CALLS_KEY, CALL_OPEN, CALL_SEPARATOR, CALL_CLOSE, CALLS_CLOSE, GROUP_CLOSE } = layout;
const { RUN_COMPLETED_HEAD, NAME_KEY, SOURCE_KEY, META_KEY, ROOT_KEY, ROOT_HEAD } = layout;
const { OPEN_OBJECT, CLOSE_OBJECT, QUOTE, startsWith } = bytes;
const { jsonValueEnd } = strict;
// The letter that tells the heads apart, where they first differ.
const [STARTED_LETTER, FINISHED_LETTER, ERROR_LETTER, COMPLETED_LETTER] = [STARTED_HEAD, FINISHED_HEAD, ERROR_HEAD, COMPLETED_HEAD].map(
  (head) => head[TYPE_LETTER_AT] as number,
);
// Where `run.completed` differs from every execution head (`run.` against `ins`).
const RUN_LETTER_AT = '{"type":"'.length;
const RUN_LETTER = RUN_COMPLETED_HEAD[RUN_LETTER_AT] as number;

/** The head of the execution event whose type has `letter` where the heads differ; undefined for none. */
function headOf(letter: number | undefined): Buffer | undefined {
  if (letter === STARTED_LETTER) return STARTED_HEAD;
  if (letter === FINISHED_LETTER) return FINISHED_HEAD;
  if (letter === ERROR_LETTER) return ERROR_HEAD;
  return letter === COMPLETED_LETTER ? COMPLETED_HEAD : undefined;
}

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
export class BatchReader extends BatchCursor {
  /** The element {@link #readElement} read last was a group of calls (or a completed run). */
  #grouped = false;
  /** The last completed run's name and source (a connection's calls to one tool repeat them). */
  #name = '';
  #source = '';
  /** The last completed run's meta, as its bytes and as parsed (a connection's runs share it). */
  #metaBytes: Buffer = Buffer.alloc(0);
  #meta: unknown;
  /** The last completed run's root, as its bytes and as read (every run of a server has the same). */
  #rootBytes: Buffer = Buffer.alloc(0);
  #root: { instanceId: string; node: NodeDeclaration; input: RawJson | undefined } | undefined;

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
    const run = !group && buf[at + RUN_LETTER_AT] === RUN_LETTER;
    const fast = group ? this.#readGroup(buf, at, end, events) : run ? this.#readCompletedRun(buf, at, end, events) : this.#readExecution(buf, at, end, events);
    if (fast !== -1) {
      // A completed run stands for several events, as a group does: its text is no one event's.
      this.#grouped = group || run;
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
    this.k = at + GROUP_HEAD.length;
    const node = this.nodeValue(buf, end);
    if (node === undefined) return -1;
    const runId = this.runIdField(buf, end);
    const seq = runId === undefined ? -1 : this.seqField(buf, end);
    if (seq === -1 || !this.literal(buf, end, CALLS_KEY)) return -1;
    for (let k = 0; ; k++) {
      if (buf[this.k++] !== CALL_OPEN || buf[this.k++] !== QUOTE) return -1;
      const idStart = this.k;
      const idEnd = this.quoted(buf, end);
      if (idEnd === -1 || buf[this.k++] !== CALL_SEPARATOR) return -1;
      const instanceId = buf.toString('latin1', idStart, idEnd);
      const t = this.integer(buf, end);
      if (t === -1 || buf[this.k++] !== CALL_SEPARATOR) return -1;
      const endT = this.integer(buf, end);
      if (endT === -1 || buf[this.k++] !== CALL_SEPARATOR) return -1;
      const input = this.rawJson(buf, end);
      if (input === undefined || buf[this.k++] !== CALL_SEPARATOR) return -1;
      const output = this.rawJson(buf, end);
      if (output === undefined) return -1;
      // A sixth slot: the call's request id (a call without one has five).
      let requestId: string | number | undefined;
      if (buf[this.k] === CALL_SEPARATOR) {
        this.k++;
        requestId = this.requestId(buf, end);
        if (requestId === undefined) return -1;
      }
      if (buf[this.k++] !== CALL_CLOSE) return -1;
      const valid = validateEvent({ type: 'instance.completed', instanceId, node, input, output, endT, requestId, runId, seq: seq + k, t });
      if (valid === undefined) return -1;
      events.push(valid);
      const after = buf[this.k++];
      if (after === CALL_SEPARATOR) continue;
      if (after !== CALLS_CLOSE || buf[this.k] !== GROUP_CLOSE) return -1;
      return this.k + 1;
    }
  }

  /** An execution's event in the reporter's own layout, or -1 (nothing pushed). */
  #readExecution(buf: Buffer, at: number, end: number, events: RunEvent[]): number {
    const head = headOf(buf[at + TYPE_LETTER_AT]);
    if (head === undefined || !startsWith(buf, at, end, head)) return -1;
    this.k = at + head.length;
    if (buf[this.k++] !== QUOTE) return -1;
    const idStart = this.k;
    const idEnd = this.quoted(buf, end);
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
      if (!this.literal(buf, end, NODE_KEY)) return -1;
      node = this.nodeValue(buf, end);
      if (node === undefined) return -1;
    }
    if (started && this.literal(buf, end, INPUT_KEY)) {
      input = this.rawJson(buf, end);
      if (input === undefined) return -1;
    }
    if (head !== STARTED_HEAD && this.literal(buf, end, OUTPUT_KEY)) {
      output = this.rawJson(buf, end);
      if (output === undefined) return -1;
    }
    if (head === ERROR_HEAD) {
      if (!this.literal(buf, end, ERROR_KEY)) return -1;
      const errorStart = this.k;
      const errorEnd = this.value(buf, end);
      if (errorEnd === -1) return -1;
      try {
        error = JSON.parse(buf.toString('utf8', errorStart, errorEnd));
      } catch {
        return -1;
      }
    }
    if (head === COMPLETED_HEAD) {
      if (!this.literal(buf, end, END_T_KEY)) return -1;
      endT = this.integer(buf, end);
      if (endT === -1) return -1;
    }
    if (started && this.literal(buf, end, REQUEST_ID_KEY)) {
      requestId = this.requestId(buf, end);
      if (requestId === undefined) return -1;
    }

    const runId = this.runIdField(buf, end);
    const seq = runId === undefined ? -1 : this.seqField(buf, end);
    if (seq === -1 || !this.literal(buf, end, T_KEY)) return -1;
    const t = this.integer(buf, end);
    if (t === -1 || buf[this.k] !== CLOSE_OBJECT) return -1;

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
    return this.k + 1;
  }

  /**
   * A whole run of one call (report/completed-run.ts) in the reporter's own
   * layout: the events it stands for, the same as `expandCompletedRun`
   * makes them (its values kept as text), each checked as any event is; or
   * -1 (what was pushed is the caller's to take back).
   */
  #readCompletedRun(buf: Buffer, at: number, end: number, events: RunEvent[]): number {
    if (!startsWith(buf, at, end, RUN_COMPLETED_HEAD)) return -1;
    this.k = at + RUN_COMPLETED_HEAD.length;
    const runId = this.runIdField(buf, end);
    if (runId === undefined) return -1;
    const seq = this.seqField(buf, end);
    if (seq === -1 || !this.literal(buf, end, T_KEY)) return -1;
    const t = this.integer(buf, end);
    if (t === -1 || !this.literal(buf, end, END_T_KEY)) return -1;
    const endT = this.integer(buf, end);
    if (endT === -1 || !this.literal(buf, end, NAME_KEY)) return -1;
    const name = (this.#name = this.textLike(buf, end, this.#name) ?? '');
    if (name === '' || !this.literal(buf, end, SOURCE_KEY)) return -1;
    const source = (this.#source = this.textLike(buf, end, this.#source) ?? '');
    if (source === '' || !this.literal(buf, end, META_KEY)) return -1;
    const meta = this.#readMeta(buf, end);
    if (meta === undefined || !this.literal(buf, end, ROOT_KEY)) return -1;
    const root = this.#readRoot(buf, end);
    if (root === undefined || !this.literal(buf, end, INSTANCE_ID_KEY)) return -1;
    const instanceId = this.text(buf, end);
    if (instanceId === undefined || !this.literal(buf, end, NODE_KEY)) return -1;
    const node = this.nodeValue(buf, end);
    if (node === undefined) return -1;
    let input: RawJson | undefined;
    let output: RawJson | undefined;
    let requestId: string | number | undefined;
    if (this.literal(buf, end, INPUT_KEY) && (input = this.rawJson(buf, end)) === undefined) return -1;
    if (this.literal(buf, end, REQUEST_ID_KEY) && (requestId = this.requestId(buf, end)) === undefined) return -1;
    if (this.literal(buf, end, OUTPUT_KEY) && (output = this.rawJson(buf, end)) === undefined) return -1;
    // An error only if the key is there (`null` is one, which the check then refuses).
    const failed = this.literal(buf, end, ERROR_KEY);
    const error = failed ? this.#parsed(buf, end) : undefined;
    if ((failed && error === undefined) || buf[this.k] !== CLOSE_OBJECT) return -1;
    let s = seq;
    const expanded: unknown[] = [
      { type: 'run.started', runId, seq: s, t, name, source, meta },
      { type: 'instance.started', instanceId: root.instanceId, node: root.node, input: root.input, runId, seq: ++s, t },
    ];
    if (!failed) {
      expanded.push({ type: 'instance.completed', instanceId, node, input, output, endT, requestId, runId, seq: ++s, t });
    } else {
      expanded.push({ type: 'instance.started', instanceId, node, input, requestId, runId, seq: ++s, t });
      expanded.push({ type: 'instance.error', instanceId, output, error, runId, seq: ++s, t: endT });
    }
    expanded.push({ type: 'instance.finished', instanceId: root.instanceId, runId, seq: ++s, t: endT });
    expanded.push({ type: 'run.finished', status: failed ? 'error' : 'ok', runId, seq: ++s, t: endT });
    for (const item of expanded) {
      const event = validateEvent(item);
      if (event === undefined) return -1;
      events.push(event);
    }
    return this.k + 1;
  }

  /** A JSON value, parsed; undefined if it is not strictly valid. */
  #parsed(buf: Buffer, end: number): unknown {
    const start = this.k;
    const close = this.value(buf, end);
    if (close === -1) return undefined;
    try {
      return JSON.parse(buf.toString('utf8', start, close)) as unknown;
    } catch {
      return undefined;
    }
  }

  /**
   * Is the value at the cursor the object whose bytes are `known` (strictly
   * valid JSON read before)? Then the cursor moves past it. An object ends
   * where its bytes do, so the same bytes are the same value, unscanned.
   */
  #same(buf: Buffer, end: number, known: Buffer): boolean {
    return known[0] === OPEN_OBJECT && this.literal(buf, end, known);
  }

  /** A completed run's meta, parsed: the last one's object when its bytes are the same (the replay copies it). */
  #readMeta(buf: Buffer, end: number): unknown {
    if (this.#meta !== undefined && this.#same(buf, end, this.#metaBytes)) return this.#meta;
    const start = this.k;
    const meta = this.#parsed(buf, end);
    if (meta === undefined) return undefined;
    this.#meta = meta;
    this.#metaBytes = Buffer.from(buf.subarray(start, this.k));
    return meta;
  }

  /** A completed run's root, `{"instanceId":…,"node":…[,"input":…]}`: the last one when its bytes are the same. */
  #readRoot(buf: Buffer, end: number): { instanceId: string; node: NodeDeclaration; input: RawJson | undefined } | undefined {
    if (this.#root !== undefined && this.#same(buf, end, this.#rootBytes)) return this.#root;
    const start = this.k;
    if (!this.literal(buf, end, ROOT_HEAD)) return undefined;
    const instanceId = this.text(buf, end);
    if (instanceId === undefined || !this.literal(buf, end, NODE_KEY)) return undefined;
    const node = this.nodeValue(buf, end);
    if (node === undefined) return undefined;
    const inputAt = this.k;
    const hasInput = this.literal(buf, end, INPUT_KEY);
    if (hasInput && this.value(buf, end) === -1) return undefined;
    const inputEnd = this.k;
    if (buf[this.k++] !== CLOSE_OBJECT) return undefined;
    // Kept in bytes of its own, so that later runs sharing it keep no message alive.
    const own = Buffer.from(buf.subarray(start, this.k));
    const input = hasInput ? new RawJson(own, inputAt + INPUT_KEY.length - start, inputEnd - start) : undefined;
    this.#rootBytes = own;
    this.#root = { instanceId, node, input };
    return this.#root;
  }
}
