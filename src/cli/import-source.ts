import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';
import { fileKind } from '../export/regular-file.js';

/** The most bytes `graphmind import` reads unless `--max-bytes` says otherwise: 256 MiB. */
export const DEFAULT_IMPORT_MAX_BYTES = 256 * 1024 * 1024;

/** A source `graphmind import` may read: an open regular file (or standard input when asked with `-`). */
export interface ImportSource {
  /** The descriptor to read from (0 for standard input). */
  fd: number;
  /** The file's size when it is a regular file; undefined for standard input. */
  size: number | undefined;
  /** Close it (standard input is left open). */
  close(): void;
}

/** What a file of this kind is called in a refusal. */
function kindOf(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  // Said in full here: whoever pipes into `graphmind import` may know it as a named pipe.
  return stats.isFIFO() ? 'a FIFO (named pipe)' : fileKind(stats);
}

/**
 * Open what `graphmind import` was given, or say in one line why not: only
 * a regular file of at most `maxBytes`, or standard input when `path` is
 * `-`. A FIFO, a device or a directory is refused at once, before a byte
 * is read (the file is opened non-blocking, so opening a FIFO with no
 * writer cannot hang).
 */
export function openImportSource(path: string, maxBytes: number): ImportSource | string {
  if (path === '-') return { fd: 0, size: undefined, close: () => {} };
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `${path}: no such file`;
    if (code === 'EACCES' || code === 'EPERM') return `${path}: permission denied`;
    if (code === 'EISDIR') return `${path} is a directory, not a run log`;
    return `cannot open ${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
  const close = (): void => closeSync(fd);
  try {
    const stats = fstatSync(fd);
    const kind = kindOf(stats);
    if (kind !== undefined) {
      close();
      return `${path} is ${kind}, not a run log: give a file (or - to read standard input)`;
    }
    if (stats.size > maxBytes) {
      close();
      return `${path} is ${stats.size} bytes, over the ${maxBytes}-byte limit: raise it with --max-bytes`;
    }
    return { fd, size: stats.size, close };
  } catch (error) {
    close();
    return `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The size of each read from an import source. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * Read all of `source`, chunk by chunk, stopping as soon as it passes
 * `maxBytes` (a file that grows while read, or standard input, is held to
 * the cap as it comes, never read whole first). The bytes, or why not in
 * one line (`label` names the source).
 */
export async function readImportSource(source: ImportSource, label: string, maxBytes: number): Promise<Buffer | string> {
  const { createReadStream } = await import('node:fs');
  const stream = source.fd === 0 ? process.stdin : createReadStream('', { fd: source.fd, autoClose: false, highWaterMark: CHUNK_BYTES });
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        if (source.fd !== 0) stream.destroy();
        return `${label} is over the ${maxBytes}-byte limit: raise it with --max-bytes`;
      }
      chunks.push(chunk);
    }
  } catch (error) {
    return `cannot read ${label}: ${error instanceof Error ? error.message : String(error)}`;
  }
  return Buffer.concat(chunks, size);
}
