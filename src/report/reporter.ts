import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
// Only the type: `ws` (and with it http, https, tls, zlib) is loaded once
// something answers on the debugger's port, not by every proxy that starts
// with no debugger running.
import type WebSocket from 'ws';
import { DEFAULT_PORT, defaultDataDir, readToken } from './config.js';
import { COMPLETED_RUN, type CompletedRun } from './completed-run.js';
import { deferredBytes } from './deferred.js';
import { encodeBatch } from './encode-batch.js';
import type { Breakpoints, HoldAction, RunEvent, RunStartedEvent, ServerToReporter } from './events.js';

/** An event as handed to the reporter: it adds `runId`, `seq` and `t`. */
export type OutgoingEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'runId' | 'seq' | 't'> : never) : never;

/** Options for {@link Reporter}. */
export interface ReporterOptions {
  /** Port of `graphmind serve` (on 127.0.0.1, else ::1). @default 4747 */
  port?: number;
  /**
   * The debugger's ingest URL, e.g. `ws://127.0.0.1:4747/ingest`: its host,
   * port and path are used as they are (and `port` is ignored).
   * @default GRAPHMIND_URL, else built from `port`
   */
  url?: string;
  /** Where to find the token file. @default GRAPHMIND_DATA_DIR or ~/.graphmind */
  dataDir?: string;
  /** Environment to read `GRAPHMIND_TOKEN`, `GRAPHMIND_DATA_DIR` and `GRAPHMIND_URL` from. @default process.env */
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
  /** The hold decided. */
  holdId: string;
  /** What the user decided. */
  action: HoldAction;
  /** The injected value, for `inject`. */
  value?: unknown;
}

/** Events a reporter keeps while detached or behind, by default. */
export const DEFAULT_MAX_BUFFERED_EVENTS = 1000;

/** Default breakpoints until the server says otherwise: pause on error. */
export const DEFAULT_BREAKPOINTS: Breakpoints = Object.freeze({ pauseOnError: true, nodes: Object.freeze({}) }) as Breakpoints;

/** What keeping an event costs, beyond the bytes it holds on to (see {@link Reporter.sendComplete}). */
export const EVENT_OVERHEAD_BYTES = 128;

const MAX_BATCH = 1000;
/**
 * How long events wait, attached, to go out together. One WebSocket message
 * per turn of the event loop meant one message per frame in a
 * one-call-at-a-time conversation, and the debugger's work per message then
 * competed with the conversation itself for the CPU: with the proxy
 * recording to a running `graphmind serve`, the median round trip was
 * 327 µs with a message per turn, 230 µs with 5 ms and 201 µs with 20 ms
 * (interleaved, 6 rounds; 144 µs without a debugger). The graph is at most
 * 20 ms behind; holds and decisions never wait (see `#push`), and a full
 * batch goes at once.
 */
const COALESCE_MS = 20;
const MAX_RECONNECT_MS = 5000;
/** The longest wait between connection attempts while somebody waits for a debugger (see `Reporter.hurry`). */
const HURRY_RECONNECT_MS = 250;
/** How long the plain TCP probe of the debugger's port may take. */
const PROBE_TIMEOUT_MS = 5000;
/**
 * Where a debugger may listen: `graphmind serve --host` takes only these.
 * Each connection attempt tries both, the one that answered last first.
 */
const LOOPBACK_HOSTS = ['127.0.0.1', '::1'] as const;

/** `host` as it goes in a URL: an IPv6 address in brackets. */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Where an ingest URL points: its host (no brackets), port and path. */
interface IngestTarget {
  host: string;
  port: number;
  path: string;
}

/**
 * The parts of an ingest URL (`ws://host:port/path`, `http:` accepted as
 * `ws:`), or undefined for one that cannot be used.
 */
