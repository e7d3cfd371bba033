import { createWriteStream, openSync, type WriteStream } from 'node:fs';
import PQueue from 'p-queue';
import { endLastLine } from './end-line.js';

/** Most log files {@link LogFiles} keeps open at once, unless told otherwise. */
export const MAX_OPEN_LOGS = 64;

/**
 * How a log's bytes reach its descriptor, as `fs.write` and `fs.close` do
 * it (a test passes one that writes part of a chunk and then fails, as a
 * disk that fills up mid-write does).
 */
export interface LogWriter {
  /** Write `length` bytes of `buffer` from `offset`; `callback` gets the error or the bytes written. */
  write(fd: number, buffer: Buffer, offset: number, length: number, position: number | null, callback: (error: NodeJS.ErrnoException | null, written?: number) => void): void;
  /** Close the descriptor. */
  close(fd: number, callback: (error?: NodeJS.ErrnoException | null) => void): void;
}

/** Options for {@link LogFiles}. */
export interface LogFilesOptions {
  /**
   * Descriptors open at once, counting those still closing. Past it the
   * file written least recently is closed, and opened again (to append) when
   * it is next written. @default 64
   */
  maxOpen?: number;
  /**
   * Told of the first error opening or writing a file. What is written to
   * that file afterwards is dropped, so that it keeps an unbroken start of
   * what it was given, until {@link LogFiles.discard} is called for it.
   * A write that failed part-way may leave a torn last line: it is ended
   * (a newline appended) as soon as the disk takes it, and at the latest
   * before anything else is appended to that file.
   */
  onError: (file: string, error: Error) => void;
  /**
   * Opens a file to append, returning its descriptor.
   * @default `fs.openSync(file, 'a', 0o600)`
   */
  open?: (file: string) => number;
  /** Writes to the descriptors opened. @default `fs.write` and `fs.close` (and `fs.writev`) */
  writer?: LogWriter;
  /**
   * Ends a torn last line of a file whose write failed (see `endLastLine`);
   * throws when it cannot.
   * @default {@link endLastLine}
   */
  endLine?: (file: string) => void;
  /**
   * When the process (or the system) has no descriptor to spare (EMFILE,
   * ENFILE: sockets use them too), how long to wait before trying again,
   * and how many times; only then is it an error. @default 1000 ms, 10 times
   */
  retryMs?: number;
  retries?: number;
}

/** Errors that say "not now", not "never": no descriptor free for the moment. */
const TRANSIENT = new Set(['EMFILE', 'ENFILE']);

/** One file being written. */
interface Entry {
  readonly file: string;
  /** Its open (or closing) stream; at most one at a time, so writes reach the file in order. */
  stream: WriteStream | undefined;
  /** True once `stream` was ended: what comes next waits in `waiting` until it has closed. */
  ending: boolean;
  /** Chunks waiting for a descriptor. */
  waiting: Array<string | Buffer>;
  /** Waiting in the queue for a descriptor (or just given one). */
  queued: boolean;
  /** Close once what is waiting is written: nothing more is expected soon. */
  endWhenWritten: boolean;
  /** Told when the file has nothing open and nothing waiting. */
  idle: Array<() => void>;
  /** Opens that failed for want of a descriptor, in a row. */
  tries: number;
  /** Set while waiting to try opening again: writes only join `waiting` meanwhile. */
  retry: NodeJS.Timeout | undefined;
}

/**
 * Append-only files with a bounded number of open descriptors. Each file
 * gets its chunks in the order written, whole and once, however often its
 * descriptor is closed and reopened: a file is reopened only after its
 * previous stream has finished and closed.
 *
 * Thousands of live runs, each keeping its log open, would use up the
 * process's descriptors (EMFILE), which its sockets need too. The bound is
 * a `p-queue` with one slot per descriptor: a file takes a slot from its
 * open to its stream's close, and when files wait for a slot, the file
 * written least recently is closed to free one.
 */
