/**
 * `graphmind serve`: the debugger's server. It binds first, then prepares
 * the data directory (token, run store), then routes (gateway.ts) to the
 * REST API, the live feed, ingest and the viewer; the shared state and the
 * actions on it are in controls.ts.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { join } from 'node:path';
import { DEFAULT_PORT, defaultDataDir } from '../report/config.js';
import type { OtlpConfig } from '../export/otlp-config.js';
import type { OtlpStream } from '../export/otlp-stream.js';
import { createControls, runGoneHandler } from './controls.js';
import { Gateway } from './gateway.js';
import { HoldRegistry } from './holds.js';
import { sendError } from './http-util.js';
import { bindHostOf, createHttpServer, listenOn, REQUEST_TIMEOUT_MS, type Handlers } from './listen.js';
import { LiveFeed } from './live-feed.js';
import { ObservedRunStore } from './observed-store.js';
import { RetentionNotice, retentionLine } from './retention-notice.js';
import { broadcastLoad } from './run-loader-feed.js';
import { createRunTransfer } from './run-transfer.js';
import { prepareToken } from './token-file.js';

export { ServeError } from './listen.js';

/** Options for {@link startServer}. */
export interface ServeOptions {
  /** @default 4747 (0 picks a free port) */
  port?: number;
  /** A loopback address only. @default '127.0.0.1' */
  host?: string;
  /** @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
  /** Arm the error gate for every reporter. @default true */
  pauseOnError?: boolean;
  /** Recorded runs kept. @default 200 */
  maxRuns?: number;
  /** Largest request body, bytes. @default 67108864 (64 MiB) */
  maxBody?: number;
  /** Largest WebSocket message from a reporter, bytes. @default 134217728 (128 MiB) */
  maxIngestPayload?: number;
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Reported by `/api/health`. @default '0.0.0' */
  version?: string;
  /**
   * How long a request may take to arrive, headers and body; a client that
   * stalls past it is dropped (Node answers 408 if it can). @default 30000
   */
  requestTimeoutMs?: number;
  /**
   * Stream every run to this OTLP/HTTP receiver as it is recorded (see
   * docs/export.md). OpenTelemetry is loaded only when this is set.
   * @default undefined (no streaming)
   */
  otlp?: OtlpConfig;
  /** Told, in one line, of OTLP exports that fail and spans dropped. @default stderr */
  onOtlpWarning?: (line: string) => void;
  /**
   * Told, in one line, of the runs `--max-runs` deleted (at most once a
   * second; see retention-notice.ts). @default writes `graphmind: <line>` on stderr
   */
  onRetention?: (line: string) => void;
}

/** The runs on disk once loaded ({@link GraphmindServer.loaded}). */
export interface LoadedRuns {
  /** Runs the server holds then. */
  runs: number;
  /** Lines of their logs that could not be read. */
  skippedLines: number;
}

/** A running debugger server. */
export interface GraphmindServer {
  /** The port it listens on (the one picked, when asked for port 0). */
  readonly port: number;
  /** The loopback address it listens on: `127.0.0.1` or `::1` (no brackets). */
  readonly host: string;
  /** The viewer's URL, e.g. `http://127.0.0.1:4747`. */
  readonly url: string;
  /** The token every API, live feed and ingest request must present. */
  readonly token: string;
  /** Where the token was written, or null when it came from GRAPHMIND_TOKEN. */
  readonly tokenFile: string | null;
  /** The data directory: the token file and the run logs (under `runs/`). */
  readonly dataDir: string;
  /** Lines of run logs that could not be read on load (a torn last line, say): 0 until {@link GraphmindServer.loaded}. */
  readonly skippedLogLines: number;
  /**
   * Settles once the run logs found at start are loaded (they load in the
   * background: the server answers meanwhile), with how many runs it holds
   * and how many lines could not be read.
   */
  readonly loaded: Promise<LoadedRuns>;
  /** Stop: close the live feeds and reporter connections, then the server, then the run store. */
  close(): Promise<void>;
}

/** How long a start waits for the runs on disk to load before it returns (they go on loading after it), ms. */
const START_LOAD_WAIT_MS = 100;

/** Resolves when `promise` settles or `ms` have passed, whichever comes first. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** The OTLP stream, when asked for. Loaded only then: OpenTelemetry is on no other path. */
async function startOtlp(options: ServeOptions, version: string): Promise<OtlpStream | undefined> {
  if (options.otlp === undefined) return undefined;
  const { OtlpStream } = await import('../export/otlp-stream.js');
  return OtlpStream.start({ config: options.otlp, version, onWarning: options.onOtlpWarning });
}

