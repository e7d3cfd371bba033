import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { DeferredValue } from '../report/deferred.js';
import type { GatePoint, InstanceError, NodeDeclaration } from '../report/events.js';
import { HIDDEN, redactCommandLine, type HideSettings } from '../report/hide.js';
import type { Reporter } from '../report/reporter.js';
import { messageOf, type Frame } from '../streams/frame.js';
import { PROTOCOL_NODE_ID, SESSION_NODE_ID, STDOUT_NOISE_NODE } from '../streams/node-naming.js';

/** How many stdout-noise lines become executions on the graph. */
export const MAX_NOISE_INSTANCES = 25;
/** Bytes of a noise line kept as its input. */
const NOISE_INPUT_BYTES = 200;
/**
 * Frames above this size are relayed in full but not recorded in full: the
 * record keeps a note of the size instead, so one huge result cannot bloat
 * the debugger or slow the relay.
 */
export const MAX_RECORDED_FRAME_BYTES = 1024 * 1024;

/**
 * What is recorded for one field of `frame`'s message: parsed only when the
 * event is sent, or a note instead when the frame is too large.
 */
function recorded(frame: Frame, pick: (message: Record<string, unknown>) => unknown): unknown {
  if (frame.raw.length > MAX_RECORDED_FRAME_BYTES) {
    return { '[graphmind]': 'not recorded: the frame is larger than 1 MiB', bytes: frame.raw.length };
  }
  return new DeferredValue(frame.raw.length, () => {
    const message = messageOf(frame);
    return message === undefined ? undefined : pick(message);
  });
}

/** The longest nodeId `graphmind serve` accepts; a longer one would get the whole batch rejected. */
export const MAX_NODE_ID_LENGTH = 1024;

/**
 * The node as declared to the debugger: a nodeId too long for it (a tool
 * name or resource URI of kilobytes) is shortened, stably, to a prefix and
 * a hash of the whole id, so one such call neither breaks the report nor
 * merges with another node.
 */
function declared(node: NodeDeclaration): NodeDeclaration {
  if (node.nodeId.length <= MAX_NODE_ID_LENGTH) return node;
  const hash = createHash('sha256').update(node.nodeId).digest('hex').slice(0, 16);
  const label = node.label.length > 200 ? `${node.label.slice(0, 199)}…` : node.label;
  return { ...node, nodeId: `${node.nodeId.slice(0, 1000)}…#${hash}`, label };
}

const pickParams = (message: Record<string, unknown>): unknown => message.params;
const pickResult = (message: Record<string, unknown>): unknown => message.result;

const PROTOCOL_NODE: NodeDeclaration = { nodeId: PROTOCOL_NODE_ID, kind: 'custom', parent: SESSION_NODE_ID, label: 'protocol' };

/** How the server process ended, for {@link GraphRecorder.finish}. */
export interface SessionEnd {
  /** The command could not be started. */
  spawnError?: { message: string; code?: string };
  /** The server died before answering anything. */
  exitedEarly?: { message: string; stderr: string[] };
  exitCode?: number | null;
  signal?: NodeJS.Signals | null;
}

/** Options for {@link GraphRecorder}. */
export interface GraphRecorderOptions {
  reporter: Reporter;
  command: string;
  args: readonly string[];
  hide: HideSettings;
}

