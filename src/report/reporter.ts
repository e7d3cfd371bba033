import { EventEmitter } from 'node:events';
import type WebSocket from 'ws';
import { debuggerAddress, defaultDataDir } from './config.js';
import type { CompletedRun } from './completed-run.js';
import { deferredBytes } from './deferred.js';
import { encodeBatch } from './encode-batch.js';
import { DEFAULT_MAX_BUFFERED_EVENTS, EVENT_OVERHEAD_BYTES, EventBuffer, eventWeight, type RunState } from './event-buffer.js';
import type { Breakpoints } from '../protocol/control.js';
import type { BreakpointsAck, RunEvent, RunStartedEvent } from '../protocol/ingest.js';
import { IngestLink } from './ingest-link.js';
import { parseIngestUrl, urlHost } from './ingest-url.js';
import { newRunId } from './run-id.js';
import type { ReporterOptions } from './reporter-options.js';
import { readServerMessage } from './server-message.js';

export { DEFAULT_MAX_BUFFERED_EVENTS, EVENT_OVERHEAD_BYTES } from './event-buffer.js';
export { parseIngestUrl } from './ingest-url.js';
export { newRunId } from './run-id.js';
export type { DecisionMessage, SendMessage } from './server-message.js';
export type { ReporterOptions } from './reporter-options.js';

/** An event as handed to the reporter: it adds `runId`, `seq` and `t`. */
export type OutgoingEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 'runId' | 'seq' | 't'> : never) : never;

/** Default breakpoints until the server says otherwise: pause on error. */
export const DEFAULT_BREAKPOINTS: Breakpoints = Object.freeze({ pauseOnError: true, nodes: Object.freeze({}) }) as Breakpoints;

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
/**
 * The client runtime every integration reports through. It sends run events
 * to `graphmind serve` in order over one WebSocket, keeps them in a bounded
 * buffer while no debugger is there (replayed on attach), reconnects with
 * backoff, and receives breakpoints and decisions.
 *
 * While detached it looks for a debugger with a plain TCP connection to its
 * port first; only when something answers does it ask that listener to
 * prove it holds the token (control API, security rule 12), and only a
 * listener that does gets the token and the events.
 *
 * It never throws into its caller and never writes to stdout: observation
 * is best-effort, and the caller's work goes on whatever happens here.
 *
 * Events: `'attached'`, `'detached'`, `'breakpoints'` (Breakpoints),
 * `'decision'` (a `DecisionMessage`), `'refused'` (the HTTP status with
 * which something on the port turned the connection down: 401 for a token
 * that is not the debugger's; it is tried again, with backoff, as when
 * nothing listens; also emitted as 401, without anything sent, when the
 * listener proves it holds a token other than ours), `'impostor'` (the
 * port: something listens there but could not prove it holds our token,
 * so it was sent neither the token nor any event; tried again, with
 * backoff), `'rejected'` (a run id and the server's reason: the
 * server records nothing more of that run on this connection, as when it
 * was deleted while live, or another connection reports it), `'restart'`
 * (a run id: the debugger asks the proxy reporting it to restart its server),
 * `'viewers'` (true or false: whether anyone watches the debugger's live
 * feed changed, see {@link Reporter.watched}), `'send'` (a `SendMessage`:
 * the debugger asks the proxy reporting a run to send a call to its
 * server again).
 */
export class Reporter extends EventEmitter {
  /** The debugger's port: the `url` option's when one is given, else the `port` option (default 4747). */
  readonly port: number;
  /** Where the debugger's token file is read from. */
  readonly dataDir: string;
  /** The latest breakpoints from the server (defaults while detached). */
  breakpoints: Breakpoints = DEFAULT_BREAKPOINTS;
  /**
   * False while the debugger says nobody watches its live feed (no viewer
   * is open): a frame held now waits for somebody to open one. True while
   * somebody does, while detached, and with a debugger that does not say.
   */
  watched = true;
  readonly #maxBuffered: number;
  readonly #maxInFlight: number;
  readonly #buffer: EventBuffer;
  readonly #link: IngestLink;
  #drainScheduled = false;
  #drainTimer: NodeJS.Timeout | undefined;

