import { basename } from 'node:path';
import { abortedRecord } from '../gates/outcome.js';
import { HIDDEN_TOOL_ERROR, contentText, hidesResult, recordInjected, rpcError } from '../report/answer-record.js';
import { DeferredValue, JsonSlice } from '../report/deferred.js';
import type { GatePoint, InstanceError, NodeDeclaration, RestartRecord } from '../report/events.js';
import { HIDDEN, redactCommandLine, type HideSettings } from '../report/hide.js';
import { IdSequence } from '../report/id-sequence.js';
import type { Reporter } from '../report/reporter.js';
import { RunEvents } from '../report/run-events.js';
import { declared } from '../report/node-declaration.js';
import { messageOf, type Direction, type Frame, type JsonRpcMessage } from '../streams/frame.js';
import { OpenCalls } from './open-calls.js';
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
 * How long a frame may wait to be recorded (see {@link RelayRecorder.onFrame}).
 * With a debugger attached, what was recorded goes to it at once: the graph
 * is at most this much later than the wire.
 */
export const RECORD_DELAY_MS = 20;
/**
 * How long a call in flight may keep the timer from recording it and what
 * came after it (see `#recordSettled`): long enough for the calls of a
 * pipelined burst to be answered, short enough that a slow call shows as
 * running at once.
 */
export const PAIR_WAIT_MS = 10;
/** The most frames that wait to be recorded (fewer, detached, when the reporter keeps fewer events). */
const MAX_WAITING_FRAMES = 8192;
/** Bytes of waiting frames beyond which they are recorded at once: what they hold on to stays small. */
const MAX_WAITING_BYTES = 1024 * 1024;
/** A frame at least this long is recorded at once, so that its bytes are not held back. */
const RECORD_AT_ONCE_BYTES = 64 * 1024;

/**
 * Where a recorded field is read from when its event is sent: the frame
 * itself while a debugger is attached (the event goes out at once, and
 * shares the frame's parse with the gate), or only the frame's bytes while
 * none is (the event may wait in the buffer for a long time, and a frame
 * kept alive for it would cost the garbage collector more than its bytes).
 */
type FrameSource = Frame | Buffer;

/** The JSON-RPC message behind a {@link FrameSource}, as {@link messageOf} reads it. */
function messageFrom(source: FrameSource): JsonRpcMessage | undefined {
  if (!Buffer.isBuffer(source)) return messageOf(source);
  try {
    return JSON.parse(source.toString('utf8')) as JsonRpcMessage;
  } catch {
    return undefined;
  }
}

/** The `params` of a recorded frame's message. */
function paramsOf(source: FrameSource): unknown {
  const message = messageFrom(source);
  return message === undefined ? undefined : message.params;
}

/** The `result` of a recorded frame's message. */
function resultOf(source: FrameSource): unknown {
  const message = messageFrom(source);
  return message === undefined ? undefined : message.result;
}

/** A failed tool result's text. */
function toolErrorText(source: FrameSource): string {
  const result = messageFrom(source)?.result;
  return record(result) ? contentText(result) : 'the tool reported an error';
}

/**
 * What is recorded for one field of `frame`'s message (`read` picks it from
 * `source`, the frame or its bytes): parsed only when the event is sent, or
 * a note instead when the line is too large. {@link recordedBytes} is what
 * it holds on to.
 */
function recorded(frame: Frame, source: FrameSource, read: (source: FrameSource) => unknown): unknown {
  // `size`, not `raw.length`: of a long line relayed in pieces only the head may have been kept.
  const size = frame.size;
  if (size > MAX_RECORDED_FRAME_BYTES) return { '[graphmind]': 'not recorded: the frame is larger than 1 MiB', bytes: size };
  // The classifier found where the value is: its bytes go out as they are (once checked).
  if (frame.payloadStart !== -1) return new JsonSlice(frame.raw.length, read, source, frame.raw, frame.payloadStart, frame.payloadEnd);
  return new DeferredValue(frame.raw.length, read, source);
}

/** The bytes a value from {@link recorded} holds on to. */
function recordedBytes(frame: Frame): number {
  return frame.size > MAX_RECORDED_FRAME_BYTES ? 0 : frame.raw.length;
}

/**
 * The instanceId of a call whose events were only counted, pushed out while
 * no debugger was attached (see `#countUnkept`), and of such a call once
 * answered. Never sent anywhere.
 */
const UNKEPT = '[graphmind] not kept';
const UNKEPT_ANSWERED = '[graphmind] not kept, answered';

