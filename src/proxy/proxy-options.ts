import type { ChildProcess, SpawnOptions } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { DriftLock } from '../relay/drift-watch.js';
import type { TextSink } from '../relay/text-sink.js';

/** The shape of `child_process.spawn` the proxy needs; injectable for tests. */
export type SpawnFunction = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** Options for `runProxy`: one stdio proxy session. */
export interface ProxyOptions {
  /** The server's executable, run without a shell. */
  command: string;
  /** Its arguments, passed unchanged. @default [] */
  args?: readonly string[];
  /** One stderr line per relayed frame. @default false */
  trace?: boolean;
  /** Give the server our stderr instead of a pipe. @default false */
  inheritStderr?: boolean;
  /** Frame-assembly ceiling per direction. @default 67108864 (64 MiB) */
  maxFrameBytes?: number;
  /** Where the debugger listens (used by the reporter). @default 4747 */
  port?: number;
  /** The debugger's data directory, where its token is. @default GRAPHMIND_DATA_DIR, else ~/.graphmind */
  dataDir?: string;
  /**
   * Files and folders to watch: a change restarts the server under the
   * live host session (see docs/restart.md). While it is set, a server that
   * exits on its own also leaves the proxy up, answering requests with an
   * error, until the next change. @default [] (no watching)
   */
  watch?: readonly string[];
  /** Compare list answers with this lock file's surface for live drift (`--lock`), not with the session's first answers. @default undefined @internal */
  lock?: DriftLock;
  /** Hold the first frame until a debugger attaches. @default false */
  waitForAttach?: boolean;
  /** The host side's input. @default process.stdin */
  stdin?: Readable;
  /** The host side's output: the wire. @default process.stdout */
  stdout?: NodeJS.WritableStream & Writable;
  /** Where diagnostics and the server's stderr go. @default a non-blocking sink on fd 2 */
  stderr?: TextSink;
  /** The environment the server starts from (`GRAPHMIND_TOKEN` is removed). @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Start the child. @default child_process.spawn */
  spawn?: SpawnFunction;
  /** Forward SIGINT, SIGTERM and SIGHUP to the server. @default true */
  handleSignals?: boolean;
  /**
   * After the host closes our stdin, how long the server may keep running
   * before it is sent SIGTERM (and SIGKILL {@link ProxyOptions.killGraceMs}
   * later).
   * @default 5000
   */
  stdinCloseGraceMs?: number;
  /** Between SIGTERM and SIGKILL. @default 3000 */
  killGraceMs?: number;
  /**
   * How often to check that the process that started the proxy (the host)
   * is still its parent; when it is not, the host has died and the session
   * ends as if it had closed stdin. 0 turns the check off.
   * @default 1000 with the process's own stdin; 0 when `stdin` is given
   *   (the host is then not our parent)
   */
  watchHostMs?: number;
  /**
   * Report the session to `graphmind serve` on `port`. Off when
   * `GRAPHMIND_DISABLED=1` is in `env`.
   * @default true
   */
  report?: boolean;
  /**
   * After this many bytes relayed (both directions), ask V8 for a
   * young-generation collection, so that read buffers already written on
   * are freed instead of piling up (see docs/mcp-proxy.md, "Memory"). `0` leaves
   * the collector alone.
   * @default 16777216 (16 MiB)
   */
  releaseMemoryEvery?: number;
}

/** How a proxy session ended. */
export interface ProxyResult {
  /** What the proxy process should exit with: the server's code, 128+n for a signal, 127 when it could not start. */
  exitCode: number;
  /** `spawn-failed`, or `exited` once the server ran. */
  outcome: 'spawn-failed' | 'exited';
  /** The server answered at least one request. */
  answered: boolean;
  /** Non-JSON-RPC lines the server wrote to stdout. */
  stdoutNoise: number;
}
