import type { DebugSession } from '../relay/debug-session.js';
import { traceLine } from '../relay/messages.js';
import type { TextSink } from '../relay/text-sink.js';
import type { Frame } from '../streams/frame.js';
import type { MemoryRelease } from './memory-release.js';
import * as messages from './messages.js';
import type { SessionMemory } from './session-memory.js';

/** What {@link tallyFrames} sends each relayed frame to. */
export interface FrameTallyOptions {
  /** Counts the bytes relayed, to ask for a collection now and then. */
  memory: MemoryRelease | undefined;
  /** The debugger's session: records the frame. */
  report: DebugSession | undefined;
  /** What a restart replays to a new server. */
  sessionState: SessionMemory | undefined;
  /** `--trace`: a line per frame on `sink`. */
  trace: boolean;
  /** Our stderr. */
  sink: TextSink;
}

/** The relay's `onFrame`, and what it has counted so far. */
export interface FrameTally {
  /** Called for every frame relayed, in both directions. */
  onFrame: (frame: Frame) => void;
  /** The server answered at least one request. */
  answered(): boolean;
  /** Non-JSON-RPC lines the server wrote to stdout. */
  noise(): number;
}

/**
 * The proxy's per-frame observer: memory release, the debugger's record,
 * the session memory of restarts, `--trace`, and the two things the exit
 * diagnosis needs (an answer seen, stdout noise, whose first line is said
 * at once). One plain function per frame: nothing allocated for a frame
 * that needs nothing.
 */
export function tallyFrames(options: FrameTallyOptions): FrameTally {
  const { memory, report, sessionState, trace, sink } = options;
  let answered = false;
  let noise = 0;
  const onFrame = (frame: Frame): void => {
    // `size`: a long line relayed in pieces is counted whole, when it ends.
    memory?.relayed(frame.size);
    report?.onFrame(frame);
    sessionState?.observe(frame);
    if (trace) sink.write(traceLine('mcp-proxy', frame));
    if (frame.direction !== 'server-to-client') return;
    if (frame.type === 'response' || frame.type === 'error' || frame.type === 'batch') {
      answered = true;
    } else if (frame.type === 'noise') {
      if (++noise === 1) sink.write(`${messages.stdoutNoiseFirst(messages.quoteLine(frame.raw))}\n`);
    }
  };
  return { onFrame, answered: () => answered, noise: () => noise };
}