function record(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The text of a result's content blocks, for a failed tool's error message. */
function contentText(result: Record<string, unknown>): string {
  const content = result.content;
  if (!Array.isArray(content)) return 'the tool reported an error';
  const texts = content.filter((block) => record(block) && typeof block.text === 'string').map((block) => (block as { text: string }).text);
  const text = texts.length > 0 ? texts.join('\n') : 'the tool reported an error';
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
}

/** A short label for the session: the command and the file names of path arguments. */
export function sessionLabel(command: string, args: readonly string[], hideInputs: boolean): string {
  const words = hideInputs ? redactCommandLine(command, args) : [basename(command), ...args.map((arg) => (/[\\/]/.test(arg) && !arg.startsWith('-') ? basename(arg) : arg))];
  const label = words.join(' ');
  return label.length > 120 ? `${label.slice(0, 119)}…` : label;
}

/**
 * Turns one proxy session into a run on the graph: the session node, a node
 * per logical call, an instance per execution, stderr as log lines, and
 * the session's end. It reads frames that the relay already classified and
 * never touches their bytes.
 */
export class GraphRecorder {
  readonly runId: string;
  readonly #reporter: Reporter;
  readonly #hide: HideSettings;
  readonly #open = new Map<Frame, string>();
  readonly #sessionInstance: string;
  #counter = 0;
  #protocolInstance: string | undefined;
  #calls = 0;
  #errors = 0;
  #noise = 0;
  #finished = false;

  constructor(options: GraphRecorderOptions) {
    this.#reporter = options.reporter;
    this.#hide = options.hide;
    const label = sessionLabel(options.command, options.args, options.hide.inputs);
    const commandLine = options.hide.inputs
      ? { command: basename(options.command) }
      : { command: options.command, args: [...options.args] };
    this.runId = this.#reporter.startRun(label, 'mcp-proxy', { ...commandLine, cwd: options.hide.inputs ? undefined : process.cwd(), proxyPid: process.pid });
    this.#sessionInstance = this.#nextId();
    this.#reporter.send(this.runId, {
      type: 'instance.started',
      instanceId: this.#sessionInstance,
      node: { nodeId: SESSION_NODE_ID, kind: 'server', parent: null, label },
      input: commandLine,
    });
  }

  /** Record a classified frame. */
  onFrame(frame: Frame): void {
    if (this.#finished) return;
    switch (frame.type) {
      case 'request':
      case 'notification':
        this.#onCall(frame);
        break;
      case 'response':
      case 'error':
        this.#onAnswer(frame);
        break;
      case 'noise':
        if (frame.direction === 'server-to-client') this.#onNoise(frame);
        break;
      default:
        break;
    }
  }

  /** Record complete lines the server wrote to stderr. */
  onStderr(lines: readonly string[]): void {
    if (this.#finished) return;
    for (const text of lines) this.#reporter.send(this.runId, { type: 'log', nodeId: SESSION_NODE_ID, stream: 'stderr', text });
  }

  /** Record that the server process is known (its pid). */
  onSpawned(pid: number | undefined): void {
    if (pid !== undefined) this.#reporter.send(this.runId, { type: 'run.meta', meta: { serverPid: pid } });
  }

  /** Close every open execution and the run. */
  finish(end: SessionEnd): void {
    if (this.#finished) return;
    for (const instanceId of this.#open.values()) {
      this.#reporter.send(this.runId, {
        type: 'instance.error',
        instanceId,
        error: { name: 'NoAnswer', message: 'the server exited without answering this request' },
      });
    }
    this.#open.clear();
    if (this.#protocolInstance !== undefined) {
      this.#reporter.send(this.runId, {
        type: 'instance.finished',
        instanceId: this.#protocolInstance,
        output: { calls: this.#calls, errors: this.#errors, stdoutNoise: this.#noise },
      });
    }
    let failed = false;
    let error: InstanceError | undefined;
    if (end.spawnError) {
      failed = true;
      error = { name: 'SpawnError', message: end.spawnError.message, data: { code: end.spawnError.code } };
    } else if (end.exitedEarly) {
      failed = true;
      error = {
        name: 'McpServerExitedEarly',
        message: end.exitedEarly.message,
        data: { exitCode: end.exitCode ?? null, signal: end.signal ?? null, stderr: end.exitedEarly.stderr },
      };
    } else if ((end.exitCode !== 0 && end.exitCode !== undefined) || (end.signal !== null && end.signal !== undefined)) {
      // It answered at least once: the conversation happened, the run is ok,
      // but the session node still shows how the process ended.
      error = {
        name: 'McpServerExited',
        message: end.signal ? `the MCP server was killed by ${end.signal}` : `the MCP server exited with code ${end.exitCode}`,
        data: { exitCode: end.exitCode ?? null, signal: end.signal ?? null },
      };
    }
    if (error !== undefined) {
      this.#reporter.send(this.runId, { type: 'instance.error', instanceId: this.#sessionInstance, error });
    } else {
      this.#reporter.send(this.runId, {
        type: 'instance.finished',
        instanceId: this.#sessionInstance,
        output: { exitCode: end.exitCode ?? null, signal: end.signal ?? null },
      });
    }
    this.#reporter.send(this.runId, { type: 'run.finished', status: failed ? 'error' : 'ok' });
    this.#finished = true;
  }

  /** The instance recorded for a request or notification frame. */
  instanceIdOf(frame: Frame): string | undefined {
    return frame.instanceId;
  }

  /**
   * Record what a decision at a gate did to a call (`request` is the call's
   * request or notification frame): an injected answer, an abort, or a
   * retry that re-opens the call.
   */
  onDecision(request: Frame, point: GatePoint, action: 'inject' | 'abort' | 'retry', value?: unknown): void {
    if (this.#finished) return;
    const instanceId = request.instanceId;
    if (instanceId === undefined) return;
    if (action === 'retry') {
      this.#open.set(request, instanceId);
      this.#reporter.send(this.runId, { type: 'instance.reopened', instanceId });
      return;
    }
    // The call is answered here, by the debugger: it can no longer go unanswered.
    this.#open.delete(request);
    if (action === 'inject') {
      const output = this.#hide.toolResults && request.method === 'tools/call' ? HIDDEN : value;
      this.#reporter.send(this.runId, { type: 'instance.finished', instanceId, output });
      return;
    }
    this.#reporter.send(this.runId, {
      type: 'instance.error',
      instanceId,
      error: { name: 'Aborted', message: `aborted in the debugger at the ${point} gate`, code: -32099 },
    });
  }

  #nextId(): string {
    return `mcp_${++this.#counter}`;
  }

  #ensureProtocol(): void {
    if (this.#protocolInstance !== undefined) return;
    this.#protocolInstance = this.#nextId();
    this.#reporter.send(this.runId, { type: 'instance.started', instanceId: this.#protocolInstance, node: PROTOCOL_NODE });
  }

  #onCall(frame: Frame): void {
    const node = frame.node;
    if (node === undefined) return;
    if (node.parent === PROTOCOL_NODE_ID) {
      this.#ensureProtocol();
      this.#calls++;
    }
    const instanceId = this.#nextId();
    this.#reporter.send(this.runId, {
      type: 'instance.started',
      instanceId,
      node: declared(node),
      input: this.#hide.inputs ? HIDDEN : recorded(frame, pickParams),
    });
    frame.instanceId = instanceId;
    if (frame.type === 'notification') {
      this.#reporter.send(this.runId, { type: 'instance.finished', instanceId });
      return;
    }
    this.#open.set(frame, instanceId);
    // The host's name and requested version are params too: hidden inputs keep them out.
    const params = frame.method === 'initialize' && !this.#hide.inputs ? messageOf(frame)?.params : undefined;
    if (record(params)) {
      this.#reporter.send(this.runId, { type: 'run.meta', meta: { clientInfo: params.clientInfo, requestedProtocolVersion: params.protocolVersion } });
    }
  }

  #onAnswer(frame: Frame): void {
    const request = frame.request;
    if (request === undefined) return;
    const instanceId = this.#open.get(request);
    if (instanceId === undefined) return;
    this.#open.delete(request);
    const protocol = request.node?.parent === PROTOCOL_NODE_ID;
    if (frame.type === 'error') {
      if (protocol) this.#errors++;
      const rpc = messageOf(frame)?.error ?? {};
      this.#reporter.send(this.runId, {
        type: 'instance.error',
        instanceId,
        error: { name: 'JsonRpcError', message: String(rpc.message ?? 'error'), code: rpc.code, data: rpc.data },
      });
      return;
    }
    if (request.method === 'initialize' || request.method === 'server/discover') {
      const result = messageOf(frame)?.result;
      if (record(result)) {
        this.#reporter.send(this.runId, { type: 'run.meta', meta: { protocolVersion: result.protocolVersion, serverInfo: result.serverInfo } });
      }
    }
    const hideResult = this.#hide.toolResults && request.method === 'tools/call';
    const output = hideResult ? HIDDEN : recorded(frame, pickResult);
    if (frame.isError === true) {
      if (protocol) this.#errors++;
      const message = hideResult
        ? 'the tool reported an error (content hidden)'
        : new DeferredValue(0, () => {
            const result = messageOf(frame)?.result;
            return record(result) ? contentText(result) : 'the tool reported an error';
          });
      this.#reporter.send(this.runId, { type: 'instance.error', instanceId, output, error: { name: 'ToolError', message: message as string } });
      return;
    }
    this.#reporter.send(this.runId, { type: 'instance.finished', instanceId, output });
  }

  #onNoise(frame: Frame): void {
    this.#noise++;
    this.#ensureProtocol();
    if (this.#noise > MAX_NOISE_INSTANCES) return;
    let end = frame.raw.length;
    while (end > 0 && (frame.raw[end - 1] === 0x0a || frame.raw[end - 1] === 0x0d)) end--;
    let cut = Math.min(end, NOISE_INPUT_BYTES);
    // Cut on a character boundary: a split UTF-8 sequence would decode to
    // U+FFFD (3 bytes) and push the input past its bound.
    if (cut < end) while (cut > 0 && ((frame.raw[cut] as number) & 0xc0) === 0x80) cut--;
    const text = frame.raw.subarray(0, cut).toString('utf8');
    const instanceId = this.#nextId();
    this.#reporter.send(this.runId, { type: 'instance.started', instanceId, node: STDOUT_NOISE_NODE, input: text });
    this.#reporter.send(this.runId, {
      type: 'instance.error',
      instanceId,
      error: { name: 'StdoutNoise', message: 'the server wrote a line to stdout that is not JSON-RPC' },
    });
  }
}
