import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import { DEFAULT_PORT, defaultDataDir, readToken } from './config.js';
import { deferredBytes } from './deferred.js';
import type { Breakpoints, HoldAction, RunEvent, RunStartedEvent, ServerToReporter } from './events.js';

/** An event as handed to the reporter: it adds `runId`, `seq` and `t`. */
export type OutgoingEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'runId' | 'seq' | 't'> : never) : never;

/** Options for {@link Reporter}. */
export interface ReporterOptions {
  /** Port of `graphmind serve`. @default 4747 */
  port?: number;
  /** Where to find the token file. @default GRAPHMIND_DATA_DIR or ~/.graphmind */
  dataDir?: string;
  /** Environment to read `GRAPHMIND_TOKEN` and `GRAPHMIND_DATA_DIR` from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Events kept while detached or behind; beyond it the oldest are dropped (and counted). @default 1000 */
  maxBufferedEvents?: number;
  /**
   * Approximate bytes those events may hold on to (frames behind deferred
   * values, log text); beyond it the oldest are dropped. @default 16777216
   */
  maxBufferedBytes?: number;
  /** Socket bytes in flight before the reporter stops sending and buffers instead. @default 4194304 */
  maxInFlightBytes?: number;
  /** First reconnect delay, doubled up to 5 s. @default 250 */
  reconnectMs?: number;
  /** Try to connect at all. @default true */
  connect?: boolean;
}

/** A decision pushed by the server for one of this reporter's holds. */
export interface DecisionMessage {
  holdId: string;
  action: HoldAction;
  value?: unknown;
}

/** Events a reporter keeps while detached or behind, by default. */
export const DEFAULT_MAX_BUFFERED_EVENTS = 1000;

/** Default breakpoints until the server says otherwise: pause on error. */
export const DEFAULT_BREAKPOINTS: Breakpoints = Object.freeze({ pauseOnError: true, nodes: Object.freeze({}) }) as Breakpoints;

const MAX_BATCH = 1000;
const MAX_RECONNECT_MS = 5000;

function validBreakpoints(value: unknown): value is Breakpoints {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const { pauseOnError, nodes } = value as Record<string, unknown>;
  return typeof pauseOnError === 'boolean' && nodes !== null && typeof nodes === 'object' && !Array.isArray(nodes);
}

/**
 * Roughly what an event costs to keep: a fixed overhead, the frames its
 * deferred values hold on to, and log text.
 */
function eventWeight(event: RunEvent): number {
  let weight = 128 + deferredBytes(event);
  if (event.type === 'log') weight += event.text.length;
  return weight;
}

/** A fresh, unguessable run id. */
export function newRunId(): string {
  return `run_${Date.now().toString(36)}_${randomBytes(12).toString('base64url')}`;
}

/**
 * The client runtime every integration reports through. It sends run events
 * to `graphmind serve` in order over one WebSocket, keeps them in a bounded
 * buffer while no debugger is there (replayed on attach), reconnects with
 * backoff, and receives breakpoints and decisions.
 *
 * It never throws into its caller and never writes to stdout: observation
 * is best-effort, and the caller's work goes on whatever happens here.
 *
 * Events: `'attached'`, `'detached'`, `'breakpoints'` (Breakpoints),
 * `'decision'` ({@link DecisionMessage}).
 */
export class Reporter extends EventEmitter {
  readonly port: number;
  readonly dataDir: string;
  /** The latest breakpoints from the server (defaults while detached). */
  breakpoints: Breakpoints = DEFAULT_BREAKPOINTS;
  readonly #env: NodeJS.ProcessEnv;
  readonly #maxBuffered: number;
  readonly #maxBufferedBytes: number;
  #bufferedBytes = 0;
  #weights: number[] = [];
  readonly #maxInFlight: number;
  readonly #reconnectBase: number;
  #queue: RunEvent[] = [];
  #head = 0;
  #seq = new Map<string, number>();
  #started = new Map<string, RunStartedEvent>();
  #dropped = new Map<string, number>();
  /** run.started events dropped from the buffer for runs that have finished since (so are not reclaimed). */
  #droppedStarts = new Map<string, RunStartedEvent>();
  /** Events of batches the socket failed to write, in order, to be sent again. */
  #unsent: RunEvent[] = [];
  /** Root instances that overflowed the buffer; sent first, never dropped. */
  #pinned: RunEvent[] = [];
  #ws: WebSocket | undefined;
  #attached = false;
  #closed = false;
  #drainScheduled = false;
  #reconnectDelay: number;
  #reconnectTimer: NodeJS.Timeout | undefined;

