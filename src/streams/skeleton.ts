/**
 * The envelope of a line that arrives in pieces, read as the pieces pass.
 *
 * A long line (a 60 MiB tool result, say) can be relayed piece by piece as
 * it arrives instead of being assembled first, but the classifier still has
 * to know what it was. {@link SkeletonReader} reads the pieces in order,
 * checks the line the way `scanEnvelope` does (the top level fully, nested
 * values by shape), and keeps only what classification reads: the
 * top-level members `jsonrpc`, `id`, `method`, `params`, `result` and
 * `error`, each verbatim when small, and for a large object the first
 * `name`, `uri` and `isError` of its first level (up to 1 MiB each). The result is a
 * small JSON text, the skeleton, that classifies exactly like the line.
 *
 * @module
 */

import * as bytes from '../json/bytes.js';
import { PieceScan } from '../json/piece-scan.js';
import * as skip from '../json/skip.js';
import { Capture } from './capture.js';

// Bound to module constants once: V8 checks an imported binding each time
// it is used, a module constant it folds away (this runs on every byte
// of a long line outside its strings).
const { QUOTE, closerOf, isNumberByte, isScalarStart, isSpace } = bytes;
const { isScalarText } = skip;

/** Longest top-level value kept verbatim. */
const VALUE_CAP = 4096;
/** Longest first-level member value of a large object that is kept (a tool name, a URI). */
const MEMBER_CAP = 1024 * 1024;
const MAX_KEY = 64;
const ENVELOPE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);
/** The first-level members of `params` and `result` that classification reads. */
const MEMBER_KEYS = new Set(['name', 'uri', 'isError']);

/** What a streamed line turned out to be. */
export type Skeleton =
  /** A JSON object: its skeleton, to classify in place of the line. */
  | { kind: 'object'; bytes: Buffer }
  /** A well-shaped JSON array whose elements are objects (a JSON-RPC batch, probably). */
  | { kind: 'array' }
  /** Anything else. */
  | { kind: 'other' };

const enum Phase {
  Start,
  KeyOrClose,
  Key,
  Colon,
  ValueStart,
  StringValue,
  ScalarValue,
  NestedValue,
  AfterValue,
  Key2,
  Trailing,
  Array,
  Failed,
}

/** Where a first-level member of a nested top-level value stands. */
const enum Member {
  /** Not in a member value we might keep. */
  None,
  /** After its key's colon, before its value. */
  Start,
  InString,
  InScalar,
}

/**
 * Reads the pieces of one line in order and builds its {@link Skeleton}.
 * Memory is bounded by a few kilobytes whatever the line's length, plus a
 * byte per open bracket past the 256th for a line nested that deep (any
 * depth is read: JSON.parse, and so the host, accepts far deeper).
 */
export class SkeletonReader extends PieceScan {
  #phase = Phase.Start;
  readonly #key = new Capture(MAX_KEY);
  readonly #value = new Capture(VALUE_CAP);
  #keep = false;
  #valueObject = false;
  #scalarOk = true;
  #members: string[] = [];
  /** For a nested object value: its first-level members, kept small. */
  #inner: string[] = [];
  readonly #innerSeen = new Set<string>();
  readonly #innerKey = new Capture(MAX_KEY);
  readonly #innerValue = new Capture(MEMBER_CAP);
  #member = Member.None;
  /** A string at the first level just ended: a colon after it makes it a key. */
  #lastWasString = false;
  #arrayElementsOk = true;
  #arrayExpectElement = true;

  /** Forget everything: the next piece starts a new line. */
  reset(): void {
    this.#phase = Phase.Start;
    this.resetScan();
    this.#members = [];
    this.#inner = [];
    this.#member = Member.None;
    this.#lastWasString = false;
    this.#arrayElementsOk = true;
    this.#arrayExpectElement = true;
  }

