import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative as relativePath, resolve } from 'node:path';

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
 * a folder that is not watched (see {@link NOT_WATCHED}), is an editor's
 * temporary file, or a log file (a server that logs into a watched folder
 * would otherwise restart itself with every line it writes).
 */
export function ignoredChange(relative: string): boolean {
  const parts = relative.split(/[\\/]/);
  if (parts.slice(0, -1).some((part) => NOT_WATCHED.includes(part))) return true;
  const name = parts[parts.length - 1] ?? '';
  return name.endsWith('~') || name.startsWith('.#') || /\.sw[a-p]$/.test(name) || name === '4913' || name.endsWith('.log');
}

/** A watched folder: its watcher, everyone listening to it, and the inode it had (a folder made again is a new one). */
interface WatchedFolder {
  watcher: FSWatcher;
  listeners: Array<(name: string) => void>;
  ino: number;
}

/**
 * One watcher per folder, with everyone listening to it (a folder of a
 * tree, the folder of a named file, or both), at most
 * {@link MAX_WATCHED_FOLDERS} in all.
 */
class FolderWatchers {
  readonly #watchers = new Map<string, WatchedFolder>();
  readonly #onProblem: (text: string) => void;
  #warnedFull = false;

  constructor(onProblem: (text: string) => void) {
    this.#onProblem = onProblem;
  }

  /** Call `onEvent` with the name of what changed in `folder`; false if it cannot be watched. */
  listen(folder: string, onEvent: (name: string) => void): boolean {
    const known = this.#watchers.get(folder);
    if (known !== undefined) {
      known.listeners.push(onEvent);
      return true;
    }
    if (this.#watchers.size >= MAX_WATCHED_FOLDERS) {
      if (!this.#warnedFull) this.#onProblem(`watching the first ${MAX_WATCHED_FOLDERS} folders only: name smaller ones with --watch`);
      this.#warnedFull = true;
      return false;
    }
    return this.#open(folder, [onEvent]);
  }

  /** A folder of the tree was made again (deleted and made, or another moved in its place): watch the new one. */
  renewed(folder: string): boolean {
    const known = this.#watchers.get(folder);
    if (known === undefined) return false;
    let ino: number;
    try {
      ino = statSync(folder).ino;
    } catch {
      return false;
    }
    if (ino === known.ino) return false;
    known.watcher.close();
    this.#watchers.delete(folder);
    return this.#open(folder, known.listeners);
  }

  /** Stop every watcher. */
  close(): void {
    for (const { watcher } of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  /** Start (or restart) the watcher of a folder, for the listeners it has. */
  #open(folder: string, listeners: Array<(name: string) => void>): boolean {
    let ino: number;
    try {
      ino = statSync(folder).ino;
    } catch {
      return false;
    }
    try {
      const watcher = watch(folder, { persistent: false }, (_event, name) => {
        const file = typeof name === 'string' ? name : '';
        for (const listener of [...listeners]) listener(file);
      });
      watcher.on('error', () => {
        // The folder went away (deleted, renamed): its parent tells of what replaced it.
        watcher.close();
      });
      this.#watchers.set(folder, { watcher, listeners, ino });
      return true;
    } catch (error) {
      this.#onProblem(`cannot watch ${folder}: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}

/** A watched folder with every folder under it (but {@link NOT_WATCHED}), a folder made later included. */
class TreeWatch {
  readonly #folders: FolderWatchers;
  readonly #changed: (file: string) => void;
  /** Folders watched as part of a tree (one listener each, however often they are met). */
  readonly #inTree = new Set<string>();

  constructor(folders: FolderWatchers, changed: (file: string) => void) {
    this.#folders = folders;
    this.#changed = changed;
  }

  /** Watch `folder`, part of the tree under `root`, and everything under it. */
  watch(root: string, folder: string): void {
    if (this.#inTree.has(folder)) {
      // Met again: a folder made after the start, or made again.
      if (this.#folders.renewed(folder)) this.#below(root, folder);
      return;
    }
    const ok = this.#folders.listen(folder, (name) => {
      if (name === '') return this.#changed(folder);
      const full = join(folder, name);
      if (ignoredChange(relativePath(root, full))) return;
      // A folder made (or moved in) after the start is watched too.
      try {
        if (statSync(full).isDirectory()) this.watch(root, full);
      } catch {
        // gone already
      }
      this.#changed(full);
    });
    if (!ok) return;
    this.#inTree.add(folder);
    this.#below(root, folder);
  }

  #below(root: string, folder: string): void {
    let entries: string[];
    try {
      entries = readdirSync(folder, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !NOT_WATCHED.includes(entry.name))
        .map((entry) => entry.name);
    } catch {
      return;
    }
    for (const name of entries) this.watch(root, join(folder, name));
  }
}

/**
 * Watch files and folders and call `onChange` with the file that changed,
 * once changes have settled for `debounceMs`. A folder is watched with
 * every folder under it, except those in {@link NOT_WATCHED} (unless one is
 * named itself), folder by folder, so that a large `node_modules` costs
 * nothing; a folder created later is watched from then on. A file is
 * watched through its folder, by name: an editor that saves by writing a
 * new file and renaming it over the old one (a new inode each time) is
 * still seen on every save. A path that does not exist or cannot be
 * watched is reported through `onProblem` and skipped; the rest are watched.
 */
export function watchFiles(paths: readonly string[], onChange: (file: string) => void, onProblem: (text: string) => void, options: WatchOptions = {}): FileWatch {
  const debounce = options.debounceMs ?? WATCH_DEBOUNCE_MS;
  const cwd = options.cwd ?? process.cwd();
  const folders = new FolderWatchers(onProblem);
  let timer: NodeJS.Timeout | undefined;
  let last = '';
  let closed = false;
  const changed = (file: string): void => {
    if (closed) return;
    last = file;
    clearTimeout(timer);
    timer = setTimeout(() => onChange(last), debounce);
    timer.unref();
  };
  const trees = new TreeWatch(folders, changed);
  for (const path of paths) {
    const full = resolve(cwd, path);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(full).isDirectory();
    } catch {
      onProblem(`cannot watch ${path}: it does not exist`);
      continue;
    }
    if (isDirectory) {
      trees.watch(full, full);
      continue;
    }
    // Through its folder: the name is what is watched, whatever inode it has after a save.
    const name = basename(full);
    folders.listen(dirname(full), (changedName) => {
      if (changedName === name) changed(full);
    });
  }
  return {
    close(): void {
      closed = true;
      clearTimeout(timer);
      folders.close();
    },
  };
}