export class LogFiles {
  readonly #maxOpen: number;
  readonly #onError: (file: string, error: Error) => void;
  readonly #entries = new Map<string, Entry>();
  /** Entries whose stream is open and not ending, least recently written first. */
  readonly #open = new Map<string, Entry>();
  /** One slot per descriptor; each task holds a file open until its stream closes. First come first served. */
  readonly #slots: PQueue;
  /** Streams not yet closed, ending ones included: the descriptors in use. */
  #inUse = 0;
  readonly #failed = new Set<string>();
  /** Files whose last write failed part-way and could not be ended yet: they may end mid-line. */
  readonly #torn = new Set<string>();
  readonly #writer: LogWriter | undefined;
  readonly #endLine: (file: string) => void;

  readonly #openFile: (file: string) => number;
  /** {@link LogFiles.endAll} was called: the process is shutting down. */
  #closing = false;
  readonly #retryMs: number;
  readonly #retries: number;

  constructor(options: LogFilesOptions) {
    this.#maxOpen = Math.max(1, options.maxOpen ?? MAX_OPEN_LOGS);
    this.#slots = new PQueue({ concurrency: this.#maxOpen });
    this.#onError = options.onError;
    this.#openFile = options.open ?? ((file) => openSync(file, 'a', 0o600));
    this.#writer = options.writer;
    this.#endLine = options.endLine ?? endLastLine;
    this.#retryMs = options.retryMs ?? 1000;
    this.#retries = options.retries ?? 10;
  }

  /** Append `chunks` to `file` (created with mode 0600 if need be). */
  write(file: string, chunks: ReadonlyArray<string | Buffer>): void {
    if (chunks.length === 0 || this.#failed.has(file)) return;
    let entry = this.#entries.get(file);
    if (entry === undefined) {
      entry = { file, stream: undefined, ending: false, waiting: [], queued: false, endWhenWritten: false, idle: [], tries: 0, retry: undefined };
      this.#entries.set(file, entry);
    }
    entry.endWhenWritten = false;
    if (entry.stream !== undefined && !entry.ending) {
      for (const chunk of chunks) entry.stream.write(chunk);
      // The most recently written goes last: the first is the one to close.
      this.#open.delete(file);
      this.#open.set(file, entry);
      return;
    }
    for (const chunk of chunks) entry.waiting.push(chunk);
    if (entry.stream === undefined && entry.retry === undefined) this.#enqueue(entry);
  }

  /**
   * Close `file` once what was written to it is on disk. Resolves when it
   * has nothing open and nothing waiting (a later write opens it again).
   */
  end(file: string): Promise<void> {
    const entry = this.#entries.get(file);
    if (entry === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      entry.idle.push(resolve);
      entry.endWhenWritten = true;
      if (entry.stream !== undefined && !entry.ending) this.#endStream(entry);
      this.#settle(entry);
    });
  }

  /** Close every file; resolves when all are closed. From now on a file that cannot be opened is not waited for. */
  endAll(): Promise<void> {
    this.#closing = true;
    for (const entry of this.#entries.values()) {
      if (entry.retry === undefined) continue;
      // Waiting for a descriptor: one last try now, instead of holding up the shutdown.
      clearTimeout(entry.retry);
      entry.retry = undefined;
      if (entry.stream === undefined) this.#enqueue(entry);
    }
    return Promise.all([...this.#entries.keys()].map((file) => this.end(file))).then(() => {});
  }

  /**
   * `file` was deleted: drop what still waits for a descriptor, so that it
   * is not opened (and created) again for lines nobody wants, and forget an
   * earlier error of it (a new file of that name gets a fresh start). What
   * an open stream was already given still goes to the deleted file.
   */
  discard(file: string): void {
    this.#failed.delete(file);
    const entry = this.#entries.get(file);
    if (entry === undefined) return;
    entry.waiting = [];
    clearTimeout(entry.retry);
    entry.retry = undefined;
    // Still queued: its turn finds nothing to write and settles it then.
    this.#settle(entry);
  }

  #enqueue(entry: Entry): void {
    if (entry.queued) return;
    entry.queued = true;
    void this.#slots.add(() => this.#openStream(entry));
    this.#makeRoom();
  }

  /** Files wait for a slot: close the least recently written, as many as are waited for. */
  #makeRoom(): void {
    // Streams already ending free their slots by themselves when they close.
    while (this.#slots.size > this.#inUse - this.#open.size) {
      const [oldest] = this.#open.values();
      if (oldest === undefined) return;
      this.#endStream(oldest);
    }
  }

