import { isUtf8 } from 'node:buffer';
import { JsonSlice, KnownJson } from './deferred.js';
import type { NodeDeclaration, RunEvent } from './events.js';
import { COMPLETED_GROUP, type CompletedGroup, type expandCompletedGroup } from './completed-group.js';
import { CompletedEvent, FinishedEvent, StartedEvent } from './execution-events.js';

/**
 * The JSON of a batch of events, written straight into bytes: what a
 * reporter sends to `/ingest`. Building a string and then encoding it to
 * UTF-8 decoded every recorded frame's bytes only to encode them again; a
 * batch of small calls took about twice as long that way.
 */
class BatchWriter {
  buf = Buffer.allocUnsafe(16 * 1024);
  at = 0;

  room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + bytes));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  byte(value: number): void {
    this.room(1);
    this.buf[this.at++] = value;
  }

  /**
   * Text that is ASCII (our own keys and ids). Short pieces are stored a
   * byte at a time: a call into the native encoder costs more than that.
   */
  ascii(text: string): void {
    const length = text.length;
    this.room(length);
    if (length > SHORT) {
      this.at += this.buf.write(text, this.at, 'latin1');
      return;
    }
    const buf = this.buf;
    let at = this.at;
    for (let i = 0; i < length; i++) buf[at++] = text.charCodeAt(i);
    this.at = at;
  }

  /** A string's JSON: short ones with nothing to escape a byte at a time, others through JSON.stringify. */
  string(value: string): void {
    const length = value.length;
    if (length <= SHORT) {
      this.room(length + 2);
      const buf = this.buf;
      let at = this.at;
      buf[at++] = 0x22;
      let i = 0;
      for (; i < length; i++) {
        const code = value.charCodeAt(i);
        if (code < 0x20 || code === 0x22 || code === 0x5c || code >= 0x7f) break;
        buf[at++] = code;
      }
      if (i === length) {
        buf[at++] = 0x22;
        this.at = at;
        return;
      }
    }
    this.text(JSON.stringify(value));
  }

  /** Any text, as UTF-8. */
  text(text: string): void {
    this.room(text.length * 3);
    this.at += this.buf.write(text, this.at, 'utf8');
  }

  /** A non-negative safe integer, in digits: in 32-bit arithmetic, eight digits at a time beyond the first. */
  digits(value: number): void {
    if (value < 1e8) return this.#smallDigits(value | 0, 0);
    const high = Math.floor(value / 1e8);
    if (high < 1e8) this.#smallDigits(high | 0, 0);
    else this.digits(high);
    this.#smallDigits((value - high * 1e8) | 0, 8);
  }

  /** `value` (below 1e8) in digits, zero-padded to `width`. */
  #smallDigits(value: number, width: number): void {
    let length = 1;
    for (let power = 10; power <= value; power *= 10) length++;
    if (length < width) length = width;
    this.room(length);
    const buf = this.buf;
    let at = (this.at += length);
    let rest = value;
    for (let i = 0; i < length; i++) {
      const next = (rest / 10) | 0;
      buf[--at] = 0x30 + rest - next * 10;
      rest = next;
    }
  }

  /** Bytes of our own (known to be UTF-8), copied as they are. */
  raw(source: Buffer, start: number, end: number): void {
    const length = end - start;
    this.room(length);
    if (length > SHORT) {
      source.copy(this.buf, this.at, start, end);
      this.at += length;
      return;
    }
    const buf = this.buf;
    let at = this.at;
    for (let i = start; i < end; i++) buf[at++] = source[i] as number;
    this.at = at;
  }

  /** Bytes copied as they are. False (nothing written) if they are not valid UTF-8. */
  utf8(source: Buffer, start: number, end: number): boolean {
    if (end - start > SHORT) return this.checked(source, start, end);
    this.room(end - start);
    const buf = this.buf;
    let at = this.at;
    for (let i = start; i < end; i++) {
      const byte = source[i] as number;
      // Not ASCII: the check decides.
      if (byte >= 0x80) return this.checked(source, start, end);
      buf[at++] = byte;
    }
    this.at = at;
    return true;
  }

  checked(source: Buffer, start: number, end: number): boolean {
    if (!isUtf8(source.subarray(start, end))) return false;
    this.raw(source, start, end);
    return true;
  }

  /** The batch written so far (a fresh buffer each time: the socket may still hold the last one). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.at);
    // The next batch is likely about as long as this one.
    this.buf = Buffer.allocUnsafe(Math.max(16 * 1024, this.at + 1024));
    this.at = 0;
    return out;
  }
}

/** Up to this many bytes, a piece is written in JavaScript rather than by a native call. */
const SHORT = 64;

