/**
 * Paging, pure: a page of rows, an opaque cursor to the next one, and a
 * size budget a page never exceeds.
 *
 * A cursor is base64url JSON naming the query it belongs to (a fingerprint
 * of the tool and its filter arguments), where the next page starts, and
 * the id of the last row handed out. The id keeps a list that grows at its
 * head (runs, newest first) from repeating rows: the next page starts after
 * that row wherever it now is. Callers treat it as opaque.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import { isObject } from '../json/is-object.js';
import { ToolError } from './tool-error.js';

/** What a cursor holds. */
export interface CursorState {
  /** The fingerprint of the query ({@link queryKey}). */
  q: string;
  /** The index of the first row of the page it points to. */
  o: number;
  /** The id of the row before that one, when rows have ids. */
  a?: string;
}

/** Encode a cursor. */
export function encodeCursor(state: CursorState): string {
  return Buffer.from(JSON.stringify(state), 'utf8').toString('base64url');
}

/** Longest cursor text accepted (ours are well under it). */
const MAX_CURSOR_CHARS = 1_000;

/**
 * Decode a cursor, or throw a `bad-cursor` {@link ToolError} for text that
 * is not one of ours.
 */
export function decodeCursor(text: string): CursorState {
  const bad = (): ToolError => new ToolError('bad-cursor', 'bad cursor: pass a nextCursor exactly as a previous page gave it, or leave cursor out to start at the first page');
  if (text.length === 0 || text.length > MAX_CURSOR_CHARS || !/^[A-Za-z0-9_-]+$/.test(text)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!isObject(value)) throw bad();
  const { q, o, a } = value;
  if (typeof q !== 'string' || !Number.isSafeInteger(o) || (o as number) < 0 || (a !== undefined && typeof a !== 'string')) throw bad();
  return a === undefined ? { q, o: o as number } : { q, o: o as number, a };
}

/**
 * The fingerprint of a query: the tool and the arguments that choose its
 * rows (not `limit` or `cursor`), in a stable order. A cursor from one
 * query is refused by another.
 */
export function queryKey(tool: string, filters: Readonly<Record<string, unknown>>): string {
  const entries = Object.entries(filters)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify([tool, entries])).digest('base64url').slice(0, 12);
}

/** What {@link pageOf} is asked for. */
export interface PageRequest<T> {
  /** Rows at most. */
  limit: number;
  /** A cursor from an earlier page of the same query. */
  cursor?: string | undefined;
  /** The query's fingerprint ({@link queryKey}). */
  query: string;
  /** A row's id, if rows have one that lasts (see the module comment). */
  idOf?: (row: T) => string;
  /**
   * A budget in characters, and each row's size in them: rows that would
   * go past it are left for the next page (the first row always goes).
   */
  budget?: { chars: number; sizeOf: (row: T) => number };
}

/** A page of rows. */
export interface Page<T> {
  rows: T[];
  /** Rows in the whole list. */
  total: number;
  /** The index of the first row of the page. */
  offset: number;
  /** The cursor to the next page; null on the last. */
  nextCursor: string | null;
}

/**
 * The page of `rows` that `request` asks for. Throws a {@link ToolError}
 * for a cursor that is not ours (`bad-cursor`), belongs to other arguments
 * (`bad-cursor`) or points past the last row (`page-past-end`).
 */
export function pageOf<T>(rows: readonly T[], request: PageRequest<T>): Page<T> {
  let offset = 0;
  if (request.cursor !== undefined) {
    const state = decodeCursor(request.cursor);
    if (state.q !== request.query) {
      throw new ToolError('bad-cursor', 'this cursor belongs to a query with other arguments: repeat the call with the arguments that gave it, or leave cursor out');
    }
    offset = state.o;
    if (state.a !== undefined && request.idOf !== undefined) {
      const idOf = request.idOf;
      const at = rows.findIndex((row) => idOf(row) === state.a);
      if (at !== -1) offset = at + 1;
    }
    if (offset >= rows.length) {
      throw new ToolError('page-past-end', `page past the end: the list has ${rows.length} row(s) now; leave cursor out to start again`);
    }
  }
  const end = Math.min(rows.length, offset + Math.max(1, request.limit));
  let stop = end;
  if (request.budget !== undefined) {
    let used = 0;
    for (let i = offset; i < end; i++) {
      used += request.budget.sizeOf(rows[i] as T);
      if (used > request.budget.chars && i > offset) {
        stop = i;
        break;
      }
    }
  }
  const page = rows.slice(offset, stop);
  let nextCursor: string | null = null;
  if (stop < rows.length) {
    const state: CursorState = { q: request.query, o: stop };
    if (request.idOf !== undefined && page.length > 0) state.a = request.idOf(page[page.length - 1] as T);
    nextCursor = encodeCursor(state);
  }
  return { rows: page, total: rows.length, offset, nextCursor };
}