  /** Read the next piece of the line (its final newline may be included). */
  push(piece: Buffer): void {
    let i = 0;
    const end = piece.length;
    while (i < end && this.#phase !== Phase.Failed) i = this.#step(piece, i, end);
  }

  /** The skeleton of everything pushed since the last reset. */
  finish(): Skeleton {
    const phase = this.#phase;
    if (phase === Phase.Trailing) {
      return { kind: 'object', bytes: Buffer.from(`{${this.#members.join(',')}}`, 'latin1') };
    }
    if (phase === Phase.Array && this.depth === 0 && this.#arrayElementsOk) return { kind: 'array' };
    return { kind: 'other' };
  }

  /** Consume bytes from `i`; returns where it stopped. */
  #step(buf: Buffer, i: number, end: number): number {
    switch (this.#phase) {
      case Phase.Start: {
        const byte = buf[i] as number;
        if (isSpace(byte)) return i + 1;
        if (byte === 0x7b) this.#phase = Phase.KeyOrClose;
        else if (byte === 0x5b) {
          this.#phase = Phase.Array;
          this.stack[0] = 0x5d;
          this.depth = 1;
        } else this.#phase = Phase.Failed;
        return i + 1;
      }
      case Phase.KeyOrClose:
      case Phase.Key2: {
        const byte = buf[i] as number;
        if (isSpace(byte)) return i + 1;
        if (byte === QUOTE) {
          this.#key.reset();
          this.inString = true;
          this.escaped = false;
          this.#phase = Phase.Key;
        } else if (byte === 0x7d && this.#phase === Phase.KeyOrClose) this.#phase = Phase.Trailing;
        else this.#phase = Phase.Failed;
        return i + 1;
      }
      case Phase.Key: {
        const close = this.stringEnd(buf, i, end);
        this.#key.add(buf, i, close === -1 ? end : close);
        if (close === -1) return end;
        this.#phase = Phase.Colon;
        return close + 1;
      }
      case Phase.Colon: {
        const byte = buf[i] as number;
        if (isSpace(byte)) return i + 1;
        this.#phase = byte === 0x3a ? Phase.ValueStart : Phase.Failed;
        return i + 1;
      }
      case Phase.ValueStart:
        return this.#startValue(buf, i);
      case Phase.StringValue: {
        const close = this.stringEnd(buf, i, end);
        if (this.#keep) this.#value.add(buf, i, close === -1 ? end : close + 1);
        if (close === -1) return end;
        this.#endValue();
        return close + 1;
      }
      case Phase.ScalarValue: {
        const byte = buf[i] as number;
        if (isSpace(byte) || byte === 0x2c || byte === 0x7d) {
          const text = this.#value.text();
          if (this.#value.overflow ? !this.#scalarOk : !isScalarText(text)) this.#phase = Phase.Failed;
          else this.#endValue();
          return i;
        }
        if (!isNumberByte(byte)) this.#scalarOk = false;
        this.#value.byte(byte);
        return i + 1;
      }
      case Phase.NestedValue:
        return this.#nested(buf, i, end);
      case Phase.AfterValue: {
        const byte = buf[i] as number;
        if (isSpace(byte)) return i + 1;
        if (byte === 0x2c) this.#phase = Phase.Key2;
        else if (byte === 0x7d) this.#phase = Phase.Trailing;
        else this.#phase = Phase.Failed;
        return i + 1;
      }
      case Phase.Trailing:
        if (!isSpace(buf[i] as number)) this.#phase = Phase.Failed;
        return i + 1;
      case Phase.Array:
        return this.#array(buf, i, end);
      default:
        return end;
    }
  }

  #startValue(buf: Buffer, i: number): number {
    const byte = buf[i] as number;
    if (isSpace(byte)) return i + 1;
    const key = this.#key.overflow ? '' : this.#key.text();
    this.#keep = ENVELOPE_KEYS.has(key);
    this.#value.reset();
    this.#inner = [];
    this.#innerSeen.clear();
    this.#member = Member.None;
    this.#lastWasString = false;
    this.#valueObject = byte === 0x7b;
    if (byte === QUOTE) {
      this.inString = true;
      this.escaped = false;
      if (this.#keep) this.#value.byte(byte);
      this.#phase = Phase.StringValue;
    } else if (byte === 0x7b || byte === 0x5b) {
      this.stack[0] = closerOf(byte);
      this.depth = 1;
      this.inString = false;
      if (this.#keep) this.#value.byte(byte);
      this.#phase = Phase.NestedValue;
    } else if (isScalarStart(byte)) {
      this.#scalarOk = true;
      this.#phase = Phase.ScalarValue;
      return i;
    } else this.#phase = Phase.Failed;
    return i + 1;
  }

  /** A top-level member's value is complete: keep it in the skeleton if it is one of the envelope's. */
  #endValue(): void {
    this.#phase = Phase.AfterValue;
    if (!this.#keep || this.#key.overflow) return;
    const key = this.#key.text();
    let value: string;
    if (!this.#value.overflow) value = this.#value.text();
    // Too large to keep: an object keeps its small first-level members
    // (what names a call, `isError`), anything else only its presence.
    else if (this.#valueObject) value = `{${this.#inner.join(',')}}`;
    else value = 'null';
    this.#members.push(`"${key}":${value}`);
  }

  /**
   * Inside an object or array value. Strings are skipped with `indexOf`;
   * brackets must balance and match. At the first level of an object, keys
   * and small scalar values are noted for the skeleton.
   */
  #nested(buf: Buffer, i: number, end: number): number {
    if (this.inString) return this.#nestedString(buf, i, end);
    const keep = this.#keep;
    const object = this.stack[0] === 0x7d;
    let k = i;
    for (; k < end; k++) {
      const byte = buf[k] as number;
      if (byte === QUOTE) {
        if (keep) this.#value.add(buf, i, k + 1);
        this.inString = true;
        this.escaped = false;
        if (keep && object && this.depth === 1) {
          if (this.#member === Member.Start) {
            this.#member = Member.InString;
            this.#innerValue.reset();
            this.#innerValue.byte(QUOTE);
          } else {
            this.#member = Member.None;
            this.#innerKey.reset();
          }
        }
        return k + 1;
      }
      if (keep && object && this.depth === 1) {
        if (byte === 0x3a) {
          if (this.#lastWasString) {
            this.#member = Member.Start;
            this.#lastWasString = false;
          }
          continue;
        }
        if (this.#member === Member.Start && !isSpace(byte)) {
          if (isScalarStart(byte)) {
            this.#member = Member.InScalar;
            this.#innerValue.reset();
          } else this.#member = Member.None;
        }
        if (this.#member === Member.InScalar) {
          if (isSpace(byte) || byte === 0x2c || byte === 0x7d) {
            if (isScalarText(this.#innerValue.text())) this.#endMember();
            else this.#member = Member.None;
          } else this.#innerValue.byte(byte);
        }
        if (byte === 0x2c) this.#lastWasString = false;
      }
      if (byte === 0x7b || byte === 0x5b) {
        this.open(closerOf(byte));
        this.#member = Member.None;
        this.#lastWasString = false;
      } else if (byte === 0x7d || byte === 0x5d) {
        if (this.depth === 0 || this.stack[--this.depth] !== byte) {
          this.#phase = Phase.Failed;
          return end;
        }
        if (this.depth === 0) {
          if (keep) this.#value.add(buf, i, k + 1);
          this.#endValue();
          return k + 1;
        }
      }
    }
    if (keep) this.#value.add(buf, i, end);
    return end;
  }

  /** Inside a string of a nested value: a key or small value of the first level is noted as it passes. */
  #nestedString(buf: Buffer, i: number, end: number): number {
    const keep = this.#keep;
    const firstLevel = keep && this.stack[0] === 0x7d && this.depth === 1;
    const close = this.stringEnd(buf, i, end);
    const stop = close === -1 ? end : close + 1;
    if (keep) {
      this.#value.add(buf, i, stop);
      if (firstLevel) {
        if (this.#member === Member.InString) this.#innerValue.add(buf, i, stop);
        else this.#innerKey.add(buf, i, close === -1 ? end : close);
      }
    }
    if (close === -1) return end;
    if (firstLevel) {
      if (this.#member === Member.InString) this.#endMember();
      else this.#lastWasString = true;
    }
    return close + 1;
  }

  /** A first-level member of a nested object value ended: note it if small. */
  #endMember(): void {
    const member = this.#member;
    this.#member = Member.None;
    this.#lastWasString = false;
    if (this.#innerKey.overflow || this.#innerValue.overflow) return;
    if (member !== Member.InString && member !== Member.InScalar) return;
    // Only what classification reads, and only its first occurrence, as a
    // lookup of the whole line would find it.
    const key = this.#innerKey.text();
    if (!MEMBER_KEYS.has(key) || this.#innerSeen.has(key)) return;
    this.#innerSeen.add(key);
    this.#inner.push(`"${key}":${this.#innerValue.text()}`);
  }

  /** A top-level array: shape only, and whether every element is an object. */
  #array(buf: Buffer, i: number, end: number): number {
    if (this.inString) {
      const close = this.stringEnd(buf, i, end);
      return close === -1 ? end : close + 1;
    }
    if (this.depth === 0) {
      if (!isSpace(buf[i] as number)) this.#phase = Phase.Failed;
      return i + 1;
    }
    for (let k = i; k < end; k++) {
      const byte = buf[k] as number;
      if (this.depth === 1 && this.#arrayExpectElement && !isSpace(byte)) {
        this.#arrayExpectElement = false;
        if (byte !== 0x7b) this.#arrayElementsOk = false;
      }
      if (byte === QUOTE) {
        this.inString = true;
        this.escaped = false;
        return k + 1;
      }
      if (byte === 0x2c && this.depth === 1) this.#arrayExpectElement = true;
      else if (byte === 0x7b || byte === 0x5b) this.open(closerOf(byte)); else if (byte === 0x7d || byte === 0x5d) {
        if (this.stack[--this.depth] !== byte) {
          this.#phase = Phase.Failed;
          return end;
        }
        if (this.depth === 0) return k + 1;
      }
    }
    return end;
  }
}
