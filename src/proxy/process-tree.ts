import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * A process below the server: its pid, and when it started (clock ticks
 * since boot from /proc, or `ps`'s start time elsewhere; empty where that
 * is not known), so that a pid reused by an unrelated process later is not
 * taken for it.
 */
export interface TreeMember {
  pid: number;
  started: string;
}

/** One process as the table shows it. */
export interface Row {
  ppid: number;
  started: string;
  /** Exited, waiting to be reaped by its parent: nothing left to signal. */
  zombie: boolean;
}

/** The `ppid` and start time in a /proc/<pid>/stat line (the command name may hold spaces and parentheses). */
function parseStat(text: string): Row | undefined {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(fields[1]);
  // Field 22 of the line; the 20th after the name.
  const started = fields[19] ?? '';
  const zombie = fields[0] === 'Z' || fields[0] === 'X';
  return Number.isInteger(ppid) ? { ppid, started, zombie } : undefined;
}

/** The /proc rows of `pids`; a pid that is gone (or cannot be read) has none. */
function procRows(pids: Iterable<number>): Map<number, Row> {
  const rows = new Map<number, Row>();
  for (const pid of pids) {
    try {
      const row = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (row !== undefined) rows.set(pid, row);
    } catch {
      // Gone since it was listed: not ours to signal any more.
    }
  }
  return rows;
}

function fromProc(): Map<number, Row> | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const table = procRows(names.map(Number).filter((pid) => Number.isInteger(pid) && pid > 0));
  return table.size > 0 ? table : undefined;
}

/** One `ps` line of `pid ppid stat lstart` (lstart holds spaces: it is the rest of the line). */
function parsePs(line: string): [number, Row] | undefined {
  const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
  if (match === null) return undefined;
  return [Number(match[1]), { ppid: Number(match[2]), started: `ps:${match[4] ?? ''}`, zombie: (match[3] ?? '').startsWith('Z') }];
}

/**
 * `ps` rows of every process, or of the pids given. Undefined when `ps`
 * could not say (missing, timed out); a map without a pid means that pid is
 * gone (`ps -p` exits 1 when none of its pids exist).
 */
export function fromPs(pids?: readonly number[]): Map<number, Row> | undefined {
  // One -o per column: BSD ps takes everything after a first "=" as one header.
  const columns = ['-o', 'pid=', '-o', 'ppid=', '-o', 'stat=', '-o', 'lstart='];
  const which = pids === undefined ? ['-A'] : ['-p', pids.join(',')];
  let out: string;
  try {
    out = execFileSync('ps', [...which, ...columns], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 });
  } catch (error) {
    return pids !== undefined && (error as { status?: unknown }).status === 1 ? new Map() : undefined;
  }
  const table = new Map<number, Row>();
  for (const line of out.split('\n')) {
    const row = parsePs(line);
    if (row !== undefined) table.set(row[0], row[1]);
  }
  return table;
}

/** True where /proc describes processes (Linux): a pid missing from it is gone. */
function hasProc(): boolean {
  return process.platform !== 'win32' && existsSync('/proc/self/stat');
}

/**
 * The rows of `pids` now: from /proc, or one `ps` call. A pid without a row
 * is gone; undefined means the table could not be read (Windows, no `ps`).
 */
function rowsOf(pids: readonly number[]): Map<number, Row> | undefined {
  if (process.platform === 'win32' || pids.length === 0) return undefined;
  return hasProc() ? procRows(pids) : fromPs(pids);
}

/** Every process and its parent: from /proc on Linux, from `ps` on other Unixes, none on Windows. */
function processTable(): Map<number, Row> | undefined {
  if (process.platform === 'win32') return undefined;
  return fromProc() ?? fromPs();
}

/**
 * The processes below `root` right now: its children, theirs, and so on
 * (not `root` itself). Empty when the process table cannot be read (on
 * Windows, say), and never includes anything that left the tree by
 * becoming a daemon (a double fork hands it to init).
 */
export function descendantsOf(root: number): TreeMember[] {
  const table = processTable();
  if (table === undefined) return [];
  const children = new Map<number, number[]>();
  for (const [pid, row] of table) {
    const list = children.get(row.ppid);
    if (list === undefined) children.set(row.ppid, [pid]);
    else list.push(pid);
  }
  const found: TreeMember[] = [];
  const queue = [root];
  const seen = new Set<number>(queue);
  while (queue.length > 0) {
    for (const pid of children.get(queue.shift() as number) ?? []) {
      if (seen.has(pid)) continue;
      seen.add(pid);
      const row = table.get(pid);
      // An exited process left to be reaped has nothing left to signal (nor any child of its own).
      if (row !== undefined && !row.zombie) found.push({ pid, started: row.started });
      queue.push(pid);
    }
  }
  return found;
}

/** Whether a process exists at all, by signal 0: anything but ESRCH (a process we may not signal exists too). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone in between, or not ours to signal: nothing left to do.
  }
}

/**
 * Send `signal` to every process below `root` (one read of the process
 * table, see {@link descendantsOf}) and return them, for a later
 * {@link signalMembers}.
 */
export function signalDescendants(root: number, signal: NodeJS.Signals): TreeMember[] {
  const below = descendantsOf(root);
  for (const member of below) kill(member.pid, signal);
  return below;
}

/** `member` against the rows read: still the same process, and not exited. Without rows, whether its pid exists. */
function sameProcess(member: TreeMember, rows: Map<number, Row> | undefined): boolean {
  if (rows === undefined) return processExists(member.pid);
  const row = rows.get(member.pid);
  return row !== undefined && !row.zombie && (member.started === '' || row.started === member.started);
}

/** True if `member` still runs as the same process: not exited, and not a later process that got its pid. */
export function stillRunning(member: TreeMember): boolean {
  return sameProcess(member, rowsOf([member.pid]));
}

/** True while `pid` runs: it exists and has not exited (a process that exited and waits for its parent to reap it does not count). */
export function running(pid: number): boolean {
  return stillRunning({ pid, started: '' });
}

/** Send `signal` to each member that still runs (one look at the process table for all); errors (gone, not ours) are ignored. */
export function signalMembers(members: readonly TreeMember[], signal: NodeJS.Signals): void {
  const rows = rowsOf(members.map((member) => member.pid));
  for (const member of members) if (sameProcess(member, rows)) kill(member.pid, signal);
}
