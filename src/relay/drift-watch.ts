import { isObject } from '../json/is-object.js';
import { messageOf, type Frame } from '../streams/frame.js';
import { diffListAnswers, LIST_FIELD, listOfMethod, type Surface, type SurfaceChange } from '../surface/index.js';

/** The log stream a drift is recorded on (`LogLine.stream`), on the list call's node and instance. */
export const DRIFT_LOG_STREAM = 'drift';

/**
 * Distinct pages (method + cursor) whose first answer a session keeps. A
 * server that hands out a new cursor on every listing would otherwise grow
 * the table for as long as the session lives; pages beyond it are not
 * compared.
 */
export const MAX_DRIFT_PAGES = 256;

/** A list answer that differs from what it is compared with. */
export interface Drift {
  /** The list method, e.g. `tools/list`. */
  method: string;
  /** `session`: the session's first answer to the same request (method + cursor); `lock`: the `--lock` file's surface. */
  against: 'session' | 'lock';
  /** What changed, each classed (`diffListAnswers`); never empty. */
  changes: SurfaceChange[];
  /** With `against: 'lock'`: the lock file's name as given. */
  lock?: string;
}

/** A lock file read: the surface it holds and its name (as given on the command line). */
export interface DriftLock {
  /** The locked surface. */
  surface: Surface;
  /** The file's name, for messages. */
  name: string;
}

/** Is `method` one of the four list methods whose answers are watched? */
export function isListMethod(method: string): boolean {
  return listOfMethod(method) !== undefined;
}

/** The page cursor of a list request's params (`''` for the first page). */
function cursorOf(params: unknown): string {
  return isObject(params) && typeof params.cursor === 'string' ? params.cursor : '';
}

/**
 * Live drift for one session: the first answer of each list request
 * (method + cursor) is kept, and each later one is compared with it; or,
 * with a lock (a surface file), every complete listing (all its pages) is
 * compared with the lock's list. Pure: fed parsed answers, it returns what
 * changed; who holds and who records is the caller's business.
 *
 * With a lock a listing is compared once its last page (no `nextCursor`)
 * arrives, the pages before it put together; the drift is reported on that
 * last page.
 */
export class DriftWatch {
  readonly #lock: DriftLock | undefined;
  /** The first result of each page, by method + cursor. */
  readonly #first = new Map<string, unknown>();
  /** With a lock: the items of the listing being paged through, by method. */
  readonly #pages = new Map<string, unknown[]>();

  /** `lock`: compare every listing with this surface instead of with the session's first answers. */
  constructor(lock?: DriftLock) {
    this.#lock = lock;
  }

  /**
   * An answer's `result` to a list request with `params`: what changed, or
   * undefined (nothing did, it is the first, or `method` is not a list).
   */
  answer(method: string, params: unknown, result: unknown): Drift | undefined {
    if (!isListMethod(method) || !isObject(result)) return undefined;
    if (this.#lock !== undefined) return this.#againstLock(method, params, result);
    const key = `${method}\n${cursorOf(params)}`;
    const first = this.#first.get(key);
    if (first === undefined) {
      if (this.#first.size < MAX_DRIFT_PAGES) this.#first.set(key, result);
      return undefined;
    }
    return drift(method, 'session', diffListAnswers(method, first, result));
  }

  #againstLock(method: string, params: unknown, result: Record<string, unknown>): Drift | undefined {
    const list = listOfMethod(method) as keyof typeof LIST_FIELD;
    const field = LIST_FIELD[list];
    const items = Array.isArray(result[field]) ? (result[field] as unknown[]) : [];
    const cursor = cursorOf(params);
    let pages = this.#pages.get(method);
    // A listing starts on the page without a cursor; a page of a listing we did not see start is not compared.
    if (cursor === '') pages = [];
    if (pages === undefined) return undefined;
    const all = pages.length === 0 ? items : pages.concat(items);
    if (typeof result.nextCursor === 'string' && result.nextCursor !== '') {
      this.#pages.set(method, all);
      return undefined;
    }
    this.#pages.delete(method);
    const lock = this.#lock as DriftLock;
    const found = drift(method, 'lock', diffListAnswers(method, { [field]: lock.surface[list] }, { [field]: all }));
    if (found !== undefined) found.lock = lock.name;
    return found;
  }
}

function drift(method: string, against: Drift['against'], changes: SurfaceChange[]): Drift | undefined {
  return changes.length === 0 ? undefined : { method, against, changes };
}

/**
 * The drift as the run's log line says it: a first line for people, then
 * one line per change, `<class>: <message>` (the viewer reads those back,
 * see `viewer/drift-changes`).
 */
export function driftText(drift: Drift): string {
  const count = drift.changes.length === 1 ? '1 change' : `${drift.changes.length} changes`;
  const since = drift.against === 'lock' ? `differs from the lock${drift.lock === undefined ? '' : ` (${drift.lock})`}` : "differs from the session's first answer";
  const lines = [`drift: this ${drift.method} answer ${since}: ${count}`];
  for (const change of drift.changes) lines.push(`${change.class}: ${change.message.replace(/\s*\n\s*/g, ' ')}`);
  return lines.join('\n');
}

/** Who hears of a drift found on the wire (the relay's recorder is one). */
export interface DriftRecorder {
  /** A list answer to `request` drifted: record it on the call. @default undefined @internal */
  onDrift?(request: Frame, drift: Drift): void;
}

/**
 * A {@link DriftWatch} over classified frames: the relay's gate hands it
 * the answers to list requests only, and learns whether to treat them as
 * drifted (the drift is recorded on the call first).
 */
export class ListDrift {
  readonly #watch: DriftWatch;
  readonly #recorder: DriftRecorder;
  /** The answer just found drifted, until the gate takes it. */
  #drifted: Frame | undefined;

  constructor(lock: DriftLock | undefined, recorder: DriftRecorder) {
    this.#watch = new DriftWatch(lock);
    this.#recorder = recorder;
  }

  /** An answer to a `method` list request: compared, and a drift recorded on its call and kept for {@link ListDrift.taken}. */
  note(frame: Frame, method: string): void {
    this.#drifted = undefined;
    const request = frame.request;
    const result = messageOf(frame)?.result;
    if (request === undefined || result === undefined) return;
    let drift: Drift | undefined;
    try {
      drift = this.#watch.answer(method, messageOf(request)?.params, result);
      if (drift !== undefined) this.#recorder.onDrift?.(request, drift);
    } catch {
      // Observation is best-effort; a drift found still counts for the gate.
    }
    if (drift !== undefined) this.#drifted = frame;
  }

  /** Did `frame` drift (see {@link ListDrift.note})? Asked once, by the gate. Cheap for any other frame. */
  taken(frame: Frame): boolean {
    if (this.#drifted !== frame) return false;
    this.#drifted = undefined;
    return true;
  }
}
