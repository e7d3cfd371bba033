import { fstatSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import type { TextSink } from '../relay/text-sink.js';

export type { TextSink } from '../relay/text-sink.js';

/** Options for {@link createStderrSink}. */
export interface StderrSinkOptions {
  /**
   * Bytes queued for a pipe that nobody reads before further output is
   * dropped.
   * @default 1048576 (1 MiB)
   */
  maxQueuedBytes?: number;
}

/**
 * A writer for file descriptor 2 that can never stall the relay.
 *
 * Node writes `process.stderr` synchronously when it is a pipe, so a host
 * that never reads our stderr would freeze the whole proxy once the pipe
 * fills. For a pipe or socket this sink writes asynchronously instead, keeps
 * at most `maxQueuedBytes` waiting, and drops the rest. A terminal or a file
 * cannot fill up that way and is written synchronously.
 */
export function createStderrSink(options: StderrSinkOptions = {}): TextSink {
  const limit = options.maxQueuedBytes ?? 1024 * 1024;
  let stat;
  try {
    stat = fstatSync(2);
  } catch {
    return { write() {}, flush: async () => {} };
  }
  if (!stat.isFIFO() && !stat.isSocket()) {
    let broken = false;
    return {
      write(chunk) {
        if (broken) return;
        try {
          if (typeof chunk === 'string') writeSync(2, chunk);
          else writeSync(2, chunk);
        } catch {
          broken = true;
        }
      },
      flush: async () => {},
    };
  }
  const socket = new Socket({ fd: 2, readable: false, writable: true });
  let broken = false;
  socket.on('error', () => {
    broken = true;
  });
  // Never keep the process alive just to finish writing diagnostics.
  socket.unref();
  return {
    write(chunk) {
      if (broken || socket.writableLength > limit) return;
      socket.write(chunk);
    },
    flush(timeoutMs) {
      if (broken || socket.writableLength === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        socket.write('', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

/** A sink over any writable stream, for tests and embedding. */
export function streamSink(stream: NodeJS.WritableStream): TextSink {
  return {
    write(chunk) {
      stream.write(chunk);
    },
    flush: async () => {},
  };
}

const NEWLINE = Buffer.from('\n');

/**
 * The proxy's stderr as the server and the proxy share it: the server's
 * bytes go on exactly as they came, and every line of ours (diagnostics,
 * `--trace`, HOLDING) starts a line of its own. When the server's last
 * write left a line open (no trailing newline), a newline goes first, so
 * a script matching `^graphmind mcp-proxy: ` still finds ours. With
 * `--inherit-stderr` the server writes to the descriptor itself and this
 * cannot know where its output stands.
 */
export class SharedStderr implements TextSink {
  readonly #out: TextSink;
  /** The last byte written was not a newline. */
  #midLine = false;

  constructor(out: TextSink) {
    this.#out = out;
  }

  /** Bytes the server wrote to its stderr, passed on unchanged. */
  server(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#out.write(chunk);
    this.#midLine = chunk[chunk.length - 1] !== 0x0a;
  }

  /** Text of ours: on a line of its own. */
  write(chunk: string | Buffer): void {
    if (chunk.length === 0) return;
    if (this.#midLine) {
      // One write, so that a sink dropping output drops both or neither.
      this.#out.write(typeof chunk === 'string' ? `\n${chunk}` : Buffer.concat([NEWLINE, chunk]));
    } else {
      this.#out.write(chunk);
    }
    const last = typeof chunk === 'string' ? chunk.charCodeAt(chunk.length - 1) : chunk[chunk.length - 1];
    this.#midLine = last !== 0x0a;
  }

  flush(timeoutMs: number): Promise<void> {
    return this.#out.flush(timeoutMs);
  }
}
