import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative as relativePath, resolve } from 'node:path';

/** How long changes settle before a restart: an editor's save is often several writes. */
export const WATCH_DEBOUNCE_MS = 200;

/** Folders never watched inside a watched folder (unless named themselves): dependencies, VCS data, build output. */
export const NOT_WATCHED = ['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'out', 'coverage', '.next', '.turbo', '.cache', '__pycache__', '.venv', 'venv', 'target'];

/** The most folders watched in all: a tree larger than this is watched in part, with a warning. */
export const MAX_WATCHED_FOLDERS = 4096;

/** Options for {@link watchFiles}. */
export interface WatchOptions {
  /** Quiet time after the last change before `onChange` is called. @default 200 */
  debounceMs?: number;
  /** Where relative paths are resolved. @default process.cwd() */
  cwd?: string;
}

/** A running watch. */
export interface FileWatch {
  /** Stop watching. */
  close(): void;
}

/**
 * True if a changed file (its path relative to the watched folder) lies in
 * a folder that is not watched (see {@link NOT_WATCHED}), or is an editor's
 * temporary file.
 */
export function ignoredChange(relative: string): boolean {
  const parts = relative.split(/[\\/]/);
  if (parts.slice(0, -1).some((part) => NOT_WATCHED.includes(part))) return true;
  const name = parts[parts.length - 1] ?? '';
  return name.endsWith('~') || name.startsWith('.#') || /\.sw[a-p]$/.test(name) || name === '4913';
}

/**
 * Watch files and folders and call `onChange` with the file that changed,
 * once changes have settled for `debounceMs`. A folder is watched with
 * every folder under it, except those in {@link NOT_WATCHED} (unless one is
 * named itself), folder by folder, so that a large `node_modules` costs
 * nothing; a folder created later is watched from then on. A path that does
 * not exist or cannot be watched is reported through `onProblem` and
 * skipped; the rest are watched.
 */
export function watchFiles(paths: readonly string[], onChange: (file: string) => void, onProblem: (text: string) => void, options: WatchOptions = {}): FileWatch {
  const debounce = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  const cwd = options.cwd ?? process.cwd();
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let last = '';
  let warnedFull = false;
  const changed = (file: string): void => {
    last = file;
    clearTimeout(timer);
    timer = setTimeout(() => onChange(last), debounce);
    timer.unref();
  };
  const watchOne = (target: string, onEvent: (name: string) => void): boolean => {
    if (watchers.has(target)) return true;
    if (watchers.size >= MAX_WATCHED_FOLDERS) {
      if (!warnedFull) onProblem(`watching the first ${MAX_WATCHED_FOLDERS} folders only: name smaller ones with --watch`);
      warnedFull = true;
      return false;
    }
    try {
      const watcher = watch(target, { persistent: false }, (_event, name) => onEvent(typeof name === 'string' ? name : ''));
      watcher.on('error', () => {
        // The folder went away (deleted, renamed): its parent tells of what replaced it.
        watcher.close();
        watchers.delete(target);
      });
      watchers.set(target, watcher);
      return true;
    } catch (error) {
      onProblem(`cannot watch ${target}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  };
  const watchTree = (root: string, folder: string): void => {
    const ok = watchOne(folder, (name) => {
      if (name === '') return changed(folder);
      const full = join(folder, name);
      if (ignoredChange(relativePath(root, full))) return;
      // A folder made (or moved in) after the start is watched too.
      try {
        if (statSync(full).isDirectory()) watchTree(root, full);
      } catch {
        // gone already
      }
      changed(full);
    });
    if (!ok) return;
    let entries: string[];
    try {
      entries = readdirSync(folder, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !NOT_WATCHED.includes(entry.name))
        .map((entry) => entry.name);
    } catch {
      return;
    }
    for (const name of entries) watchTree(root, join(folder, name));
  };
  for (const path of paths) {
    const full = resolve(cwd, path);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(full).isDirectory();
    } catch {
      onProblem(`cannot watch ${path}: it does not exist`);
      continue;
    }
    if (isDirectory) watchTree(full, full);
    else watchOne(full, () => changed(full));
  }
  return {
    close(): void {
      clearTimeout(timer);
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
