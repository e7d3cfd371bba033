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

interface Row {
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

function fromProc(): Map<number, Row> | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const table = new Map<number, Row>();
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      const row = parseStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (row !== undefined) table.set(pid, row);
    } catch {
      // Gone since the listing: not ours to signal any more.
    }
  }
  return table.size > 0 ? table : undefined;
}

/** One `ps` line of `pid ppid stat lstart` (lstart holds spaces: it is the rest of the line). */
function parsePs(line: string): [number, Row] | undefined {
  const match = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.+?)\s*$/.exec(line);
  if (match === null) return undefined;
  return [Number(match[1]), { ppid: Number(match[2]), started: `ps:${match[4] ?? ''}`, zombie: (match[3] ?? '').startsWith('Z') }];
}

/** `ps` rows: of every process, or of the one `pid`. */
function fromPs(pid?: number): Map<number, Row> | undefined {
  try {
    const which = pid === undefined ? ['-A'] : ['-p', String(pid)];
    const out = execFileSync('ps', [...which, '-o', 'pid=,ppid=,stat=,lstart='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 });
    const table = new Map<number, Row>();
    for (const line of out.split('\n')) {
      const row = parsePs(line);
      if (row !== undefined) table.set(row[0], row[1]);
    }
    return table;
  } catch {
    // Also what `ps -p` does for a pid that is gone (exit status 1).
    return pid === undefined ? undefined : new Map();
  }
}

/** The row of one process, from /proc or `ps`; undefined if it is gone. */
function rowOf(pid: number): Row | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    if (process.platform === 'win32' || existsSync('/proc/self/stat')) return undefined;
    return fromPs(pid)?.get(pid);
  }
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
      found.push({ pid, started: table.get(pid)?.started ?? '' });
      queue.push(pid);
    }
  }
  return found;
}

/** True if `member` still runs as the same process: not exited, and not a later process that got its pid. */
export function stillRunning(member: TreeMember): boolean {
  if (member.started === '') return running(member.pid);
  const row = rowOf(member.pid);
  return row !== undefined && row.started === member.started && !row.zombie;
}

/** True while `pid` runs: it exists and has not exited (a process that exited and waits for its parent to reap it does not count). */
export function running(pid: number): boolean {
  const row = process.platform === 'win32' ? undefined : rowOf(pid);
  if (row !== undefined) return !row.zombie;
  try {
    process.kill(pid, 0);
    return process.platform === 'win32';
  } catch {
    return false;
  }
}

/** Send `signal` to each member that still runs; errors (gone, not ours) are ignored. */
export function signalMembers(members: readonly TreeMember[], signal: NodeJS.Signals): void {
  for (const member of members) {
    if (!stillRunning(member)) continue;
    try {
      process.kill(member.pid, signal);
    } catch {
      // Gone in between, or not ours to signal: nothing left to do.
    }
  }
}
