import { fstatSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';

/** Where the proxy's diagnostics and the server's stderr go. */
export interface TextSink {
  write(chunk: string | Buffer): void;
  /** Resolve once queued output is written, or after `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
}

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