/** An instance the debugger knows: not none, and not a call whose events were only counted. */
function seen(instanceId: string | undefined): instanceId is string {
  return instanceId !== undefined && instanceId !== UNKEPT && instanceId !== UNKEPT_ANSWERED;
}

/**
 * The output of a call still open at the end of a session whose answers
 * could not be seen: the direction they travel in had become a raw byte
 * pipe (a line over --max-frame-bytes), so an answer may well have been
 * relayed, unread. Saying `NoAnswer` would be a guess.
 */
export function answerNotObserved(from: 'server' | 'client'): { '[graphmind]': string } {
  return {
    '[graphmind]': `answer not observed: the ${from}'s output had become a raw byte pipe (a line larger than --max-frame-bytes); an answer, if one came, was relayed unread`,
  };
}

/** The `stream` of the log lines the proxy itself adds to the session node (the degrade notice). */
export const PROXY_LOG_STREAM = 'graphmind';

const PROTOCOL_NODE: NodeDeclaration = { nodeId: PROTOCOL_NODE_ID, kind: 'custom', parent: SESSION_NODE_ID, label: 'protocol' };

export type { RestartRecord } from '../report/events.js';

/** How the server process ended, for {@link RelayRecorder.finish}. */
export interface SessionEnd {
  /** The command could not be started. */
  spawnError?: {
    /** What went wrong, in words. */
    message: string;
    /** The spawn error's code, e.g. `ENOENT`. */
    code?: string;
  };
  /** The server died before answering anything. */
  exitedEarly?: {
    /** How it ended, in words. */
    message: string;
    /** Its last stderr lines (none when its stderr was inherited). */
    stderr: string[];
  };
  /**
   * The server failed after its stdout had become a raw byte pipe: whether
   * it answered is not known (recorded as `McpServerExited`, the run ok).
   */
  exitedUnobserved?: {
    /** How it ended, in words. */
    message: string;
    /** Its last stderr lines (none when its stderr was inherited). */
    stderr: string[];
  };
  /** The process's exit code (`null` when a signal ended it). */
  exitCode?: number | null;
  /** The signal that ended the process, if one did. */
  signal?: NodeJS.Signals | null;
}

/** Options for {@link RelayRecorder}. */
export interface RelayRecorderOptions {
  /** Where the run is started and its events sent. */
  reporter: Reporter;
  /** What to keep out of the record (`GRAPHMIND_HIDE_*`, see `hideSettings`). */
  hide: HideSettings;
  /**
   * The server's command, when the relay spawned it (the proxy): the run
   * and its session node are named after it, and it is recorded (as hidden
   * inputs allow) in the run's metadata.
   * @default undefined
   */
  command?: string;
  /** The command's arguments. @default [] */
  args?: readonly string[];
  /** The run's name when there is no command. @default 'relay' */
  name?: string;
  /** The run's source, as listed. @default 'mcp-proxy' with a command, else 'mcp-relay' */
  source?: string;
}