export function parseIngestUrl(url: string): IngestTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'ws:' && parsed.protocol !== 'http:') return undefined;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return undefined;
  const port = parsed.port === '' ? 80 : Number(parsed.port);
  return { host, port, path: parsed.pathname === '/' || parsed.pathname === '' ? '/ingest' : parsed.pathname };
}
/** Slots the event buffer starts with (it grows when a larger bound needs it). */
const INITIAL_SLOTS = 1024;

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
  let weight = EVENT_OVERHEAD_BYTES + deferredBytes(event);
  if (event.type === 'log') weight += event.text.length;
  return weight;
}

/** The root of a run's graph (the session): never dropped from the buffer. */
function isRoot(event: RunEvent): boolean {
  return event.type === 'instance.started' && event.node?.parent === null && event.node.kind === 'server';
}

function zeroMask(mask: Uint8Array): void {
  mask.fill(0);
}

/** This process's part of every run id it makes: random, drawn once. */
let runIdPrefix: string | undefined;
let runIdCount = 0;

/**
 * A fresh run id, unique across processes: the time, 12 random bytes drawn
 * once per process, and a counter. (Drawing random bytes for every run cost
 * an in-process server that makes a run per request about 7 µs a call.)
 */
export function newRunId(): string {
  runIdPrefix ??= randomBytes(12).toString('base64url');
  return `run_${Date.now().toString(36)}_${runIdPrefix}${(++runIdCount).toString(36)}`;
}

type WebSocketModule = typeof import('ws');
let wsModule: Promise<WebSocketModule> | undefined;

/** The `ws` module, imported on first use. */
function loadWebSocket(): Promise<WebSocketModule> {
  wsModule ??= import('ws');
  return wsModule;
}

/** What the reporter keeps per run. */
class RunState {
  readonly runId: string;
  /** The seq of the run's last event. */
  seq = 1;
  /** Its events dropped from the buffer since the last `events.dropped` notice. */
  dropped = 0;
  /** Its run.started was dropped from the buffer while the run was live. */
  startDropped = false;

  constructor(runId: string) {
    this.runId = runId;
  }
}

/**
 * The client runtime every integration reports through. It sends run events
 * to `graphmind serve` in order over one WebSocket, keeps them in a bounded
 * buffer while no debugger is there (replayed on attach), reconnects with
 * backoff, and receives breakpoints and decisions.
 *
 * While detached it looks for a debugger with a plain TCP connection to its
 * port first; only when something answers does it load the WebSocket client
 * and open the real connection.
 *
 * It never throws into its caller and never writes to stdout: observation
 * is best-effort, and the caller's work goes on whatever happens here.
 *
 * Events: `'attached'`, `'detached'`, `'breakpoints'` (Breakpoints),
 * `'decision'` ({@link DecisionMessage}), `'refused'` (the HTTP status with
 * which something on the port turned the connection down: 401 for a token
 * that is not the debugger's; it is tried again, with backoff, as when
 * nothing listens), `'rejected'` (a run id and the server's reason: the
 * server records nothing more of that run on this connection, as when it
 * was deleted while live, or another connection reports it), `'restart'`
 * (a run id: the debugger asks the proxy reporting it to restart its server).
 */
