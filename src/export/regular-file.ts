/**
 * A run log opened to be read, the one way every reader opens it: without
 * blocking (opening a FIFO with no writer would otherwise wait for one),
 * then only when it is a regular file (a symlink to one is followed; a
 * device such as /dev/zero would never end), and closed again whatever
 * happens. What could not be read says why in a few words.
 *
 * @module
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from 'node:fs';

/** A file that {@link readRegularFile} did not read, and why, in a few words. */
export interface RegularFileRefused {
  /** Not read. */
  ok: false;
  /** `cannot open it (…)`, `it is a FIFO, not a regular file` (or `it is not a regular file`), `cannot read it (…)`. */
  reason: string;
}

/** Options for {@link readRegularFile}. */
export interface ReadRegularFileOptions {
  /**
   * Name what a file that is not a regular file is (`it is a FIFO, not a
   * regular file`); false says only `it is not a regular file`.
   * @default true
   */
  nameKind?: boolean;
}

/**
 * Open `file` read-only and without blocking, and hand `read` its
 * descriptor and stats when it is a regular file; the descriptor is closed
 * once `read` returns or throws. What `read` throws is told as
 * `cannot read it (…)`, as is a failing `fstat`.
 */
export function readRegularFile<T>(
  file: string,
  read: (fd: number, stats: Stats) => T,
  options: ReadRegularFileOptions = {},
): { ok: true; value: T } | RegularFileRefused {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    return { ok: false, reason: `cannot open it (${errorText(error)})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) {
      return { ok: false, reason: options.nameKind === false ? 'it is not a regular file' : `it is ${fileKind(stats)}, not a regular file` };
    }
    return { ok: true, value: read(fd, stats) };
  } catch (error) {
    return { ok: false, reason: `cannot read it (${errorText(error)})` };
  } finally {
    closeSync(fd);
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What a file that is not a regular file is (`a FIFO`, `a directory`…), for a line that refuses it. */
export function fileKind(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'something else';
}
