/**
 * One line for a file the server could not write, that says plainly when
 * the disk is full (or the user's quota is used up) and names the file.
 */
export function diskErrorLine(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC') return `the disk is full: could not write ${file} (ENOSPC)`;
  if (code === 'EDQUOT') return `the disk quota is used up: could not write ${file} (EDQUOT)`;
  if (code === 'EROFS') return `the file system is read-only: could not write ${file} (EROFS)`;
  return `could not write ${file}: ${error instanceof Error ? error.message : String(error)}`;
}
