/**
 * `graphmind serve --otlp-endpoint`: every run streamed to an OTLP/HTTP
 * receiver as it is recorded, through OpenTelemetry's own exporters.
 *
 * The stream watches the store ({@link RunObserver}); on ingest's path it
 * only notes which calls ended (a push onto a list) and passes hold events
 * and request ids to the run's {@link RunFacts}. Spans are built on a timer, a settling
 * time after a call ended (an answer held at an after or error gate opens
 * its hold right after it is recorded, and a decision may still replace
 * it: a call is sent once no hold of it is open), and go into a bounded
 * queue; one batch at a time is exported. A receiver that is slow or down
 * costs the recording nothing: the queue fills, and what does not fit is
 * dropped and counted ({@link OtlpStats}, shown by `GET /api/health`), as
 * are spans whose export failed. The runs themselves are recorded as
 * always.
 *
 * A run's root span is sent when the run ends.
 *
 * @module
 */
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Instance } from '../protocol/run-model.js';
import type { RunEvent } from '../protocol/ingest.js';
import type { RunState } from '../protocol/run-state.js';
import { traceRunOf } from './log-replay.js';
import type { RunObserver } from './run-observer.js';
import { endpointText, type OtlpConfig } from './otlp-config.js';
import { graphmindScope, readableSpan, runResource } from './otel-spans.js';
import { decisionsOf, RunFacts } from './run-facts.js';
import { callSpan } from './call-span.js';
import { rootSpan } from './root-span.js';
import { resourceOf, rootInstanceOf, type TraceRun } from './trace-model.js';

/** What the stream has done, for `GET /api/health` (`otlp`). */
export interface OtlpStats {
  /** Where spans go (no credentials, no query). */
  endpoint: string;
  protocol: string;
  /** Spans waiting to be sent. */
  queued: number;
  /** Spans the receiver took. */
  exported: number;
  /** Spans dropped because the queue was full (a receiver slower than the recording). */
  dropped: number;
  /** Spans lost because their export failed (the receiver is down, refused them, or timed out). */
  failed: number;
  /** The last export error, when the last export failed. */
  lastError?: string;
}

/** Options for {@link OtlpStream}. */
export interface OtlpStreamOptions {
  config: OtlpConfig;
  /** GraphMind's version (the spans' instrumentation scope). */
  version: string;
  /** Told, in one line, when exports fail or spans are dropped (at most once a minute). @default stderr */
  onWarning?: (line: string) => void;
  /** How often spans are built and sent, ms. A call is sent after one to two of these. @default 500 */
  intervalMs?: number;
  /** Spans per export request. @default 512 */
  batchSize?: number;
  /** The exporter; made from `config` when not given (tests give their own). */
  exporter?: SpanExporter;
}

/** Spans built in one turn of the event loop at most; the rest wait for the next. */
const MAX_BUILT_PER_TURN = 2000;
/** One warning a minute at most. */
const WARN_EVERY_MS = 60_000;

/** A run being streamed. */
interface LiveRun {
  state: RunState;
  view: TraceRun;
  facts: RunFacts;
  /** Calls that ended, and the sweep that saw them end. */
  ended: string[];
  endedAt: number[];
  /**
   * Held calls sent already: only a decision (a retry, an inject after a
   * retry) ends a call again, so only calls that were held are kept here,
   * not to be sent twice.
   */
  sent: Set<string>;
  /** The run ended: send what is left, then its root. */
  finished: boolean;
}