const writer = new BatchWriter();

/** The JSON bytes of the node declarations met before: one object per node, met once per call. */
const nodeBytes = new WeakMap<object, Buffer>();
/** `,"key":` for each key met: event field names are our own identifiers, nothing in them needs escaping. */
const keyBytes = new Map<string, Buffer>();
/** The JSON of each event type met (there are a dozen). */
const typeBytes = new Map<string, Buffer>();
// The run id of the last event, with its JSON: a batch is nearly always one run.
let runValue = '';
let runBytes = Buffer.from('""');

/** The JSON of a run id: the last one's is kept, as a batch is nearly always one run. */
function runIdJson(value: string): Buffer {
  if (value !== runValue) {
    runValue = value;
    runBytes = Buffer.from(JSON.stringify(value));
  }
  return runBytes;
}

/** The JSON of a node the naming table made (frozen, strings only: it cannot change); undefined for any other. */
function frozenNodeJson(value: object): Buffer | undefined {
  if (!Object.isFrozen(value)) return undefined;
  let json = nodeBytes.get(value);
  if (json === undefined) {
    json = Buffer.from(JSON.stringify(value));
    nodeBytes.set(value, json);
  }
  return json;
}

function writeField(out: BatchWriter, key: string, value: unknown): void {
  switch (typeof value) {
    case 'undefined':
      // Left out, as JSON.stringify leaves out an undefined field.
      return;
    case 'string':
      writeKey(out, key);
      if (key === 'type') {
        let json = typeBytes.get(value);
        if (json === undefined) {
          json = Buffer.from(JSON.stringify(value));
          if (typeBytes.size < 64) typeBytes.set(value, json);
        }
        out.raw(json, 0, json.length);
      } else if (key === 'runId') {
        const json = runIdJson(value);
        out.raw(json, 0, json.length);
      } else {
        out.string(value);
      }
      return;
    case 'number':
      writeKey(out, key);
      out.ascii(Number.isFinite(value) ? `${value}` : 'null');
      return;
    case 'object': {
      if (value === null) {
        writeKey(out, key);
        out.ascii('null');
        return;
      }
      if (value instanceof JsonSlice) {
        // Its bytes as they are, once they pass its check (and are valid UTF-8); else its value serialised.
        const mark = out.at;
        writeKey(out, key);
        if (writeSlice(out, value)) return;
        out.at = mark;
        break;
      }
      const json = key === 'node' ? frozenNodeJson(value) : undefined;
      if (json !== undefined) {
        writeKey(out, key);
        out.raw(json, 0, json.length);
        return;
      }
      break;
    }
  }
  // Anything else as JSON.stringify writes it (a value whose toJSON gives undefined is left out).
  const json = JSON.stringify(value);
  if (json === undefined) return;
  writeKey(out, key);
  out.text(json);
}

function writeKey(out: BatchWriter, key: string): void {
  let json = keyBytes.get(key);
  if (json === undefined) {
    json = Buffer.from(`,"${key}":`);
    keyBytes.set(key, json);
  }
  // The first field of an event has no comma before it.
  out.raw(json, out.buf[out.at - 1] === 0x7b ? 1 : 0, json.length);
}

function writeEvent(out: BatchWriter, event: RunEvent): void {
  // The events sent most, from their templates.
  if (event instanceof CompletedEvent) return writeCompleted(out, event);
  if (event instanceof StartedEvent) return writeStarted(out, event);
  if (event instanceof FinishedEvent) return writeFinished(out, event);
  const fields = event as unknown as Record<string, unknown>;
  out.byte(0x7b);
  for (const key in fields) writeField(out, key, fields[key]);
  out.byte(0x7d);
}

// The templates: an execution event's fields, in the order its class
// declares them, written as writeField writes them (a value of any other
// kind than the usual goes through writeField itself).