/** The token and the run store of `dataDir` (its runs not loaded yet). */
function openDataDir(dataDir: string, env: NodeJS.ProcessEnv, maxRuns: number | undefined, runGone: (runId: string) => void, notice: RetentionNotice) {
  const { token, file } = prepareToken(dataDir, env);
  const store = new ObservedRunStore({
    dir: join(dataDir, 'runs'),
    maxRuns,
    // The adapter's runs go to shared segment files: a log file each cost more than the rest of a run.
    segments: true,
    // A run that retention deletes is gone for the viewers too, and what retention deleted is said.
    onRetentionDelete: runGone,
    onRetention: (deleted) => notice.add(deleted),
  });
  return { token, tokenFile: file, store };
}

/**
 * What `--max-runs` deletes, said (coalesced, see retention-notice.ts) on
 * stderr, or to `onRetention`, and on the live feed; `told` is the total
 * said so far, for a viewer's snapshot.
 */
function speakRetention(maxRuns: number, feed: LiveFeed, onRetention = (line: string): unknown => process.stderr.write(`graphmind: ${line}\n`)) {
  let trimmed = 0;
  const notice = new RetentionNotice({
    say(deleted) {
      trimmed += deleted;
      onRetention(retentionLine(deleted, maxRuns));
      feed.broadcast({ type: 'runs.trimmed', deleted, maxRuns });
    },
  });
  const told = (): { deleted: number; maxRuns: number } | undefined => (trimmed === 0 ? undefined : { deleted: trimmed, maxRuns });
  return { notice, told };
}

/**
 * Start `graphmind serve`: the REST control API, the live feed, the ingest
 * socket for reporters, the viewer, and the run store. Every request and
 * upgrade passes the target, Host and Origin checks before routing, and
 * every API, feed and ingest request needs the token.
 */
export async function startServer(options: ServeOptions = {}): Promise<GraphmindServer> {
  const env = options.env ?? process.env;
  const bindHost = bindHostOf(options.host ?? '127.0.0.1');
  const dataDir = options.dataDir ?? defaultDataDir(env);
  const version = options.version ?? '0.0.0';
  // Loaded before the bind.
  const otlp = await startOtlp(options, version);
  // Bind first. A start that fails (a busy port: another graphmind is
  // running) must leave that server's data directory as it is: its token,
  // which its reporters read again on every reconnect, and its run logs,
  // which loading would trim to --max-runs and mend. Until the setup below
  // has run (synchronously, right after the bind), no request can arrive.
  const handlers: Handlers = {
    request: (_req: IncomingMessage, res: ServerResponse) => sendError(res, 503, 'starting'),
    upgrade: (_req: IncomingMessage, socket: Duplex) => socket.destroy(),
  };
  const server = createHttpServer(options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS, handlers);
  const port = await listenOn(server, options.port ?? DEFAULT_PORT, bindHost);

  const feed = new LiveFeed();
  const holds = new HoldRegistry();
  const runGone = runGoneHandler(holds, feed);
  const maxRuns = options.maxRuns ?? 200;
  const { notice, told } = speakRetention(maxRuns, feed, options.onRetention);
  let opened: ReturnType<typeof openDataDir>;
  try {
    opened = openDataDir(dataDir, env, maxRuns, runGone, notice);
  } catch (error) {
    server.close();
    void otlp?.close(0);
    throw error;
  }
  const { token, tokenFile, store } = opened;
  store.observer = otlp;
  // A log that stops being written (a full disk) is news for the viewers: the summary says why.
  store.onRecordingStopped = (state) => feed.broadcast({ type: 'run.updated', run: { ...state.summary } });
  const transfer = createRunTransfer(store, feed, version);
  const maxBody = options.maxBody ?? 64 * 1024 * 1024;
  const pauseOnError = options.pauseOnError ?? true;
  const controls = createControls({ store, holds, feed, version, maxBody, pauseOnError, transfer, otlp, runGone, trimmed: told });
  const gateway = new Gateway({ port, token, dataDir, maxIngestPayload: options.maxIngestPayload ?? 128 * 1024 * 1024, controls });
  handlers.request = gateway.request;
  handlers.upgrade = gateway.upgrade;
  // The runs on disk load in the background: the server answers from now on, whatever their number.
  let skippedLogLines = 0;
  const loaded = broadcastLoad(store, feed).then((done) => {
    skippedLogLines = done.skippedLines;
    return done;
  });
  // A usual data directory loads in a few ms: the start is announced once it has (whoever looks next sees
  // every run); a large one goes on loading in the background past this bound.
  await settledWithin(loaded, START_LOAD_WAIT_MS);

  const urlHost = bindHost === '::1' ? '[::1]' : bindHost;
  return {
    port,
    host: bindHost,
    url: `http://${urlHost}:${port}`,
    token,
    tokenFile,
    dataDir,
    get skippedLogLines() {
      return skippedLogLines;
    },
    loaded,
    async close() {
      feed.closeAll();
      gateway.terminateReporters();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await store.close();
      notice.flush();
      await otlp?.close();
    },
  };
}
