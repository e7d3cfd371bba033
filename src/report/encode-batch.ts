import { isUtf8 } from 'node:buffer';
import { JsonSlice } from './deferred.js';
import type { RunEvent } from './events.js';

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
        if (value !== runValue) {
          runValue = value;
          runBytes = Buffer.from(JSON.stringify(value));
        }
        out.raw(runBytes, 0, runBytes.length);
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
        if (value.isStrict() && out.utf8(value.buf, value.start, value.end)) return;
        out.at = mark;
        break;
      }
      // The naming table's nodes are frozen, and hold strings only: their JSON cannot change.
      if (key === 'node' && Object.isFrozen(value)) {
        let json = nodeBytes.get(value);
        if (json === undefined) {
          json = Buffer.from(JSON.stringify(value));
          nodeBytes.set(value, json);
        }
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
  const fields = event as unknown as Record<string, unknown>;
  out.byte(0x7b);
  for (const key in fields) writeField(out, key, fields[key]);
  out.byte(0x7d);
}

/**
 * A batch of events as the UTF-8 bytes of one JSON array: the same JSON as
 * `JSON.stringify(events)`, except that a {@link JsonSlice} among an event's
 * own fields is written as the bytes it points at (when they pass its check
 * and are valid UTF-8) rather than parsed and serialised again.
 */
export function encodeBatch(events: readonly RunEvent[]): Buffer {
  writer.byte(0x5b);
  for (let i = 0; i < events.length; i++) {
    if (i > 0) writer.byte(0x2c);
    writeEvent(writer, events[i] as RunEvent);
  }
  writer.byte(0x5d);
  return writer.take();
}

/** One event's JSON, as {@link encodeBatch} writes it. */
export function encodeEvent(event: RunEvent): string {
  writeEvent(writer, event);
  return writer.take().toString('utf8');
}