  /** A slot's task: open `entry` and write what waits; settles when its stream has closed (the slot is free again). */
  #openStream(entry: Entry): Promise<void> {
    entry.queued = false;
    if (entry.waiting.length === 0 || this.#failed.has(entry.file)) {
      entry.waiting = [];
      this.#settle(entry);
      return Promise.resolve();
    }
    // Opened here and now, not by the stream later: a file deleted after this
    // point stays deleted (its last lines go to the unlinked file), where an
    // open still in flight would create it again.
    let fd: number;
    try {
      fd = this.#openFile(entry.file);
      entry.tries = 0;
    } catch (error) {
      if (TRANSIENT.has((error as NodeJS.ErrnoException).code ?? '') && entry.tries < this.#retries && !this.#closing) {
        // Its lines keep waiting, in order, for a descriptor to come free.
        entry.tries++;
        entry.retry = setTimeout(() => {
          entry.retry = undefined;
          if (entry.stream === undefined) this.#enqueue(entry);
        }, this.#retryMs);
        return Promise.resolve();
      }
      this.#giveUp(entry, error as Error);
      this.#settle(entry);
      return Promise.resolve();
    }
    // Only a test's writer is passed: without one the stream keeps fs.writev for batched chunks.
    const stream = this.#writer === undefined ? createWriteStream('', { fd }) : createWriteStream('', { fd, fs: this.#writer });
    this.#inUse++;
    entry.stream = stream;
    entry.ending = false;
    this.#open.set(entry.file, entry);
    stream.on('error', (error) => this.#fail(entry, error));
    // An fs stream always closes, after its end or after an error: then its slot is free.
    const closed = new Promise<void>((resolve) => {
      stream.once('close', () => {
        this.#inUse--;
        entry.stream = undefined;
        this.#open.delete(entry.file);
        // A write that failed may have left half a line: end it now if the disk takes it.
        if (this.#torn.has(entry.file)) this.#mend(entry.file);
        resolve();
        if (entry.waiting.length > 0 && !this.#failed.has(entry.file)) this.#enqueue(entry);
        else this.#settle(entry);
      });
    });
    const chunks = entry.waiting;
    entry.waiting = [];
    // Written again after a failure (see discard): nothing goes after half a line without a newline first.
    if (this.#torn.has(entry.file) && !this.#mend(entry.file)) {
      this.#torn.delete(entry.file);
      stream.write('\n');
    }
    for (const chunk of chunks) stream.write(chunk);
    if (entry.endWhenWritten) this.#endStream(entry);
    // Others waiting for a slot meanwhile: the least recently written makes room.
    this.#makeRoom();
    return closed;
  }

  #endStream(entry: Entry): void {
    entry.ending = true;
    this.#open.delete(entry.file);
    entry.stream?.end();
  }

  #fail(entry: Entry, error: Error): void {
    // The stream is done for: it closes by itself, and is no descriptor to take back.
    entry.ending = true;
    this.#torn.add(entry.file);
    this.#open.delete(entry.file);
    this.#giveUp(entry, error);
  }

  /** The file cannot be written: what waits for it is dropped, and that is said once. */
  #giveUp(entry: Entry, error: Error): void {
    entry.waiting = [];
    if (this.#failed.has(entry.file)) return;
    this.#failed.add(entry.file);
    this.#onError(entry.file, error);
  }

  /** End the torn last line of `file`; true once it is ended (or was not torn after all). */
  #mend(file: string): boolean {
    try {
      this.#endLine(file);
    } catch {
      // The disk is still full: the next append (or the next start's load) ends it.
      return false;
    }
    this.#torn.delete(file);
    return true;
  }

  /** Nothing open, nothing waiting: forget the entry and tell who waits for that. */
  #settle(entry: Entry): void {
    if (entry.stream !== undefined || entry.queued || entry.waiting.length > 0) return;
    if (this.#entries.get(entry.file) === entry) this.#entries.delete(entry.file);
    const idle = entry.idle;
    entry.idle = [];
    for (const resolve of idle) resolve();
  }
}