export class Reporter extends EventEmitter {
  /** The debugger's port: the `url` option's when one is given, else the `port` option (default 4747). */
  readonly port: number;
  /** Where the debugger's token file is read from. */
  readonly dataDir: string;
  /** The one address to use, when given a URL (else both loopbacks are tried). */
  readonly #target: IngestTarget | undefined;
  /** The latest breakpoints from the server (defaults while detached). */
  breakpoints: Breakpoints = DEFAULT_BREAKPOINTS;
  readonly #env: NodeJS.ProcessEnv;
  readonly #maxBuffered: number;
  readonly #maxBufferedBytes: number;
  readonly #maxInFlight: number;
  readonly #reconnectBase: number;
  // The buffer: a ring of events, oldest at #head, with, per slot, the
  // event's weight and its run (null for run.started and a graph's root,
  // which are not counted as dropped when they go).
  #events: Array<RunEvent | undefined>;
  #owners: Array<RunState | null | undefined>;
  #weights: number[];
  #head = 0;
  #size = 0;
  #mask: number;
  #bufferedBytes = 0;
  readonly #runs = new Map<string, RunState>();
  /** The run of the last event: a proxy reports one run, so this is nearly always it. */
  #lastRun: RunState | undefined;
  /** run.started of every live run, reclaimed on every attach. */
  readonly #started = new Map<string, RunStartedEvent>();
  /** Runs with dropped events to report, in the order they first dropped one. */
  #droppedRuns: RunState[] = [];
  /** run.started events dropped from the buffer for runs that have finished since (so are not reclaimed). */
  readonly #droppedStarts = new Map<string, RunStartedEvent>();
  /** Events of batches the socket failed to write, in order, to be sent again. */
  #unsent: RunEvent[] = [];
  /** Root instances that overflowed the buffer; sent first, never dropped. */
  #pinned: RunEvent[] = [];
  #ws: WebSocket | undefined;
  #probe: Socket | undefined;
  /** The loopback address the debugger was last reached on. */
  #host: string = LOOPBACK_HOSTS[0];
  /** A connection attempt is in flight (probe, module load or handshake), or the connection is up. */
  #connecting = false;
  #attached = false;
  #closed = false;
  #drainScheduled = false;
  #drainTimer: NodeJS.Timeout | undefined;
  #reconnectDelay: number;
  #reconnectTimer: NodeJS.Timeout | undefined;
  /** Until when attempts come quickly (see {@link Reporter.hurry}). */
  #hurryUntil = 0;