function record(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * Folder names that say nothing about which project a path is in: a path
 * that ends in one of them keeps one folder more in a session label.
 */
const GENERIC_FOLDERS = new Set(['dist', 'build', 'out', 'lib', 'src', 'bin', '.bin', 'esm', 'cjs', 'target', 'release', 'debug', 'node_modules', 'app', 'server', 'scripts']);

/**
 * A path argument as a session label shows it: its last two segments
 * (`/x/y/index.js` → `y/index.js`, `./server.js` → `server.js`), and a
 * segment more while the folder kept is a generic one
 * (`/x/proj/dist/index.js` → `proj/dist/index.js`), at most four.
 */
export function labelPath(path: string): string {
  const separator = path.includes('/') ? '/' : '\\';
  const parts = path.split(/[\\/]/).filter((part) => part !== '' && part !== '.');
  let keep = 2;
  while (keep < 4 && keep < parts.length && GENERIC_FOLDERS.has((parts[parts.length - keep] as string).toLowerCase())) keep++;
  return parts.slice(-keep).join(separator);
}

/**
 * A short label for the session: the command's name and its arguments,
 * a path argument shortened to its last segments ({@link labelPath}:
 * `node /x/y/index.js` and `node /a/b/index.js` stay two labels), flags
 * and URLs as they are. `redacted`: the command line as hidden inputs keep
 * it ({@link redactCommandLine}: the command's name and the file names of
 * path arguments), when they are hidden; it is used as it is.
 */
export function sessionLabel(command: string, args: readonly string[], redacted: readonly string[] | undefined): string {
  const words = redacted ?? [basename(command), ...args.map((arg) => (/[\\/]/.test(arg) && !arg.startsWith('-') && !arg.includes('://') ? labelPath(arg) : arg))];
  const label = words.join(' ');
  return label.length > 120 ? `${label.slice(0, 119)}…` : label;
}

/**
 * Turns one proxy session into a run on the graph: the session node, a node
 * per logical call, an instance per execution, stderr as log lines, and
 * the session's end. It reads frames that the relay already classified and
 * never touches their bytes.
 */
export class RelayRecorder {
  /** The id of the run this session is recorded as. */
  readonly runId: string;
  readonly #reporter: Reporter;
  readonly #events: RunEvents;
  readonly #hide: HideSettings;
  /** What this session records of values (`GRAPHMIND_HIDE_*`): the gate hides the same in what it reports of a hold. */
  get hide(): HideSettings {
    return this.#hide;
  }
  readonly #open = new OpenCalls();
  readonly #sessionInstance: string;
  /** Instance ids: a per-session counter, `mcp_1`, `mcp_2`, … */
  readonly #ids = new IdSequence('mcp_');
  #protocolInstance: string | undefined;
  // The frames not recorded yet: a ring, oldest at #head (each carries the time it was read).
  #waiting: Array<Frame | undefined>;
  #head = 0;
  #count = 0;
  #waitingBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerArmed = false;
  /** The time of the frame being recorded; 0 outside {@link flush}. */
  #frameTime = 0;
  /**
   * The frame being recorded is one whose events the reporter would drop at
   * once (see {@link flush}): they are counted, not built.
   */
  #dropping = false;
  #droppedEvents = 0;
  /** Calls counted as {@link UNKEPT} and not answered yet. */
  #unkeptOpen = 0;
  #calls = 0;
  /** Protocol calls whose record ends in error now: the size of {@link RelayRecorder.#failedCalls}. */
  #errors = 0;
  /** The protocol calls counted in `#errors` (a later decision may end one well after all). */
  readonly #failedCalls = new WeakSet<Frame>();
  /** Directions that became raw byte pipes: their frames, answers included, are no longer seen. */
  readonly #degraded = new Set<Direction>();
  /** Degrade notices to log on the session node when the first raw frame of their direction is recorded. */
  readonly #notices = new Map<Direction, string>();
  /** The restarts so far (see {@link RelayRecorder.onRestart}). */
  readonly #restarts: RestartRecord[] = [];
  #noise = 0;
  #finished = false;
  readonly #detachedLimit: number;
  /** Records what waited as soon as a debugger attaches; let go when the session finishes (a reporter may serve many sessions). */
  readonly #onAttached = (): void => this.flush();

  constructor(options: RelayRecorderOptions) {
    this.#reporter = options.reporter;
    // Detached, as many frames wait as the reporter keeps events: no more than that many could be kept anyway.
    this.#detachedLimit = Math.max(1, Math.min(options.reporter.capacity, MAX_WAITING_FRAMES));
    this.#waiting = new Array<Frame | undefined>(MAX_WAITING_FRAMES).fill(undefined);
    this.#hide = options.hide;
    let label: string;
    let input: unknown;
    let meta: Record<string, unknown>;
    if (options.command !== undefined) {
      const args = options.args ?? [];
      // Hidden inputs keep, in the label as in the metadata, the command's name and the file names of path arguments.
      const redacted = options.hide.inputs ? redactCommandLine(options.command, args) : undefined;
      label = sessionLabel(options.command, args, redacted);
      const commandLine = redacted !== undefined ? { command: redacted[0] as string, args: redacted.slice(1) } : { command: options.command, args: [...args] };
      input = commandLine;
      meta = { ...commandLine, cwd: options.hide.inputs ? undefined : process.cwd(), proxyPid: process.pid };
    } else {
      label = options.name ?? 'relay';
      meta = { pid: process.pid };
    }
    this.runId = this.#reporter.startRun(label, options.source ?? (options.command !== undefined ? 'mcp-proxy' : 'mcp-relay'), meta);
    this.#events = new RunEvents(this.#reporter, this.runId);
    this.#sessionInstance = this.#nextId();
    // What waited while detached is recorded as soon as there is somebody to send it to.
    this.#reporter.on('attached', this.#onAttached);
    this.#reporter.send(this.runId, {
      type: 'instance.started',
      instanceId: this.#sessionInstance,
      node: { nodeId: SESSION_NODE_ID, kind: 'server', parent: null, label },
      input,
    });
  }

  /**
   * Record a classified frame: soon, not now. The frame waits, with the
   * time it passed, and is recorded with the others that came within
   * {@link RECORD_DELAY_MS}, off the relay's path: the relay forwards the
   * frame without paying for its record, and returns to waiting for the
   * next one as soon as it has written this one. Work around each write
   * makes the relay's process likelier to end up alone on a CPU, where
   * every hop of a one-call-at-a-time conversation is a cross-CPU wakeup
   * (see bench/README.md: on two cores the median round trip went from
   * 1.35x to 1.19x that of a plain byte relay over 40 short runs). Every
   * other method records what is waiting first, so the order of events is
   * kept.
   *
   * While no debugger is attached nothing is recorded on a timer: the
   * newest frames just wait, and are recorded when one attaches (or a
   * stderr line, a long frame or the end of the session comes first). A
   * busy session then builds no events that nobody may ever see; the
   * oldest frames, pushed out by newer ones, are only counted.
   */
  onFrame(frame: Frame): void {
    if (this.#finished) return;
    const slots = this.#waiting.length;
    // Full. Attached, everything goes to the debugger: record it all now
    // (a whole burst of calls waits, so that most are recorded with their
    // answers, see #pairCalls). Detached, the reporter would keep only the
    // newest events: the oldest frame is recorded in what it changes, its
    // events counted as dropped (see flush), and its place taken.
    const attached = this.#reporter.attached;
    if (attached) {
      if (this.#count === slots) this.#recordWhenFull();
    } else {
      while (this.#count >= this.#detachedLimit) this.#recordOldestUnkept();
    }
    const slot = (this.#head + this.#count) % slots;
    this.#waiting[slot] = frame;
    this.#count++;
    const bytes = (this.#waitingBytes += frame.raw.length);
    if (bytes >= MAX_WAITING_BYTES || frame.size >= RECORD_AT_ONCE_BYTES) this.flush();
    else if (!this.#timerArmed && attached) this.#armTimer();
  }

  /**
   * Record every frame still waiting, now.
   *
   * While no debugger is attached the reporter keeps only its newest
   * `capacity` events, and as many frames wait here. When more come, the
   * oldest still count (instance ids, open calls, the protocol's totals),
   * but their events, which the reporter would drop once the newer ones
   * came, are counted as dropped instead of being built: the debugger sees
   * the same session and the same notice of what was lost, and a burst of
   * calls neither builds events nobody will see nor keeps its frames alive.
   */
  flush(): void {
    this.#timerArmed = false;
    if (this.#count > 1) this.#pairCalls();
    while (this.#count > 0) this.#recordOldest();
    this.#reportDropped();
  }

  /**
   * Find the calls whose request and answer both wait now: each is recorded
   * as one `instance.completed` event where its request stands, instead of
   * a start and an end (half the events for the debugger to take in, and
   * its record of the call is the same). Only answers that end the call
   * well: an error is recorded as it always is. Frames already recorded
   * have their instance id; a request that waits has none yet.
   */
  #pairCalls(): void {
    const slots = this.#waiting.length;
    for (let i = 0, slot = this.#head; i < this.#count; i++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = this.#waiting[slot] as Frame;
      if (frame.type !== 'response' || frame.isError === true) continue;
      const request = frame.request;
      if (request === undefined || request.instanceId !== undefined || request.answer !== undefined || request.node === undefined) continue;
      request.answer = frame;
    }
  }

  /**
   * The timer's record: every waiting frame up to the first call that is
   * still in flight and younger than {@link PAIR_WAIT_MS}; that call and
   * what came after it wait for the next turn. A burst of pipelined calls
   * is then recorded as it is answered, one event per call, instead of
   * being cut wherever the timer happens to fall. A call that takes longer
   * is recorded as started once it is that old, so it shows as running.
   */
  #recordSettled(): void {
    this.#timerArmed = false;
    if (this.#count > 1) this.#pairCalls();
    const young = Date.now() - PAIR_WAIT_MS;
    const slots = this.#waiting.length;
    let settled = 0;
    for (let slot = this.#head; settled < this.#count; settled++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = this.#waiting[slot] as Frame;
      if (frame.type === 'request' && frame.answer === undefined && frame.at > young) break;
    }
    for (; settled > 0; settled--) this.#recordOldest();
    // Answers to calls whose start was only counted, while detached, are counted too.
    this.#reportDropped();
    // What still waits, waits for the next turn; detached, for a debugger.
    if (this.#count > 0 && this.#reporter.attached) this.#armTimer();
  }

  /**
   * Full, with a debugger attached: record what waits up to the first call
   * still in flight (of any age; the timer stops only at young ones, see
   * `#recordSettled`), and leave that call and what came after it waiting,
   * so that calls in flight are not split into a start and an end. A call
   * whose answer waits too is not in flight, an error answer included. The pairing looks at every waiting frame,
   * so a call whose answer is among those left still goes out as one event.
   * When that would free less than a quarter of the ring (a call long in
   * flight, while many frames went by), the older half is recorded instead.
   */
  #recordWhenFull(): void {
    this.#pairCalls();
    const slots = this.#waiting.length;
    // Calls answered among the waiting frames but not paired (their answer is an error), found when first needed.
    let answered: Set<Frame> | undefined;
    let settled = 0;
    for (let slot = this.#head; settled < this.#count; settled++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = this.#waiting[slot] as Frame;
      if (frame.type !== 'request' || frame.answer !== undefined || frame.node === undefined) continue;
      answered ??= this.#answeredRequests();
      if (!answered.has(frame)) break;
    }
    for (let n = settled >= this.#count >> 2 ? settled : this.#count >> 1; n > 0; n--) this.#recordOldest();
  }

  /** The requests that an answer among the waiting frames answers. */
  #answeredRequests(): Set<Frame> {
    const answered = new Set<Frame>();
    const slots = this.#waiting.length;
    for (let i = 0, slot = this.#head; i < this.#count; i++, slot = slot + 1 === slots ? 0 : slot + 1) {
      const frame = this.#waiting[slot] as Frame;
      if ((frame.type === 'response' || frame.type === 'error') && frame.request !== undefined) answered.add(frame.request);
    }
    return answered;
  }

  #recordOldestUnkept(): void {
    const frame = this.#waiting[this.#head] as Frame;
    if (this.#countUnkept(frame)) {
      this.#takeOldest();
      return;
    }
    this.#dropping = true;
    this.#recordOldest();
    this.#dropping = false;
  }

  /**
   * The frames a busy session pushes out while detached are nearly all
   * calls to tools (resources, prompts…) and their answers. Such a call
   * whose events are only counted needs no open-call entry and no spelled
   * id: it takes its number, is marked {@link UNKEPT}, and its answer (or
   * its exit unanswered) is one more dropped event. False for anything
   * else, which is recorded as dropped the full way.
   */
  #countUnkept(frame: Frame): boolean {
    const type = frame.type;
    if (type === 'request') {
      const node = frame.node;
      if (node === undefined || node.parent === PROTOCOL_NODE_ID || frame.method === 'initialize' || frame.method === 'server/discover') return false;
      this.#ids.skip();
      frame.instanceId = UNKEPT;
      this.#unkeptOpen++;
      this.#droppedEvents++;
      return true;
    }
    if (type === 'response' || type === 'error') {
      const request = frame.request;
      if (request === undefined || request.instanceId !== UNKEPT) return false;
      this.#answeredUnkept(request);
      return true;
    }
    return false;
  }

  /** A call counted as {@link UNKEPT} is answered: its end is dropped too. */
  #answeredUnkept(request: Frame): void {
    request.instanceId = UNKEPT_ANSWERED;
    this.#unkeptOpen--;
    this.#droppedEvents++;
  }

  /** Take the oldest waiting frame out of the ring, with its time in #frameTime. */
  #takeOldest(): Frame {
    const slot = this.#head;
    const frame = this.#waiting[slot] as Frame;
    this.#waiting[slot] = undefined;
    this.#head = slot + 1 === this.#waiting.length ? 0 : slot + 1;
    this.#count--;
    this.#waitingBytes -= frame.raw.length;
    this.#frameTime = frame.at;
    return frame;
  }

  #recordOldest(): void {
    const frame = this.#takeOldest();
    try {
      this.#record(frame);
    } catch {
      // Observation is best-effort: the frames after it are still recorded.
    }
    this.#frameTime = 0;
  }

  #reportDropped(): void {
    if (this.#droppedEvents === 0) return;
    this.#reporter.countDropped(this.runId, this.#droppedEvents);
    this.#droppedEvents = 0;
  }

  /** An event the reporter would drop at once: counted, not built (see {@link flush}). */
  #drop(events: number): void {
    this.#droppedEvents += events;
  }

  #armTimer(): void {
    this.#timerArmed = true;
    if (this.#timer !== undefined) {
      this.#timer.refresh();
      return;
    }
    this.#timer = setTimeout(() => {
      this.#recordSettled();
      // One batch for the debugger too: the reporter need not wait another
      // COALESCE_MS of its own (one wakeup, one message, per delay).
      this.#reporter.sendNow();
    }, RECORD_DELAY_MS);
    // Never keep the host's process alive for the sake of the graph: the end of the session records what is left.
    this.#timer.unref();
  }

  /** When the event being built happened: its frame's time, or now. */
  #now(): number {
    return this.#frameTime !== 0 ? this.#frameTime : Date.now();
  }

  #record(frame: Frame): void {
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
      case 'raw':
        this.#onRaw(frame);
        break;
      default:
        break;
    }
  }

  /** Record complete lines the server wrote to stderr. */
  onStderr(lines: readonly string[]): void {
    if (this.#finished) return;
    this.flush();
    for (const text of lines) this.#log(text);
  }

  /**
   * A direction fell back to a raw byte pipe (`notice` is the line printed
   * on stderr). The notice goes on the session node where the first raw
   * bytes stand; from then on that direction's frames are not seen, so a
   * call waiting for an answer from it ends, with the session, as not
   * observed rather than unanswered.
   */
  onDegraded(direction: Direction, notice: string): void {
    if (this.#finished) return;
    this.#degraded.add(direction);
    this.#notices.set(direction, notice);
  }

  /** Record that the server process is known (its pid). */
  onSpawned(pid: number | undefined): void {
    this.flush();
    if (pid !== undefined) this.#meta({ serverPid: pid });
  }

  /** Close every open execution and the run. */
  finish(end: SessionEnd): void {
    if (this.#finished) return;
    this.flush();
    clearTimeout(this.#timer);
    this.#reporter.off('attached', this.#onAttached);
    // A notice whose raw bytes were never recorded (nothing should be left).
    for (const notice of this.#notices.values()) this.#log(notice, PROXY_LOG_STREAM);
    this.#notices.clear();
    for (const request of this.#open.take()) {
      const toServer = request.direction === 'client-to-server';
      if (this.#degraded.has(toServer ? 'server-to-client' : 'client-to-server')) {
        this.#ended(request.instanceId as string, answerNotObserved(toServer ? 'server' : 'client'), 0);
        continue;
      }
      this.#countEnd(request, true);
      this.#failed(request.instanceId as string, undefined, { name: 'NoAnswer', message: 'the server exited without answering this request' }, 0);
    }
    // Those whose start was only counted end the same way: counted.
    this.#drop(this.#unkeptOpen);
    this.#unkeptOpen = 0;
    this.#reportDropped();
    if (this.#protocolInstance !== undefined) {
      this.#ended(this.#protocolInstance, { calls: this.#calls, errors: this.#errors, stdoutNoise: this.#noise }, 0);
    }
    let failed = false;
    let error: InstanceError | undefined;
    if (end.spawnError) {
      failed = true;
      error = { name: 'SpawnError', message: end.spawnError.message, data: { code: end.spawnError.code } };
    } else if (end.exitedUnobserved) {
      // Not known to have answered nothing: the run stays ok, as after an answer.
      error = {
        name: 'McpServerExited',
        message: end.exitedUnobserved.message,
        data: { exitCode: end.exitCode ?? null, signal: end.signal ?? null, stderr: end.exitedUnobserved.stderr },
      };
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
      this.#failed(this.#sessionInstance, undefined, error, 0);
    } else {
      this.#ended(this.#sessionInstance, { exitCode: end.exitCode ?? null, signal: end.signal ?? null }, 0);
    }
    this.#reporter.send(this.runId, { type: 'run.finished', status: failed ? 'error' : 'ok' });
    this.#finished = true;
  }

  /**
   * The server was restarted under the session (or could not be): a line
   * on the session node where it happened (`stream: "graphmind"`), and
   * the run's `meta.restarts`, every restart so far.
   */
  onRestart(restart: RestartRecord): void {
    if (this.#finished) return;
    this.flush();
    this.#restarts.push(restart);
    const how = restart.ok
      ? `the MCP server was restarted (${restart.reason}${restart.file === undefined ? '' : `: ${restart.file}`}); new pid ${restart.pid ?? '?'}, handshake replayed in ${restart.ms ?? 0} ms`
      : `the MCP server could not be restarted (${restart.reason}): ${restart.error ?? 'it failed'}`;
    this.#log(how, PROXY_LOG_STREAM);
    this.#meta({ restarts: [...this.#restarts] });
  }

  /**
   * A request the proxy answered itself, with an error, because no server
   * can: it was in flight when the server was restarted, or the server is
   * not running.
   */
  onProxyAnswer(request: Frame, error: InstanceError): void {
    if (this.#finished) return;
    this.flush();
    const instanceId = request.instanceId;
    if (!seen(instanceId)) return;
    this.#open.delete(request);
    this.#countEnd(request, true);
    this.#failed(instanceId, undefined, error, 0);
  }

  /** The instance recorded for a request or notification frame. */
  instanceIdOf(frame: Frame): string | undefined {
    this.flush();
    const id = frame.instanceId;
    return seen(id) ? id : undefined;
  }

  /**
   * Record what a decision at a gate did to a call (`request` is the call's
   * request or notification frame): an injected answer, an abort, or a
   * retry that re-opens the call.
   */
  onDecision(request: Frame, point: GatePoint, action: 'inject' | 'abort' | 'retry', value?: unknown): void {
    if (this.#finished) return;
    this.flush();
    const instanceId = request.instanceId;
    // A call whose events were only counted: the debugger never saw it.
    if (!seen(instanceId)) return;
    if (action === 'retry') {
      this.#open.add(request);
      this.#countEnd(request, false);
      this.#events.reopened(instanceId, this.#now());
      return;
    }
    // The call is answered here, by the debugger: it can no longer go unanswered.
    this.#open.delete(request);
    if (action === 'inject') {
      this.#injected(request, instanceId, value);
      return;
    }
    this.#countEnd(request, true);
    this.#failed(instanceId, undefined, abortedRecord(point), 0);
  }

  /** An answer made in the debugger, recorded as a real one would be (see `recordInjected`). */
  #injected(request: Frame, instanceId: string, value: unknown): void {
    const answer = recordInjected(request.method, value, this.#hide);
    this.#countEnd(request, answer.failed);
    if (answer.failed) this.#failed(instanceId, answer.output, answer.error, 0);
    else this.#ended(instanceId, answer.output, 0);
  }

  /** `GRAPHMIND_HIDE_TOOL_RESULTS` keeps what answers `request` out of the record: it is a tool call. */
  #hidesResult(request: Frame): boolean {
    return hidesResult(request.method, this.#hide);
  }

  #nextId(): string {
    return this.#ids.next();
  }

  /** What a value recorded from `frame` reads from (see {@link FrameSource}). */
  #sourceOf(frame: Frame): FrameSource {
    return this.#reporter.attached || frame.message !== undefined ? frame : frame.raw;
  }

  // Every event is built whole by RunEvents, at the time of the frame being recorded.

  #started(instanceId: string, node: NodeDeclaration, input: unknown, held: number): void {
    this.#events.started(instanceId, node, input, held, this.#now());
  }

  #completed(instanceId: string, node: NodeDeclaration, input: unknown, output: unknown, endT: number, held: number): void {
    this.#events.completed(instanceId, node, input, output, endT, held, this.#now());
  }

  #ended(instanceId: string, output: unknown, held: number): void {
    this.#events.ended(instanceId, output, held, this.#now());
  }

  #failed(instanceId: string, output: unknown, error: InstanceError, held: number): void {
    this.#events.failed(instanceId, output, error, held, this.#now());
  }

  #meta(meta: Record<string, unknown>): void {
    if (this.#dropping) return this.#drop(1);
    this.#events.meta(meta, this.#now());
  }

  #log(text: string, stream = 'stderr'): void {
    this.#events.log(SESSION_NODE_ID, text, stream, this.#now());
  }

  /**
   * A protocol call's record ended, in error or not: `errors` counts the
   * protocol calls that end in error (a JSON-RPC error, a failed result,
   * an abort, no answer), each once, and a decision that ends one well
   * after all (an inject, a retry) takes it back out.
   */
  #countEnd(request: Frame, failed: boolean): void {
    if (request.node?.parent !== PROTOCOL_NODE_ID) return;
    if (!failed) {
      if (this.#failedCalls.delete(request)) this.#errors--;
    } else if (!this.#failedCalls.has(request)) {
      this.#failedCalls.add(request);
      this.#errors++;
    }
  }

  /** Raw bytes of a degraded direction: the first of them carry its notice. */
  #onRaw(frame: Frame): void {
    const notice = this.#notices.get(frame.direction);
    if (notice === undefined) return;
    this.#notices.delete(frame.direction);
    if (this.#dropping) return this.#drop(1);
    this.#log(notice, PROXY_LOG_STREAM);
  }

  #ensureProtocol(): void {
    if (this.#protocolInstance !== undefined) return;
    this.#protocolInstance = this.#nextId();
    if (this.#dropping) this.#drop(1);
    else this.#started(this.#protocolInstance, PROTOCOL_NODE, undefined, 0);
  }

  #onCall(frame: Frame): void {
    const node = frame.node;
    if (node === undefined) return;
    if (node.parent === PROTOCOL_NODE_ID) {
      this.#ensureProtocol();
      this.#calls++;
    }
    const instanceId = this.#nextId();
    frame.instanceId = instanceId;
    const notification = frame.type === 'notification';
    if (this.#dropping) this.#drop(notification ? 2 : 1);
    else {
      const input = this.#hide.inputs ? HIDDEN : recorded(frame, this.#sourceOf(frame), paramsOf);
      const held = this.#hide.inputs ? 0 : recordedBytes(frame);
      const answer = frame.answer;
      if (answer !== undefined) {
        // Answered in the same batch (see #pairCalls): one event for both.
        const hideResult = this.#hidesResult(frame);
        const output = hideResult ? HIDDEN : recorded(answer, this.#sourceOf(answer), resultOf);
        this.#completed(instanceId, declared(node), input, output, answer.at, held + (hideResult ? 0 : recordedBytes(answer)));
      } else {
        this.#started(instanceId, declared(node), input, held);
        if (notification) this.#ended(instanceId, undefined, 0);
      }
    }
    if (notification) return;
    this.#open.add(frame);
    // The host's name and requested version are params too: hidden inputs keep them out.
    const params = frame.method === 'initialize' && !this.#hide.inputs ? messageOf(frame)?.params : undefined;
    if (record(params)) this.#meta({ clientInfo: params.clientInfo, requestedProtocolVersion: params.protocolVersion });
  }

  #onAnswer(frame: Frame): void {
    const request = frame.request;
    if (request === undefined) return;
    if (request.instanceId === UNKEPT) return this.#answeredUnkept(request);
    // Not open: never recorded, already answered, or decided in the debugger.
    const instanceId = request.instanceId;
    if (instanceId === undefined || !this.#open.delete(request)) return;
    const hideResult = this.#hidesResult(request);
    if (frame.type === 'error') {
      this.#countEnd(request, true);
      if (this.#dropping) return this.#drop(1);
      this.#failed(instanceId, undefined, rpcError(messageOf(frame)?.error ?? {}, hideResult), 0);
      return;
    }
    if (request.method === 'initialize' || request.method === 'server/discover') {
      const result = messageOf(frame)?.result;
      if (record(result)) this.#meta({ protocolVersion: result.protocolVersion, serverInfo: result.serverInfo });
    }
    // Recorded with its request, in one event.
    if (request.answer === frame) return;
    this.#countEnd(request, frame.isError === true);
    if (this.#dropping) return this.#drop(1);
    const source = this.#sourceOf(frame);
    const output = hideResult ? HIDDEN : recorded(frame, source, resultOf);
    const held = hideResult ? 0 : recordedBytes(frame);
    if (frame.isError === true) {
      const message = hideResult ? HIDDEN_TOOL_ERROR : new DeferredValue(0, toolErrorText, source);
      this.#failed(instanceId, output, { name: 'ToolError', message: message as string }, held);
      return;
    }
    this.#ended(instanceId, output, held);
  }

  #onNoise(frame: Frame): void {
    this.#noise++;
    this.#ensureProtocol();
    if (this.#noise > MAX_NOISE_INSTANCES) return;
    // Its id is taken even when its events are only counted: later ids stay what they would be.
    const instanceId = this.#nextId();
    if (this.#dropping) return this.#drop(2);
    let end = frame.raw.length;
    while (end > 0 && (frame.raw[end - 1] === 0x0a || frame.raw[end - 1] === 0x0d)) end--;
    let cut = Math.min(end, NOISE_INPUT_BYTES);
    // Cut on a character boundary: a split UTF-8 sequence would decode to
    // U+FFFD (3 bytes) and push the input past its bound.
    if (cut < end) while (cut > 0 && ((frame.raw[cut] as number) & 0xc0) === 0x80) cut--;
    const text = frame.raw.subarray(0, cut).toString('utf8');
    this.#started(instanceId, STDOUT_NOISE_NODE, text, 0);
    this.#failed(instanceId, undefined, { name: 'StdoutNoise', message: 'the server wrote a line to stdout that is not JSON-RPC' }, 0);
  }
}