const bytesOf = (text: string): Buffer => Buffer.from(text, 'latin1');
const STARTED_HEAD = bytesOf('{"type":"instance.started","instanceId":');
const COMPLETED_HEAD = bytesOf('{"type":"instance.completed","instanceId":');
const FINISHED_HEAD = bytesOf('{"type":"instance.finished","instanceId":');
const INSTANCE_ID_KEY = bytesOf(',"instanceId":');
const NODE_KEY = bytesOf(',"node":');
const INPUT_KEY = bytesOf(',"input":');
const OUTPUT_KEY = bytesOf(',"output":');
const END_T_KEY = bytesOf(',"endT":');
const RUN_ID_KEY = bytesOf(',"runId":');
const SEQ_KEY = bytesOf(',"seq":');
const T_KEY = bytesOf(',"t":');

function writeStarted(out: BatchWriter, event: StartedEvent): void {
  writeHead(out, STARTED_HEAD, event.instanceId);
  writeNode(out, event.node);
  writeValue(out, 'input', INPUT_KEY, event.input);
  writeTail(out, event.runId, event.seq, event.t);
}

function writeCompleted(out: BatchWriter, event: CompletedEvent): void {
  writeHead(out, COMPLETED_HEAD, event.instanceId);
  writeNode(out, event.node);
  writeValue(out, 'input', INPUT_KEY, event.input);
  writeValue(out, 'output', OUTPUT_KEY, event.output);
  writeNumber(out, 'endT', END_T_KEY, event.endT);
  writeTail(out, event.runId, event.seq, event.t);
}

function writeFinished(out: BatchWriter, event: FinishedEvent): void {
  writeHead(out, FINISHED_HEAD, event.instanceId);
  writeValue(out, 'output', OUTPUT_KEY, event.output);
  writeTail(out, event.runId, event.seq, event.t);
}

function writeHead(out: BatchWriter, head: Buffer, instanceId: string): void {
  if (typeof instanceId === 'string') {
    out.raw(head, 0, head.length);
    out.string(instanceId);
    return;
  }
  // Not a string after all (a caller outside the type system): as JSON.stringify writes it, the key left out if it is undefined.
  out.raw(head, 0, head.length - INSTANCE_ID_KEY.length);
  writeField(out, 'instanceId', instanceId);
}

function writeNode(out: BatchWriter, node: NodeDeclaration): void {
  const json = typeof node === 'object' && node !== null ? frozenNodeJson(node) : undefined;
  if (json === undefined) return writeField(out, 'node', node);
  out.raw(NODE_KEY, 0, NODE_KEY.length);
  out.raw(json, 0, json.length);
}

function writeValue(out: BatchWriter, key: string, keyJson: Buffer, value: unknown): void {
  if (value instanceof JsonSlice) {
    const mark = out.at;
    out.raw(keyJson, 0, keyJson.length);
    if (writeSlice(out, value)) return;
    out.at = mark;
  }
  writeField(out, key, value);
}

function writeNumber(out: BatchWriter, key: string, keyJson: Buffer, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) return writeField(out, key, value);
  out.raw(keyJson, 0, keyJson.length);
  out.digits(value);
}

function writeTail(out: BatchWriter, runId: string, seq: number, t: number): void {
  if (typeof runId === 'string') {
    const json = runIdJson(runId);
    out.raw(RUN_ID_KEY, 0, RUN_ID_KEY.length);
    out.raw(json, 0, json.length);
  } else {
    writeField(out, 'runId', runId);
  }
  writeNumber(out, 'seq', SEQ_KEY, seq);
  writeNumber(out, 't', T_KEY, t);
  out.byte(0x7d);
}

// A run of completed calls as one group (see report/completed-group.ts).

const GROUP_HEAD = bytesOf(`{"type":${JSON.stringify(COMPLETED_GROUP)},"node":`);
const CALLS_KEY = bytesOf(',"calls":[');

/** True for a time or seq the group writes in digits: a non-negative safe integer. */
const plainInteger = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/**
 * Write `events[first]` and the completed calls after it that can join it
 * as one group; returns how many were written, or 0 (nothing written) when
 * fewer than two can: the caller then writes `events[first]` alone.
 */