  constructor(options: ReporterOptions = {}) {
    super();
    this.#env = options.env ?? process.env;
    const url = options.url ?? this.#env.GRAPHMIND_URL;
    this.#target = url !== undefined && url !== '' ? parseIngestUrl(url) : undefined;
    this.port = this.#target?.port ?? options.port ?? DEFAULT_PORT;
    if (this.#target !== undefined) this.#host = this.#target.host;
    this.dataDir = options.dataDir ?? defaultDataDir(this.#env);
    this.#maxBuffered = options.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
    this.#maxBufferedBytes = options.maxBufferedBytes ?? 16 * 1024 * 1024;
    this.#maxInFlight = options.maxInFlightBytes ?? 4 * 1024 * 1024;
    this.#reconnectBase = options.reconnectMs ?? 250;
    this.#reconnectDelay = this.#reconnectBase;
    let slots = 16;
    while (slots < INITIAL_SLOTS && slots <= this.#maxBuffered) slots *= 2;
    this.#events = new Array<RunEvent | undefined>(slots).fill(undefined);
    this.#owners = new Array<RunState | null | undefined>(slots).fill(undefined);
    this.#weights = new Array<number>(slots).fill(0);
    this.#mask = slots - 1;
    // An 'error' with no listener would throw; reporting must never do that.
    this.on('error', () => {});
    if (options.connect ?? true) this.#connect();
  }

  /** True while a debugger is connected. */
  get attached(): boolean {
    return this.#attached;
  }

  /**
   * The debugger's address as a URL (`http://127.0.0.1:4747`, or
   * `http://[::1]:4747` for one on IPv6 loopback): where it was last
   * reached, 127.0.0.1 before it ever was.
   */
  get url(): string {
    return `http://${urlHost(this.#host)}:${this.port}`;
  }

  /** How many events are kept while detached or behind (`maxBufferedEvents`). */
  get capacity(): number {
    return this.#maxBuffered;
  }

  /**
   * Count `count` events of `runId` as dropped from the buffer, without
   * queueing them: for a caller that knows they would be dropped at once
   * (newer events that fill the buffer are already on their way). The run
   * says so on attach, as for any event the buffer dropped.
   */
  countDropped(runId: string, count: number): void {
    if (count > 0) this.#countDrops(this.#runOf(runId), count);
  }

  /** `count` more of `run`'s events are gone: the next batch says so. */
  #countDrops(run: RunState, count: number): void {
    if (run.dropped === 0) this.#droppedRuns.push(run);
    run.dropped += count;
  }

  /** Events waiting to be sent. */
  get pending(): number {
    return this.#size + this.#unsent.length;
  }

  /** Begin a run (at `t`, ms since the epoch, default now; under `runId`, default a new one); returns its id. */
  startRun(name: string, source: string, meta: Record<string, unknown>, t = Date.now(), runId = newRunId()): string {
    const run = new RunState(runId);
    this.#runs.set(runId, run);
    this.#lastRun = run;
    const event: RunStartedEvent = { type: 'run.started', runId, seq: 1, t, name, source, meta };
    this.#started.set(runId, event);
    this.#push(event, null, eventWeight(event));
    return runId;
  }

  /** Queue an event of `runId` (that happened at `t`, ms since the epoch, default now). */
  send(runId: string, event: OutgoingEvent, t = Date.now()): void {
    const run = this.#runOf(runId);
    const full = event as RunEvent;
    full.runId = runId;
    full.seq = ++run.seq;
    full.t = t;
    let owner: RunState | null = run;
    if (full.type === 'run.finished') {
      // A finished run is not reclaimed on reconnect, and nothing of it is
      // kept here any more (a server that makes a run per request must not
      // grow by one entry each): its events in the buffer keep what they need.
      const start = this.#started.get(runId);
      this.#started.delete(runId);
      this.#runs.delete(runId);
      if (this.#lastRun === run) this.#lastRun = undefined;
      // Its run.started may already have been dropped from the buffer: keep
      // it, so the run still exists when the rest arrives.
      if (start !== undefined && run.startDropped) this.#droppedStarts.set(runId, start);
    } else if (full.type === 'run.started' || isRoot(full)) {
      owner = null;
    }
    this.#push(full, owner, eventWeight(full));
  }

  /**
   * Queue a whole run of one call, built complete by the caller (see
   * {@link CompletedRun}): nothing of it is kept here, and it is not
   * reclaimed on reconnect. Dropped from the buffer whole, it is not
   * counted (there is no run left to tell).
   */
  sendCompletedRun(run: CompletedRun): void {
    this.#push(run as unknown as RunEvent, null, EVENT_OVERHEAD_BYTES + deferredBytes(run));
  }

  /**
   * The seq of the next event of `runId`, for an event built complete and
   * queued with {@link sendComplete}.
   */
  nextSeq(runId: string): number {
    return ++this.#runOf(runId).seq;
  }

  /**
   * Queue an event built complete by the caller: `runId`, `seq` from
   * {@link nextSeq} and `t` (ms since the epoch) already in it, so that it
   * has one shape from the start. `heldBytes` is what it holds on to beyond
   * itself, for the buffer's bound: the bytes behind its deferred values,
   * and log text. Not for run.started, run.finished or a graph's root
   * instance (use {@link send} for those).
   */
  sendComplete(runId: string, event: RunEvent, heldBytes: number): void {
    this.#push(event, this.#runOf(runId), EVENT_OVERHEAD_BYTES + heldBytes);
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
    // Whatever is waiting for the next batch goes now.
    this.#drain();
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.pending === 0 && (this.#ws === undefined || this.#ws.bufferedAmount === 0) && this.#attached) {
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
        else if (!this.#connecting || this.#closed || Date.now() >= deadline) resolve(false);
        else setTimeout(check, 5);
      };
      check();
    });
  }

  /** Stop reporting and close the connection. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    this.#probe?.destroy();
    try {
      this.#ws?.close();
    } catch {
      // already gone
    }
  }

  /** The state of `runId` (a run not started here gets one too, as before). */
  #runOf(runId: string): RunState {
    const last = this.#lastRun;
    if (last !== undefined && last.runId === runId) return last;
    let run = this.#runs.get(runId);
    if (run === undefined) {
      run = new RunState(runId);
      this.#runs.set(runId, run);
    }
    this.#lastRun = run;
    return run;
  }

  #push(event: RunEvent, owner: RunState | null, weight: number): void {
    if (this.#size > this.#mask) this.#grow();
    const slot = (this.#head + this.#size) & this.#mask;
    this.#events[slot] = event;
    this.#owners[slot] = owner;
    this.#weights[slot] = weight;
    this.#size++;
    this.#bufferedBytes += weight;
    if (this.#attached) {
      // A burst (a whole pipe read of calls in one go) must not overflow the
      // buffer while the debugger is keeping up: send a full batch now.
      // Only a debugger that is behind (or absent) makes the buffer drop.
      // A hold is somebody waiting at a breakpoint: it goes at once, with
      // everything before it.
      const urgent = event.type === 'hold.opened' || event.type === 'hold.released' || event.type === 'hold.updated';
      if ((urgent || this.#size >= MAX_BATCH) && (this.#ws?.bufferedAmount ?? 0) <= this.#maxInFlight) this.#drain();
      if (!this.#drainScheduled && this.#size > 0) this.#scheduleDrain();
    }
    if (this.#size > this.#maxBuffered || this.#bufferedBytes > this.#maxBufferedBytes) this.#trim();
  }

  #grow(): void {
    const slots = (this.#mask + 1) * 2;
    const events = new Array<RunEvent | undefined>(slots).fill(undefined);
    const owners = new Array<RunState | null | undefined>(slots).fill(undefined);
    const weights = new Array<number>(slots).fill(0);
    for (let i = 0; i < this.#size; i++) {
      const from = (this.#head + i) & this.#mask;
      events[i] = this.#events[from];
      owners[i] = this.#owners[from];
      weights[i] = this.#weights[from] as number;
    }
    this.#events = events;
    this.#owners = owners;
    this.#weights = weights;
    this.#head = 0;
    this.#mask = slots - 1;
  }

  #trim(): void {
    while (this.#size > this.#maxBuffered || (this.#bufferedBytes > this.#maxBufferedBytes && this.#size > 1)) this.#dropOldest();
  }

  /** Take the oldest event out of the buffer (to send or to drop). */
  #shift(): RunEvent {
    const slot = this.#head;
    const event = this.#events[slot] as RunEvent;
    this.#bufferedBytes -= this.#weights[slot] as number;
    // Let go of it now: it may hold a frame.
    this.#events[slot] = undefined;
    this.#owners[slot] = undefined;
    this.#head = (slot + 1) & this.#mask;
    this.#size--;
    return event;
  }

  #dropOldest(): void {
    // The run.started of each run is kept aside and re-sent on attach, so
    // dropping from the front never loses a run, only some of its history.
    const owner = this.#owners[this.#head];
    const event = this.#shift();
    if (owner !== null && owner !== undefined) {
      if (event.type === 'run.finished' && this.#droppedStarts.delete(event.runId)) {
        // The last of a run whose start went too: nothing of it is left to
        // send, nor anything to say about it (a server that makes a run per
        // request would otherwise keep every such start while detached).
        owner.dropped = 0;
        return;
      }
      this.#countDrops(owner, 1);
    } else if ((event.type as string) === COMPLETED_RUN) {
      // A whole run, gone whole: there is no run left to tell.
    } else if (event.type === 'run.started') {
      if (this.#started.has(event.runId)) this.#runOf(event.runId).startDropped = true;
      else this.#droppedStarts.set(event.runId, event);
    } else if (isRoot(event)) {
      // The root of a run's graph (the session) is never dropped: without
      // it every other node would hang from nothing.
      this.#pinned.push(event);
    } else {
      this.#countDrops(this.#runOf(event.runId), 1);
    }
  }

  #scheduleDrain(): void {
    if (this.#drainScheduled || !this.#attached) return;
    this.#drainScheduled = true;
    this.#drainTimer = setTimeout(() => {
      this.#drainScheduled = false;
      this.#drain();
    }, COALESCE_MS).unref();
  }

  /**
   * Send what is queued now, without waiting for the next batch: for a
   * caller that batches its events itself (the proxy's graph recorder).
   * Nothing happens while detached.
   */
  sendNow(): void {
    if (!this.#attached) return;
    this.#drain();
    if (this.pending === 0 && this.#drainScheduled) {
      // Nothing left for the batch timer to send: one wakeup less.
      clearTimeout(this.#drainTimer);
      this.#drainScheduled = false;
    }
  }

  #drain(): void {
    const ws = this.#ws;
    if (!this.#attached || ws === undefined) return;
    try {
      while (this.pending > 0 || this.#droppedRuns.length > 0 || this.#droppedStarts.size > 0 || this.#pinned.length > 0) {
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
        for (const run of this.#droppedRuns) {
          if (run.dropped === 0) continue;
          // Out of sequence (seq 0): a fresh seq would be higher than those
          // of the buffered events behind it, and the server would take them
          // all for repeats and ignore them.
          batch.push({ type: 'events.dropped', runId: run.runId, seq: 0, t: Date.now(), count: run.dropped });
          run.dropped = 0;
        }
        this.#droppedRuns = [];
        let room = MAX_BATCH;
        if (this.#unsent.length > 0) {
          // What a dropped connection failed to write goes first, in its order.
          const again = this.#unsent.slice(0, room);
          this.#unsent = this.#unsent.slice(again.length);
          room -= again.length;
          batch.push(...again);
        }
        for (; room > 0 && this.#size > 0; room--) batch.push(this.#shift());
        ws.send(encodeBatch(batch), { binary: false }, (error) => {
          // Never written (the connection dropped under it): send it again
          // on the next connection; the server ignores any seq it already has.
          if (error) this.#unsent.push(...batch);
        });
      }
    } catch {
      // A send on a closing socket: the close handler reconnects and replays.
    }
  }

  /**
   * One connection attempt. A plain TCP connection to the port first:
   * nothing listening (the usual case when no debugger runs) fails at once
   * and costs no WebSocket client. When something accepts, the probe is
   * closed and the real handshake follows.
   */
  #connect(): void {
    if (this.#closed) return;
    this.#connecting = true;
    if (this.#target !== undefined) {
      this.#probeHost(this.#target.host, undefined);
      return;
    }
    // The address that answered last goes first; the other loopback second.
    this.#probeHost(this.#host, this.#host === LOOPBACK_HOSTS[0] ? LOOPBACK_HOSTS[1] : LOOPBACK_HOSTS[0]);
  }

  /** Probe `host`; if nothing accepts there, `next` (when given), else give up this attempt. */
  #probeHost(host: string, next: string | undefined): void {
    if (this.#closed) {
      this.#connecting = false;
      return;
    }
    let probe: Socket;
    try {
      probe = netConnect({ host, port: this.port });
    } catch {
      this.#probeFailed(next);
      return;
    }
    this.#probe = probe;
    // Never keep the host process alive for the sake of reporting.
    probe.unref();
    let settled = false;
    const failed = (): void => {
      if (settled) return;
      settled = true;
      this.#probe = undefined;
      probe.destroy();
      this.#probeFailed(next);
    };
    probe.on('error', failed);
    probe.on('close', failed);
    probe.setTimeout(PROBE_TIMEOUT_MS, failed);
    probe.once('connect', () => {
      if (settled) return;
      settled = true;
      this.#probe = undefined;
      probe.destroy();
      this.#host = host;
      void this.#handshake();
    });
  }

  #probeFailed(next: string | undefined): void {
    if (next === undefined) this.#attemptFailed();
    else this.#probeHost(next, undefined);
  }

  #attemptFailed(): void {
    this.#connecting = false;
    this.#scheduleReconnect();
  }

  async #handshake(): Promise<void> {
    let WebSocketClient: WebSocketModule['default'];
    try {
      WebSocketClient = (await loadWebSocket()).default;
    } catch {
      wsModule = undefined;
      this.#attemptFailed();
      return;
    }
    if (this.#closed) {
      this.#connecting = false;
      return;
    }
    const token = readToken(this.dataDir, this.#env);
    let ws: WebSocket;
    try {
      ws = new WebSocketClient(`ws://${urlHost(this.#host)}:${this.port}${this.#target?.path ?? '/ingest'}`, {
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        perMessageDeflate: false,
        maxPayload: 64 * 1024 * 1024,
        handshakeTimeout: 5000,
        // A zero masking key, which ws then skips applying: masking protects
        // intermediaries from payloads a browser script controls, and this
        // connection is a local process talking to loopback with nothing in
        // between. XOR-ing every byte in JavaScript cost ~7% of the proxy's
        // CPU while recording.
        generateMask: zeroMask,
      });
    } catch {
      this.#attemptFailed();
      return;
    }
    this.#ws = ws;
    ws.on('open', () => {
      // Never keep the host process alive for the sake of reporting.
      (ws as unknown as { _socket?: { unref(): void } })._socket?.unref();
      this.#attached = true;
      this.#reconnectDelay = this.#reconnectBase;
      // Reclaim every run: the server may have restarted, or marked the
      // run as ended when the connection dropped. (A start still in the
      // buffer arrives a second time behind it; the server applies the
      // repeat without logging it again.)
      const reclaim = [...this.#started.values()];
      if (reclaim.length > 0) ws.send(JSON.stringify(reclaim));
      this.emit('attached');
      // What was kept while detached goes at once.
      this.#drain();
    });
    ws.on('message', (data) => this.#onMessage(data.toString()));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
      this.emit('refused', res.statusCode ?? 0);
    });
    ws.on('close', () => {
      const wasAttached = this.#attached;
      this.#attached = false;
      this.#ws = undefined;
      if (wasAttached) {
        this.breakpoints = DEFAULT_BREAKPOINTS;
        this.emit('detached');
      }
      this.#attemptFailed();
    });
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    clearTimeout(this.#reconnectTimer);
    // While somebody waits for a debugger (hurry), every 250 ms at most: one that starts late is not missed.
    const delay = Date.now() < this.#hurryUntil ? Math.min(this.#reconnectDelay, HURRY_RECONNECT_MS) : this.#reconnectDelay;
    this.#reconnectTimer = setTimeout(() => this.#connect(), delay);
    this.#reconnectTimer.unref();
    this.#reconnectDelay = Math.min(this.#reconnectDelay * 2, MAX_RECONNECT_MS);
  }

  /**
   * Somebody waits for a debugger for the next `ms` (a `--wait-for-attach`,
   * an adapter's `waitForAttach`): until then connection attempts come at
   * least every 250 ms, and one is made now if none is under way.
   */
  hurry(ms: number): void {
    this.#hurryUntil = Math.max(this.#hurryUntil, Date.now() + ms);
    if (this.#attached || this.#connecting || this.#closed) return;
    clearTimeout(this.#reconnectTimer);
    this.#connect();
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
      } else if (message.type === 'rejected') {
        if (typeof message.runId !== 'string') return;
        this.emit('rejected', message.runId, typeof message.reason === 'string' ? message.reason : '');
      } else if (message.type === 'restart') {
        if (typeof message.runId !== 'string') return;
        this.emit('restart', message.runId);
      }
    } catch {
      // A listener that throws must not break the connection.
    }
  }
}
