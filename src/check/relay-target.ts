/**
 * The server a check talks to, as frames: on stdio it is started behind our
 * own relay (`createRelay`), so every line it writes is framed and
 * classified exactly as `graphmind mcp-proxy` frames and classifies it
 * (noise included); over Streamable HTTP the SDK's client transport speaks
 * HTTP (replay/http-target.ts) and each message is classified as a frame
 * with the same classifier. The check sees classified frames and one line
 * when the server is gone, never bytes.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough, Writable } from 'node:stream';
import { pathKind } from '../proxy/child-process.js';
import { describeExit, exitedEarly, spawnFailed, withoutPrefix } from '../proxy/messages.js';
import { StderrTail } from '../proxy/stderr-tail.js';
import { HttpTarget } from '../replay/http-target.js';
import { classify } from '../streams/classifier.js';
import { Correlator } from '../streams/correlator.js';
import { createRelay, type Relay } from '../streams/create-relay.js';
import { newFrame, type Direction, type Frame } from '../streams/frame.js';

/** How a server ended, for the check. */
export type EndKind = 'spawn-failure' | 'exit';

/** What a target tells the check. */
export interface TargetEvents {
  /** A classified frame, either way (the check's own requests too, so answers pair with them). */
  frame(frame: Frame): void;
  /** The server could not start, could not be reached, or ended: `line` says how, without a prefix. */
  ended(line: string, kind: EndKind): void;
}

/** A server being checked. */
export interface CheckTarget {
  /** Send one message (its JSON text, no newline). */
  send(text: string): void;
  /** The server's last stderr lines (none over HTTP). */
  stderrTail(): string[];
  /** End the session and the server. */
  stop(): Promise<void>;
}

/** How long a server may take to go once its stdin is closed, before SIGTERM (many never exit on stdin's end; the check is done by then). */
const STOP_GRACE_MS = 200;
/** How long after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** A stdio server behind our relay (see the module). */
class StdioRelayTarget implements CheckTarget {
  readonly #child: ChildProcess;
  readonly #toServer = new PassThrough();
  readonly #tail = new StderrTail({ maxLines: 50, maxBytes: 8192 });
  readonly #relay: Relay | undefined;
  #answered = false;
  #gone = false;
  readonly #exited: Promise<void>;

  constructor(command: readonly string[], events: TargetEvents) {
    const [file, ...args] = command as [string, ...string[]];
    this.#child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stderr?.on('data', (chunk: Buffer) => this.#tail.push(chunk));
    this.#child.stdin?.on('error', () => undefined); // a server gone: its exit says so
    // What the relay writes towards the host is read from the frames: the bytes themselves are not needed.
    const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
    const onFrame = (frame: Frame): void => {
      if (frame.direction === 'server-to-client' && (frame.type === 'response' || frame.type === 'error')) this.#answered = true;
      events.frame(frame);
    };
    if (this.#child.stdout !== null && this.#child.stdin !== null) {
      // A gate that holds nothing, but has no `mayHold`: long lines are assembled whole, so every answer can be read.
      this.#relay = createRelay({
        client: { readable: this.#toServer, writable: sink, end: false },
        server: { readable: this.#child.stdout, writable: this.#child.stdin },
        gate: { check: () => undefined },
        onFrame,
      });
    }
    this.#exited = new Promise((resolve) => {
      this.#child.once('error', (error: NodeJS.ErrnoException) => {
        if (this.#child.pid !== undefined || this.#gone) return;
        this.#gone = true;
        events.ended(withoutPrefix(spawnFailed(file, { code: error.code, message: error.message, pathKind: pathKind(file) })), 'spawn-failure');
        resolve();
      });
      this.#child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.#gone) return resolve();
        this.#gone = true;
        const line = this.#answered ? `the MCP server ${describeExit(code, signal)}` : withoutPrefix(exitedEarly(code, signal, this.#tail.lines()));
        events.ended(line, 'exit');
        resolve();
      });
    });
  }

  send(text: string): void {
    if (!this.#gone) this.#toServer.write(`${text}\n`);
  }

  stderrTail(): string[] {
    return this.#tail.lines();
  }

  async stop(): Promise<void> {
    if (!this.#gone) {
      this.#toServer.end(); // the relay ends the server's stdin after what is queued
      const term = setTimeout(() => this.#child.kill('SIGTERM'), STOP_GRACE_MS);
      const kill = setTimeout(() => this.#child.kill('SIGKILL'), STOP_GRACE_MS + KILL_GRACE_MS);
      await this.#exited;
      clearTimeout(term);
      clearTimeout(kill);
    }
    this.#relay?.destroy();
  }
}

/** Classifies whole messages as frames, with a correlator of their own: the HTTP side, and a test's. */
export class MessageFrames {
  readonly #correlator = new Correlator();
  #seq = { 'client-to-server': 0, 'server-to-client': 0 };

  /** The frame of one message's text going `direction`. */
  frameOf(text: string, direction: Direction): Frame {
    const frame = newFrame(Buffer.from(`${text}\n`, 'utf8'), direction, ++this.#seq[direction], true);
    return classify(frame, this.#correlator);
  }
}

/** The server to check: a command started on stdio, or a Streamable HTTP URL. */
export type CheckTargetSpec = { command: readonly string[] } | { url: string };

/** Start (or reach) the server; a URL that is not one is reported as a spawn failure. */
export async function openCheckTarget(spec: CheckTargetSpec, events: TargetEvents): Promise<CheckTarget> {
  if (!('url' in spec)) return new StdioRelayTarget(spec.command, events);
  const frames = new MessageFrames();
  const failed = (line: string): CheckTarget => {
    events.ended(line, 'spawn-failure');
    return { send: () => undefined, stderrTail: () => [], stop: async () => undefined };
  };
  let url: URL;
  try {
    url = new URL(spec.url);
  } catch {
    return failed(`--url ${spec.url} is not a URL (give one such as http://127.0.0.1:3000/mcp)`);
  }
  let answered = false;
  let target: HttpTarget;
  try {
    target = await HttpTarget.open(url, {
      message: (_message, text) => {
        const frame = frames.frameOf(text, 'server-to-client');
        if (frame.type === 'response' || frame.type === 'error') answered = true;
        events.frame(frame);
      },
      // Over HTTP a server "ends" when it cannot be reached: before any answer, that is a spawn failure.
      ended: (line) => events.ended(line, answered ? 'exit' : 'spawn-failure'),
    });
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
  return {
    send: (text) => {
      events.frame(frames.frameOf(text, 'client-to-server'));
      target.send(text);
    },
    stderrTail: () => [],
    stop: () => target.stop(),
  };
}