  constructor(options: ReporterOptions = {}) {
    super();
    const env = options.env ?? process.env;
    // The one rule (config.ts): url option, else port option, else GRAPHMIND_URL, else 4747.
    const address = debuggerAddress({ port: options.port, url: options.url }, env);
    const target = address.url === undefined ? undefined : parseIngestUrl(address.url);
    this.port = address.port;
    this.dataDir = options.dataDir ?? defaultDataDir(env);
    this.#maxBuffered = options.maxBufferedEvents ?? DEFAULT_MAX_BUFFERED_EVENTS;
    this.#maxInFlight = options.maxInFlightBytes ?? 4 * 1024 * 1024;
    this.#buffer = new EventBuffer(this.#maxBuffered, options.maxBufferedBytes ?? 16 * 1024 * 1024);
    this.#link = new IngestLink(
      { target, port: this.port, dataDir: this.dataDir, env, reconnectMs: options.reconnectMs ?? 250 },
      {
        opened: (ws) => this.#opened(ws),
        message: (text) => this.#onMessage(text),
        closed: (wasAttached) => {
          if (!wasAttached) return;
          this.breakpoints = DEFAULT_BREAKPOINTS;
          this.watched = true;
          this.emit('detached');
        },
        refused: (status) => this.emit('refused', status),
        impostor: () => this.emit('impostor', this.port),
      },
    );
    // An 'error' with no listener would throw; reporting must never do that.
    this.on('error', () => {});
    if (options.connect ?? true) this.#link.connect();
  }

  /** True while a debugger is connected. */
  get attached(): boolean {
    return this.#link.attached;
  }

  /**
   * The debugger's address as a URL (`http://127.0.0.1:4747`, or
   * `http://[::1]:4747` for one on IPv6 loopback): where it was last
   * reached, 127.0.0.1 before it ever was.
   */
  get url(): string {
    return `http://${urlHost(this.#link.host)}:${this.port}`;
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
    if (count > 0) this.#buffer.countDrops(this.#buffer.runOf(runId), count);
  }

  /** Events waiting to be sent. */
  get pending(): number {
    return this.#buffer.pending;
  }

  /** Begin a run (at `t`, ms since the epoch, default now; under `runId`, default a new one); returns its id. */
  startRun(name: string, source: string, meta: Record<string, unknown>, t = Date.now(), runId = newRunId()): string {
    const event: RunStartedEvent = { type: 'run.started', runId, seq: 1, t, name, source, meta };
    this.#buffer.start(event);
    this.#push(event, null, eventWeight(event));
    return runId;
  }

  /** Queue an event of `runId` (that happened at `t`, ms since the epoch, default now). */
  send(runId: string, event: OutgoingEvent, t = Date.now()): void {
    const run = this.#buffer.runOf(runId);
    const full = event as RunEvent;
    full.runId = runId;
    full.seq = ++run.seq;
    full.t = t;
    this.#push(full, this.#buffer.ownerOf(full, run), eventWeight(full));
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
    return ++this.#buffer.runOf(runId).seq;
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
    this.#push(event, this.#buffer.runOf(runId), EVENT_OVERHEAD_BYTES + heldBytes);
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
        const ws = this.#link.ws;
        if (this.pending === 0 && (ws === undefined || ws.bufferedAmount === 0) && this.attached) {
          resolve(true);
        } else if (Date.now() >= deadline || this.#link.closed) {
          resolve(this.pending === 0 && this.attached);
        } else {
          setTimeout(check, 10);
        }
      };
      check();
    });
  }

  /** Resolve true once attached, false after `timeoutMs`. */
  waitForAttach(timeoutMs: number): Promise<boolean> {
    if (this.attached) return Promise.resolve(true);
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
        if (this.attached) resolve(true);
        else if (!this.#link.connecting || this.#link.closed || Date.now() >= deadline) resolve(false);
        // Every millisecond: an adapter's first call may be waiting on it (adapter/first-contact.ts).
        else setTimeout(check, 1);
      };
      check();
    });
  }

  /**
   * Somebody waits for a debugger for the next `ms` (a `--wait-for-attach`,
   * an adapter's `waitForAttach`): until then connection attempts come at
   * least every 250 ms, and one is made now if none is under way.
   */
  hurry(ms: number): void {
    this.#link.hurry(ms);
  }

  /** Stop reporting and close the connection. */
  close(): void {
    this.#link.close();
  }

  /**
   * Send what is queued now, without waiting for the next batch: for a
   * caller that batches its events itself (the proxy's graph recorder).
   * Nothing happens while detached.
   */
  sendNow(): void {
    if (!this.attached) return;
    this.#drain();
    if (this.pending === 0 && this.#drainScheduled) {
      // Nothing left for the batch timer to send: one wakeup less.
      clearTimeout(this.#drainTimer);
      this.#drainScheduled = false;
    }
  }

  #push(event: RunEvent, owner: RunState | null, weight: number): void {
    const buffer = this.#buffer;
    buffer.push(event, owner, weight);
    if (this.#link.attached) {
      // A burst (a whole pipe read of calls in one go) must not overflow the
      // buffer while the debugger is keeping up: send a full batch now.
      // Only a debugger that is behind (or absent) makes the buffer drop.
      // A hold is somebody waiting at a breakpoint: it goes at once, with
      // everything before it.
      const urgent = event.type === 'hold.opened' || event.type === 'hold.released' || event.type === 'hold.updated';
      if ((urgent || buffer.size >= MAX_BATCH) && (this.#link.ws?.bufferedAmount ?? 0) <= this.#maxInFlight) this.#drain();
      if (!this.#drainScheduled && buffer.size > 0) this.#scheduleDrain();
    }
    buffer.trim();
  }

  #scheduleDrain(): void {
    if (this.#drainScheduled || !this.attached) return;
    this.#drainScheduled = true;
    this.#drainTimer = setTimeout(() => {
      this.#drainScheduled = false;
      this.#drain();
    }, COALESCE_MS).unref();
  }

  #drain(): void {
    const ws = this.#link.ws;
    if (!this.attached || ws === undefined) return;
    const buffer = this.#buffer;
    try {
      while (buffer.hasBacklog) {
        if (ws.bufferedAmount > this.#maxInFlight) {
          // The server is behind: keep buffering (bounded) and look again soon.
          setTimeout(() => this.#scheduleDrain(), 20).unref();
          return;
        }
        const batch = buffer.takeBatch(MAX_BATCH, Date.now());
        ws.send(encodeBatch(batch), { binary: false }, (error) => {
          // Never written (the connection dropped under it): send it again
          // on the next connection; the server ignores any seq it already has.
          if (error) buffer.unsent(batch);
        });
      }
    } catch {
      // A send on a closing socket: the close handler reconnects and replays.
    }
  }

  /** The connection is up: reclaim every live run, say so, and send what was kept. */
  #opened(ws: WebSocket): void {
    // Reclaim every run: the server may have restarted, or marked the
    // run as ended when the connection dropped. (A start still in the
    // buffer arrives a second time behind it; the server applies the
    // repeat without logging it again.)
    const reclaim = this.#buffer.reclaims();
    if (reclaim.length > 0) ws.send(JSON.stringify(reclaim));
    this.emit('attached');
    // What was kept while detached goes at once.
    this.#drain();
  }

  #onMessage(text: string): void {
    const message = readServerMessage(text);
    if (message === undefined) return;
    try {
      if (message.type === 'breakpoints') {
        this.breakpoints = message.breakpoints;
        // Listeners (the gates) apply them as they hear them: once emit returns they are in force.
        this.emit('breakpoints', message.breakpoints);
        if (message.version !== undefined) this.#ack(message.version);
      } else if (message.type === 'decision') {
        this.emit('decision', message.decision);
      } else if (message.type === 'rejected') {
        this.emit('rejected', message.runId, message.reason);
      } else if (message.type === 'send') {
        this.emit('send', message.send);
      } else if (message.type === 'viewers') {
        if (message.watching === this.watched) return;
        this.watched = message.watching;
        this.emit('viewers', message.watching);
      } else {
        this.emit('restart', message.runId);
      }
    } catch {
      // A listener that throws must not break the connection.
    }
  }

  /** Tell the server the breakpoints numbered `version` are applied (see docs/control-api.md, Ingest). */
  #ack(version: number): void {
    const ack: BreakpointsAck = { type: 'breakpoints.ack', version };
    try {
      this.#link.ws?.send(JSON.stringify(ack));
    } catch {
      // A closing socket: the next connection is sent the breakpoints again.
    }
  }
}