function writeGroup(out: BatchWriter, events: readonly RunEvent[], first: number): number {
  const { node, runId, seq } = events[first] as CompletedEvent;
  /** Can `event` be call `k` of this group (same run and node, the seq that follows)? */
  const joins = (event: RunEvent | undefined, k: number): event is CompletedEvent =>
    event instanceof CompletedEvent && event.node === node && event.runId === runId && event.seq === seq + k;
  // Worth a group only if the next event can join it too.
  if (!joins(events[first + 1], 1)) return 0;
  const nodeJson = typeof runId === 'string' && plainInteger(seq) && typeof node === 'object' && node !== null ? frozenNodeJson(node) : undefined;
  if (nodeJson === undefined) return 0;
  const start = out.at;
  out.raw(GROUP_HEAD, 0, GROUP_HEAD.length);
  out.raw(nodeJson, 0, nodeJson.length);
  const runJson = runIdJson(runId);
  out.raw(RUN_ID_KEY, 0, RUN_ID_KEY.length);
  out.raw(runJson, 0, runJson.length);
  out.raw(SEQ_KEY, 0, SEQ_KEY.length);
  out.digits(seq);
  out.raw(CALLS_KEY, 0, CALLS_KEY.length);
  let count = 0;
  for (let i = first; i < events.length; i++, count++) {
    const event = events[i];
    if (!joins(event, count) || !writeCall(out, event, count > 0)) break;
  }
  if (count < 2) {
    out.at = start;
    return 0;
  }
  out.byte(0x5d);
  out.byte(0x7d);
  return count;
}

/** One call of a group, after a comma if `comma`; false (nothing written) if it cannot be written as one. */
function writeCall(out: BatchWriter, event: CompletedEvent, comma: boolean): boolean {
  const { instanceId, t, endT, input, output } = event;
  if (typeof instanceId !== 'string' || !plainInteger(t) || !plainInteger(endT) || !(input instanceof JsonSlice) || !(output instanceof JsonSlice)) return false;
  const mark = out.at;
  if (comma) out.byte(0x2c);
  out.byte(0x5b);
  out.string(instanceId);
  out.byte(0x2c);
  out.digits(t);
  out.byte(0x2c);
  out.digits(endT);
  out.byte(0x2c);
  if (!writeSlice(out, input)) {
    out.at = mark;
    return false;
  }
  out.byte(0x2c);
  if (!writeSlice(out, output)) {
    out.at = mark;
    return false;
  }
  out.byte(0x5d);
  return true;
}

/** A slice's bytes, if they pass its check and are valid UTF-8; false (nothing written) if not. */
function writeSlice(out: BatchWriter, slice: JsonSlice): boolean {
  if (slice instanceof KnownJson) {
    // Made by JSON.stringify here: valid JSON, valid UTF-8.
    out.raw(slice.buf, slice.start, slice.end);
    return true;
  }
  return slice.isStrict() && out.utf8(slice.buf, slice.start, slice.end);
}

/**
 * A batch of events as the UTF-8 bytes of one JSON array: the same JSON as
 * `JSON.stringify(events)`, with two differences. A {@link JsonSlice} among
 * an event's own fields is written as the bytes it points at (when they
 * pass its check and are valid UTF-8) rather than parsed and serialised
 * again. And consecutive completed calls of one run and node (built as
 * {@link CompletedEvent}s, with consecutive `seq` and both values slices)
 * are written as one {@link CompletedGroup}, which
 * {@link expandCompletedGroup} turns back into those events.
 */
export function encodeBatch(events: readonly RunEvent[]): Buffer {
  writer.byte(0x5b);
  for (let i = 0; i < events.length; ) {
    if (i > 0) writer.byte(0x2c);
    const event = events[i] as RunEvent;
    const grouped = event instanceof CompletedEvent ? writeGroup(writer, events, i) : 0;
    if (grouped > 0) {
      i += grouped;
      continue;
    }
    writeEvent(writer, event);
    i++;
  }
  writer.byte(0x5d);
  return writer.take();
}

/** One event's JSON, as {@link encodeBatch} writes it. */
export function encodeEvent(event: RunEvent): string {
  writeEvent(writer, event);
  return writer.take().toString('utf8');
}