  constructor(options: ReporterOptions = {}) {
    super();
    this.#env = options.env ?? process.env;
    this.port = options.port ?? DEFAULT_PORT;
    this.dataDir = options.dataDir ?? defaultDataDir(this.#env);
    this.#maxBuffered = options.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? 16 * 1024 * 1024;
    this.#maxInFlight = options.maxInFlightBytes ?? 4 * 1024 * 1024;
    this.#reconnectBase = options.reconnectMs ?? 250;
    this.#reconnectDelay = this.#reconnectBase;
    // An 'error' with no listener would throw; reporting must never do that.
    this.on('error', () => {});
    if (options.connect ?? true) this.#connect();
  }

  /** True while a debugger is connected. */
  get attached(): boolean {
    return this.#attached;
  }

  /** Events waiting to be sent. */
  get pending(): number {
    return this.#queue.length - this.#head;
  }

  /** Begin a run; returns its id. */
  startRun(name: string, source: string, meta: Record<string, unknown>): string {
    const runId = newRunId();
    const event: RunStartedEvent = { type: 'run.started', runId, seq: 1, t: Date.now(), name, source, meta };
    this.#seq.set(runId, 1);
    this.#started.set(runId, event);
    this.#push(event);
    return runId;
  }

  /** Queue an event of `runId`. */
  send(runId: string, event: OutgoingEvent): void {
    const seq = (this.#seq.get(runId) ?? 1) + 1;
    this.#seq.set(runId, seq);
    const full = event as RunEvent;
    full.runId = runId;
    full.seq = seq;
    full.t = Date.now();
    // A finished run is not reclaimed on reconnect.
    if (full.type === 'run.finished') {
      const start = this.#started.get(runId);
      this.#started.delete(runId);
      // Its run.started may already have been dropped from the buffer: keep
      // it, so the run still exists when the rest arrives.
      if (start !== undefined && this.#dropped.has(runId)) this.#droppedStarts.set(runId, start);
    }
    this.#push(full);
  }

  /**
   * Wait until everything queued has been handed to the server, or until
   * `timeoutMs` passes. Resolves true if it all went out. While it is
   * awaited it keeps the process alive (at most `timeoutMs`): the socket is
   * unref'd, and a caller that awaits the flush before exiting must not see
   * the process end under it.
   */
  flush(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.pending === 0 && this.#unsent.length === 0 && (this.#ws === undefined || this.#ws.bufferedAmount === 0) && this.#attached) {
          resolve(true);
        } else if (Date.now() >= deadline || this.#closed) {
          resolve(this.pending === 0 && this.#attached);
        } else {
          setTimeout(check, 10);
        }
      };
      check();
    });
  }

