import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { RestartRecord } from '../relay/relay-recorder.js';
import type { Relay } from '../streams/create-relay.js';
import { idKey } from '../streams/exact-id.js';
import { newFrame, type Frame } from '../streams/frame.js';
import { replayHandshake } from './handshake-replay.js';
import type { RestartGate } from './restart-gate.js';
import type { SessionMemory } from './session-memory.js';

/** The JSON-RPC error a request of the host gets when the server it was sent to is restarted before answering. */
export const RESTARTED_CODE = -32098;
/** Its message. */
export const RESTARTED_MESSAGE = 'the MCP server was restarted (graphmind mcp-proxy) while this request was in flight; send it again';

/** What the restarter needs from the proxy session around it. */
export interface RestarterOptions {
  relay: Relay;
  gate: RestartGate;
  memory: SessionMemory;
  /** Start a new server process (the same command line), or the error that stopped it. */
  spawn(): Promise<ChildProcess | Error>;
  /** The server process running now (undefined when none is). */
  current(): ChildProcess | undefined;
  /** True once the session is ending: a restart under way then starts no new server. @default never */
  cancelled?(): boolean;
  /** Take `child` as the server from now on: its stderr, its exit, its signals. */
  adopt(child: ChildProcess): void;
  /** Stop a server process and its children (SIGTERM, a grace period, SIGKILL); resolves once it has exited. */
  stop(child: ChildProcess): Promise<void>;
  /** Settles when `child` exits, with how ("exited with code 1", "was killed by SIGKILL"). */
  exited(child: ChildProcess): Promise<string>;
  /** The line of what `child` wrote on stderr that names its error, if one does (`SyntaxError: …`). @default none */
  lastWords?(child: ChildProcess): string | undefined;
  /** Answer a request of the host here, with a JSON-RPC error, and record it (error name `name`). */
  answer(request: Frame, code: number, message: string, name: string): void;
  /** What the relay reads of a server that is up. @default its stdout */
  output?(child: ChildProcess): Readable;
  /** Tell whoever watches: the restart's record (a line on stderr, the graph). */
  report(record: RestartRecord): void;
  /** What to do about a server that did not come back, for the error requests get meanwhile (e.g. "fix it and save to restart it"). */
  retryHint: string;
}

/** A stream pair that goes nowhere and never ends: the relay's server side between two servers, or while none runs. */
export function idleServer(): { readable: Readable; writable: Writable & NodeJS.WritableStream } {
  const readable = new PassThrough();
  const writable = new PassThrough();
  writable.resume();
  return { readable, writable };
}

/**
 * Restarts the server under a live host session. From the host's side a
 * restart is nothing but a pause: its frames wait (see {@link RestartGate}),
 * requests the old server had not answered are answered with
 * {@link RESTARTED_CODE}, the old process is stopped, a new one started and
 * brought to the host's session state by replaying the handshake
 * (`replayHandshake`), and the relay is switched over to it. Lists the host
 * had fetched that changed are announced to it (`notifications/<list>/list_changed`)
 * when the new server says it announces such changes.
 *
 * A server that cannot be started, or that fails before it is ready, leaves
 * the session `down` (requests are answered with an error) until the next
 * restart. Restarts never overlap: one asked for during another runs after it.
 */
export class Restarter {
  readonly #options: RestarterOptions;
  #generation = 0;
  #running: Promise<void> | undefined;
  #again: { reason: string; file?: string } | undefined;
  /** The server being started and not yet ready (its exit is the restart's to handle). */
  #starting: ChildProcess | undefined;

  constructor(options: RestarterOptions) {
    this.#options = options;
  }

  /** Restarts so far (the current server's generation). */
  get generation(): number {
    return this.#generation;
  }

  /** True while a restart is under way. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** True if `child` is a server being started by a restart (its exit is not the session's end). */
  starting(child: ChildProcess): boolean {
    return this.#starting === child;
  }

  /** Restart the server (`reason`: what asked; `file`: the change that did). Resolves when this restart (and any asked for during it) is over. */
  restart(reason: string, file?: string): Promise<void> {
    if (this.#running !== undefined) {
      this.#again = { reason, file };
      return this.#running;
    }
    this.#running = (async () => {
      let next: { reason: string; file?: string } | undefined = { reason, file };
      while (next !== undefined) {
        this.#again = undefined;
        await this.#once(next.reason, next.file);
        next = this.#again;
      }
    })().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #once(reason: string, file: string | undefined): Promise<void> {
    const o = this.#options;
    const { relay, gate } = o;
    const n = ++this.#generation;
    const started = Date.now();
    const record: RestartRecord = { n, at: new Date(started).toISOString(), reason, ...(file === undefined ? {} : { file }), ok: false };
    gate.pause();
    // Requests the old server was given and has not answered: nobody will now.
    for (const request of gate.takeInFlight(relay.correlator.outstanding('client-to-server'))) {
      const key = idKey(request);
      if (key !== undefined) relay.correlator.take('server-to-client', key);
      o.answer(request, RESTARTED_CODE, RESTARTED_MESSAGE, 'ServerRestarted');
    }
    // Requests the old server sent the host: their answers have nobody to go to.
    for (const request of relay.correlator.outstanding('server-to-client')) {
      const key = idKey(request);
      if (key === undefined) continue;
      relay.correlator.take('client-to-server', key);
      gate.stale.add(key);
    }
    // The old server's output is let go before it ends (its end is not the session's).
    relay.replaceServer(idleServer());
    const old = o.current();
    if (old !== undefined) await o.stop(old);
    if (o.cancelled?.() === true) {
      gate.down('the session is ending');
      return;
    }
    const child = await o.spawn();
    if (child instanceof Error) {
      const error = `it could not be started: ${child.message}`;
      gate.down(`${error}; ${o.retryHint}`);
      o.report({ ...record, error });
      return;
    }
    this.#starting = child;
    o.adopt(child);
    const replay = await replayHandshake(
      { stdin: child.stdin as Writable, stdout: child.stdout as Readable, exited: o.exited(child) },
      o.memory,
      n,
    );
    this.#starting = undefined;
    if (!replay.ok) {
      await o.stop(child);
      const said = o.lastWords?.(child);
      const error = `the new server ${replay.reason}${said === undefined ? '' : `: ${said}`}`;
      gate.down(`${error}; ${o.retryHint}`);
      o.report({ ...record, pid: child.pid, error });
      return;
    }
    relay.replaceServer({ readable: o.output?.(child) ?? (child.stdout as Readable), writable: child.stdin as Writable & NodeJS.WritableStream });
    gate.up();
    const changed: Array<{ kind: string; told: boolean }> = [];
    for (const { kind, announced } of replay.changed) {
      changed.push({ kind, told: announced });
      if (!announced) continue;
      const note = newFrame(Buffer.from(`{"jsonrpc":"2.0","method":"notifications/${kind}/list_changed"}\n`), 'server-to-client', 0, true);
      relay.toClient.send([note]);
    }
    o.report({ ...record, ok: true, pid: child.pid, ms: Date.now() - started, ...(changed.length === 0 ? {} : { changed }) });
  }
}
