import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs';

/**
 * End the last line of `file` when a write cut short left it without its
 * newline, so that whatever is appended next starts a line of its own.
 * Returns true if a newline was added. A missing file, an empty one, one
 * that already ends with a newline, or one that is not a regular file (a
 * device such as `/dev/full`) is left as it is. Throws what the file
 * system says when the newline cannot be written (the disk is still full).
 */
export function endLastLine(file: string): boolean {
  let fd: number;
  try {
    // Non-blocking: a FIFO named like a log must not hang the server.
    fd = openSync(file, constants.O_RDWR | constants.O_APPEND | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    const size = stats.size;
    if (!stats.isFile() || size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return false;
    writeSync(fd, '\n');
    return true;
  } finally {
    closeSync(fd);
  }
}