  /** Resolve true once attached, false after `timeoutMs`. */
  waitForAttach(timeoutMs: number): Promise<boolean> {
    if (this.#attached) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.off('attached', onAttach);
        resolve(false);
      }, timeoutMs);
      const onAttach = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.once('attached', onAttach);
    });
  }

  /**
   * Wait for a connection attempt in flight to settle: resolves true once
   * attached, false as soon as the attempt fails (nothing listening answers
   * at once) or after `timeoutMs`. With no attempt in flight it resolves
   * at once. Like {@link flush}, it keeps the process alive while awaited.
   */
  settle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.#attached) resolve(true);
        else if (this.#ws === undefined || this.#closed || Date.now() >= deadline) resolve(false);
        else setTimeout(check, 5);
      };
      check();
    });
  }

  /** Stop reporting and close the connection. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    try {
      this.#ws?.close();
    } catch {
      // already gone
    }
  }

  #push(event: RunEvent): void {
    const weight = eventWeight(event);
    this.#queue.push(event);
    this.#weights.push(weight);
    this.#bufferedBytes += weight;
    while (this.pending > this.#maxBuffered || (this.#bufferedBytes > this.#maxBufferedBytes && this.pending > 1)) this.#dropOldest();
    this.#scheduleDrain();
  }

  #dropOldest(): void {
    // The run.started of each run is kept aside and re-sent on attach, so
    // dropping from the front never loses a run, only some of its history.
    const event = this.#queue[this.#head] as RunEvent;
    this.#bufferedBytes -= this.#weights[this.#head] ?? 0;
    // Let go of it now, not at the next compaction: it may hold a frame.
    (this.#queue as Array<RunEvent | undefined>)[this.#head] = undefined;
    this.#head++;
    if (event.type === 'instance.started' && event.node.parent === null && event.node.kind === 'server') {
      // The root of a run's graph (the session) is never dropped: without
      // it every other node would hang from nothing.
      this.#pinned.push(event);
    } else if (event.type !== 'run.started') this.#dropped.set(event.runId, (this.#dropped.get(event.runId) ?? 0) + 1);
    else if (!this.#started.has(event.runId)) this.#droppedStarts.set(event.runId, event);
    if (this.#head > 4096 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#weights = this.#weights.slice(this.#head);
      this.#head = 0;
    }
  }

  #scheduleDrain(): void {
    if (this.#drainScheduled || !this.#attached) return;
    this.#drainScheduled = true;
    setImmediate(() => {
      this.#drainScheduled = false;
      this.#drain();
    });
  }

  #drain(): void {
    const ws = this.#ws;
    if (!this.#attached || ws === undefined) return;
    if (this.#unsent.length > 0) {
      // What a dropped connection failed to write goes first, in its order.
      this.#queue = this.#unsent.concat(this.#queue.slice(this.#head));
      this.#weights = new Array<number>(this.#unsent.length).fill(0).concat(this.#weights.slice(this.#head));
      this.#head = 0;
      this.#unsent = [];
    }
    try {
      while (this.pending > 0 || this.#dropped.size > 0 || this.#droppedStarts.size > 0 || this.#pinned.length > 0) {
        if (ws.bufferedAmount > this.#maxInFlight) {
          // The server is behind: keep buffering (bounded) and look again soon.
          setTimeout(() => this.#scheduleDrain(), 20).unref();
          return;
        }
        const batch: RunEvent[] = [];
        // A run whose run.started was dropped (and that is not reclaimed on
        // attach because it has finished) is started again first.
        for (const start of this.#droppedStarts.values()) batch.push(start);
        this.#droppedStarts.clear();
        batch.push(...this.#pinned);
        this.#pinned = [];
        for (const [runId, count] of this.#dropped) {
          // Out of sequence (seq 0): a fresh seq would be higher than those
          // of the buffered events behind it, and the server would take them
          // all for repeats and ignore them.
          batch.push({ type: 'events.dropped', runId, seq: 0, t: Date.now(), count });
        }
        this.#dropped.clear();
        const end = Math.min(this.#queue.length, this.#head + MAX_BATCH);
        for (let i = this.#head; i < end; i++) {
          batch.push(this.#queue[i] as RunEvent);
          this.#bufferedBytes -= this.#weights[i] ?? 0;
        }
        this.#head = end;
        if (this.#head === this.#queue.length) {
          this.#queue = [];
          this.#weights = [];
          this.#head = 0;
        }
        ws.send(JSON.stringify(batch), (error) => {
          // Never written (the connection dropped under it): send it again
          // on the next connection; the server ignores any seq it already has.
          if (error) this.#unsent.push(...batch);
        });
      }
    } catch {
      // A send on a closing socket: the close handler reconnects and replays.
    }
  }

  #connect(): void {
    if (this.#closed) return;
    const token = readToken(this.dataDir, this.#env);
    let ws: WebSocket;
    try {
      ws = new WebSocket(`ws://127.0.0.1:${this.port}/ingest`, {
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        perMessageDeflate: false,
        maxPayload: 64 * 1024 * 1024,
        handshakeTimeout: 5000,
      });
    } catch {
      this.#scheduleReconnect();
      return;
    }
    this.#ws = ws;
    ws.on('open', () => {
      // Never keep the host process alive for the sake of reporting.
      (ws as unknown as { _socket?: { unref(): void } })._socket?.unref();
      this.#attached = true;
      this.#reconnectDelay = this.#reconnectBase;
      // Reclaim every run: the server may have restarted, or marked the
      // run as ended when the connection dropped.
      const reclaim = [...this.#started.values()];
      if (reclaim.length > 0) ws.send(JSON.stringify(reclaim));
      this.emit('attached');
      this.#scheduleDrain();
    });
    ws.on('message', (data) => this.#onMessage(data.toString()));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
    });
    ws.on('close', () => {
      const wasAttached = this.#attached;
      this.#attached = false;
      this.#ws = undefined;
      if (wasAttached) {
        this.breakpoints = DEFAULT_BREAKPOINTS;
        this.emit('detached');
      }
      this.#scheduleReconnect();
    });
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = setTimeout(() => this.#connect(), this.#reconnectDelay);
    this.#reconnectTimer.unref();
    this.#reconnectDelay = Math.min(this.#reconnectDelay * 2, MAX_RECONNECT_MS);
  }

  #onMessage(text: string): void {
    let message: ServerToReporter;
    try {
      message = JSON.parse(text) as ServerToReporter;
    } catch {
      return;
    }
    try {
      if (message.type === 'breakpoints') {
        // Only a well-formed value replaces the current one: a garbled
        // message must not leave the gates reading a broken object.
        if (!validBreakpoints(message.breakpoints)) return;
        this.breakpoints = message.breakpoints;
        this.emit('breakpoints', message.breakpoints);
      } else if (message.type === 'decision') {
        if (typeof message.holdId !== 'string' || typeof message.action !== 'string') return;
        const decision: DecisionMessage = { holdId: message.holdId, action: message.action, value: message.value };
        this.emit('decision', decision);
      }
    } catch {
      // A listener that throws must not break the connection.
    }
  }
}