/** Make the exporter for `config`, loading only the package its protocol needs. */
export async function createExporter(config: OtlpConfig): Promise<SpanExporter> {
  const options = { url: config.url, headers: { ...config.headers }, timeoutMillis: config.timeoutMs, concurrencyLimit: 2 };
  if (config.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(options);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(options);
}

/** The OTLP stream of a server (see the module). */
export class OtlpStream implements RunObserver {
  readonly #config: OtlpConfig;
  readonly #exporter: SpanExporter;
  readonly #warn: (line: string) => void;
  readonly #batchSize: number;
  readonly #scope: ReturnType<typeof graphmindScope>;
  readonly #runs = new Map<string, LiveRun>();
  #queue: ReadableSpan[] = [];
  #inFlight = 0;
  #sweep = 0;
  #exported = 0;
  #dropped = 0;
  #failed = 0;
  #lastError: string | undefined;
  #lastWarning = 0;
  #timer: NodeJS.Timeout;
  #soon = false;
  #closed = false;
  /** Exports under way, for close to wait on. */
  readonly #exports = new Set<Promise<void>>();

  private constructor(options: OtlpStreamOptions, exporter: SpanExporter) {
    this.#config = options.config;
    this.#exporter = exporter;
    this.#warn = options.onWarning ?? ((line) => process.stderr.write(`graphmind: ${line}\n`));
    this.#batchSize = Math.max(1, options.batchSize ?? 512);
    this.#scope = graphmindScope(options.version);
    this.#timer = setInterval(() => this.#tick(), Math.max(10, options.intervalMs ?? 500));
    this.#timer.unref();
  }

  /** A stream with its exporter made. */
  static async start(options: OtlpStreamOptions): Promise<OtlpStream> {
    return new OtlpStream(options, options.exporter ?? (await createExporter(options.config)));
  }

  applied(state: RunState, event: RunEvent): void {
    if (this.#closed) return;
    let live = this.#runs.get(event.runId);
    if (live === undefined) {
      live = { state, view: traceRunOf(state), facts: new RunFacts(), ended: [], endedAt: [], sent: new Set(), finished: false };
      this.#runs.set(event.runId, live);
    }
    switch (event.type) {
      case 'instance.started':
        if (event.requestId !== undefined) live.facts.apply(event, (instanceId) => state.byId.get(instanceId));
        return;
      case 'instance.completed':
        if (event.requestId !== undefined) live.facts.apply(event, (instanceId) => state.byId.get(instanceId));
        live.ended.push(event.instanceId);
        live.endedAt.push(this.#sweep);
        return;
      case 'instance.finished':
      case 'instance.error':
        live.ended.push(event.instanceId);
        live.endedAt.push(this.#sweep);
        return;
      case 'hold.opened':
      case 'hold.updated':
      case 'hold.released':
        live.facts.apply(event, (instanceId) => state.byId.get(instanceId));
        return;
      case 'run.started':
        live.finished = false;
        return;
      case 'run.finished':
        this.#finish(live);
        return;
      default:
        return;
    }
  }

  abandoned(state: RunState): void {
    const live = this.#runs.get(state.summary.runId);
    if (live !== undefined && !this.#closed) this.#finish(live);
  }

  /** What the stream has done so far. */
  stats(): OtlpStats {
    const stats: OtlpStats = {
      endpoint: endpointText(this.#config.url),
      protocol: this.#config.protocol,
      queued: this.#queue.length,
      exported: this.#exported,
      dropped: this.#dropped,
      failed: this.#failed,
    };
    if (this.#lastError !== undefined) stats.lastError = this.#lastError;
    return stats;
  }

  /**
   * Send what there is, runs still live included (as they are now), and
   * wait for the exports, at most `waitMs`; then stop.
   */
  async close(waitMs = 1500): Promise<void> {
    if (this.#closed) return;
    for (const live of this.#runs.values()) live.finished = true;
    const deadline = Date.now() + waitMs;
    while (this.#runs.size > 0) this.#build(Number.POSITIVE_INFINITY);
    this.#closed = true;
    clearInterval(this.#timer);
    while ((this.#queue.length > 0 || this.#exports.size > 0) && Date.now() < deadline) {
      this.#send();
      await Promise.race([Promise.all(this.#exports), new Promise((resolve) => setTimeout(resolve, Math.max(1, deadline - Date.now())))]);
    }
    await this.#exporter.shutdown().catch(() => {});
  }

  /** The run ended: send what is left of it soon (not now: this is ingest's turn). */
  #finish(live: LiveRun): void {
    live.finished = true;
    if (this.#soon) return;
    this.#soon = true;
    setImmediate(() => {
      this.#soon = false;
      this.#tick(false);
    });
  }

  #tick(advance = true): void {
    if (this.#closed) return;
    if (advance) this.#sweep++;
    if (!this.#build(MAX_BUILT_PER_TURN)) setImmediate(() => this.#tick(false));
    this.#send();
  }

  /** Build the spans that are ready, at most `budget`; false when some had to wait for the next turn. */
  #build(budget: number): boolean {
    let built = 0;
    for (const [runId, live] of this.#runs) {
      if (live.ended.length === 0 && !live.finished) continue;
      const { state, view, facts } = live;
      const resource = runResource(resourceOf(view));
      const decisions = decisionsOf(state.meta);
      const now = Date.now();
      const root = rootInstanceOf(view);
      const send = (instance: Instance): void => {
        const held = facts.holdsOf(instance.instanceId).length > 0;
        if (held) live.sent.add(instance.instanceId);
        const record = callSpan(view, facts, instance, { now, root, decisions });
        if (record !== undefined) this.#enqueue(readableSpan(record, resource, this.#scope));
        // What the span needed of the facts is in it now (a call that was not held ends only once).
        facts.forget(instance.instanceId);
        built++;
      };
      // A call that ended at least one full sweep ago, and is not held now, is settled.
      const settledBefore = live.finished ? Number.POSITIVE_INFINITY : this.#sweep - 1;
      const waiting: number[] = [];
      let i = 0;
      for (; i < live.ended.length && built < budget; i++) {
        if ((live.endedAt[i] as number) >= settledBefore) break;
        const instanceId = live.ended[i] as string;
        if (live.sent.has(instanceId)) continue;
        const instance = state.byId.get(instanceId);
        if (instance === undefined || instance.status === 'open') continue; // it ends again later, and is noted again
        if (facts.isHeld(instanceId) && !live.finished) {
          waiting.push(i);
          continue;
        }
        send(instance);
      }
      // Held calls stay in the list, for the next sweep.
      const keepIds = waiting.map((index) => live.ended[index] as string).concat(live.ended.slice(i));
      const keepAt = waiting.map((index) => live.endedAt[index] as number).concat(live.endedAt.slice(i));
      live.ended = keepIds;
      live.endedAt = keepAt;
      if (built >= budget) return false;
      if (!live.finished || live.ended.length > 0) continue;
      // The run is over: calls it never ended (its reporter went away), then its root.
      facts.endAll(state.lastT);
      for (const instance of state.instances) {
        if (instance.status === 'open' && !live.sent.has(instance.instanceId) && instance !== root) send(instance);
      }
      this.#enqueue(readableSpan(rootSpan(view, { now, root }), resource, this.#scope));
      this.#runs.delete(runId);
    }
    return true;
  }

  #enqueue(span: ReadableSpan): void {
    if (this.#queue.length >= this.#config.maxQueue) {
      this.#dropped++;
      this.#warnSoon(`the OTLP queue is full (${this.#config.maxQueue} spans waiting for ${endpointText(this.#config.url)}): ${this.#dropped} span(s) dropped so far; the runs are recorded here as always`);
      return;
    }
    this.#queue.push(span);
  }

  /** Export the next batch, if none is under way. */
  #send(): void {
    if (this.#inFlight > 0 || this.#queue.length === 0) return;
    const batch = this.#queue.splice(0, this.#batchSize);
    this.#inFlight++;
    const done = new Promise<void>((resolve) => {
      let settled = false;
      const finish = (result: ExportResult): void => {
        if (settled) return;
        settled = true;
        this.#inFlight--;
        if (result.code === ExportResultCode.SUCCESS) {
          this.#exported += batch.length;
          this.#lastError = undefined;
        } else {
          this.#failed += batch.length;
          this.#lastError = result.error?.message ?? 'the export failed';
          this.#warnSoon(`OTLP export to ${endpointText(this.#config.url)} failed (${this.#lastError}): ${this.#failed} span(s) lost so far; the runs are recorded here as always`);
        }
        resolve();
        if (!this.#closed) this.#send();
      };
      try {
        this.#exporter.export(batch, finish);
      } catch (error) {
        finish({ code: ExportResultCode.FAILED, error: error instanceof Error ? error : new Error(String(error)) });
      }
    });
    this.#exports.add(done);
    void done.then(() => this.#exports.delete(done));
  }

  #warnSoon(line: string): void {
    const now = Date.now();
    if (now - this.#lastWarning < WARN_EVERY_MS) return;
    this.#lastWarning = now;
    try {
      this.#warn(line.replace(/[\r\n]+/g, ' '));
    } catch {
      // a warning that cannot be written is not the stream's problem
    }
  }
}
