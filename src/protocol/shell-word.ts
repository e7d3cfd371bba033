/**
 * `word` as one word for a POSIX shell: as it is when it holds only
 * characters no shell treats specially, else in single quotes (a quote in
 * it closed, escaped and reopened). For the recipes the CLI and the viewer
 * print, whose paths may hold a space. (cmd.exe quotes differently; the
 * recipes' JSON config entries need no quoting at all.)
 */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}
