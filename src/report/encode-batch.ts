import * as layout from '../protocol/ingest-batch-layout.js';
import { JsonSlice, KnownJson } from './deferred.js';
import type { NodeDeclaration, RunEvent } from '../protocol/ingest.js';
import type { CompletedGroup, expandCompletedGroup } from './completed-group.js';
import { CompletedEvent, FinishedEvent, StartedEvent } from './execution-events.js';
import { BatchWriter } from './batch-writer.js';

// The layout shared with the server's reader, bound to module constants once:
// V8 checks an imported binding each time it is used, a module constant it
// folds away (this runs for every event a reporter sends).
const { BATCH_OPEN, BATCH_SEPARATOR, BATCH_CLOSE, STARTED_HEAD, COMPLETED_HEAD, FINISHED_HEAD, INSTANCE_ID_KEY } = layout;
const { NODE_KEY, INPUT_KEY, OUTPUT_KEY, END_T_KEY, REQUEST_ID_KEY, RUN_ID_KEY, SEQ_KEY, T_KEY } = layout;
const { GROUP_HEAD, CALLS_KEY, CALL_OPEN, CALL_SEPARATOR, CALL_CLOSE, CALLS_CLOSE, GROUP_CLOSE } = layout;

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
// declares them and the shared layout gives them, written as writeField
// writes them (a value of any other kind than the usual goes through
// writeField itself).

function writeStarted(out: BatchWriter, event: StartedEvent): void {
  writeHead(out, STARTED_HEAD, event.instanceId);
  writeNode(out, event.node);
  writeValue(out, 'input', INPUT_KEY, event.input);
  if (event.requestId !== undefined) writeRequestId(out, event.requestId);
  writeTail(out, event.runId, event.seq, event.t);
}

function writeCompleted(out: BatchWriter, event: CompletedEvent): void {
  writeHead(out, COMPLETED_HEAD, event.instanceId);
  writeNode(out, event.node);
  writeValue(out, 'input', INPUT_KEY, event.input);
  writeValue(out, 'output', OUTPUT_KEY, event.output);
  writeNumber(out, 'endT', END_T_KEY, event.endT);
  if (event.requestId !== undefined) writeRequestId(out, event.requestId);
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

/** A request id: a string or a plain integer from the template, anything else as JSON.stringify writes it. */
function writeRequestId(out: BatchWriter, value: string | number): void {
  if (typeof value === 'string') {
    out.raw(REQUEST_ID_KEY, 0, REQUEST_ID_KEY.length);
    out.string(value);
    return;
  }
  writeNumber(out, 'requestId', REQUEST_ID_KEY, value);
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
  out.byte(CALLS_CLOSE);
  out.byte(GROUP_CLOSE);
  return count;
}

/** One call of a group, after a comma if `comma`; false (nothing written) if it cannot be written as one. */
function writeCall(out: BatchWriter, event: CompletedEvent, comma: boolean): boolean {
  const { instanceId, t, endT, input, output, requestId } = event;
  if (typeof instanceId !== 'string' || !plainInteger(t) || !plainInteger(endT) || !(input instanceof JsonSlice) || !(output instanceof JsonSlice)) return false;
  // A sixth slot only for an id it can spell as is: a string, or a plain integer (any other goes as an event of its own).
  if (requestId !== undefined && typeof requestId !== 'string' && !plainInteger(requestId)) return false;
  const mark = out.at;
  if (comma) out.byte(CALL_SEPARATOR);
  out.byte(CALL_OPEN);
  out.string(instanceId);
  out.byte(CALL_SEPARATOR);
  out.digits(t);
  out.byte(CALL_SEPARATOR);
  out.digits(endT);
  out.byte(CALL_SEPARATOR);
  if (!writeSlice(out, input)) {
    out.at = mark;
    return false;
  }
  out.byte(CALL_SEPARATOR);
  if (!writeSlice(out, output)) {
    out.at = mark;
    return false;
  }
  if (requestId !== undefined) {
    out.byte(CALL_SEPARATOR);
    if (typeof requestId === 'string') out.string(requestId);
    else out.digits(requestId);
  }
  out.byte(CALL_CLOSE);
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
  writer.byte(BATCH_OPEN);
  for (let i = 0; i < events.length; ) {
    if (i > 0) writer.byte(BATCH_SEPARATOR);
    const event = events[i] as RunEvent;
    const grouped = event instanceof CompletedEvent ? writeGroup(writer, events, i) : 0;
    if (grouped > 0) {
      i += grouped;
      continue;
    }
    writeEvent(writer, event);
    i++;
  }
  writer.byte(BATCH_CLOSE);
  return writer.take();
}

/** One event's JSON, as {@link encodeBatch} writes it. */
export function encodeEvent(event: RunEvent): string {
  writeEvent(writer, event);
  return writer.take().toString('utf8');
}
