import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * A process below the server: its pid, and when it started (clock ticks
 * since boot, from /proc; empty where that is not known), so that a pid
 * reused by an unrelated process later is not taken for it.
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

function fromPs(): Map<number, Row> | undefined {
  try {
    const out = execFileSync('ps', ['-A', '-o', 'pid=', '-o', 'ppid='], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 2000 });
    const table = new Map<number, Row>();
    for (const line of out.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (Number.isInteger(pid) && Number.isInteger(ppid)) table.set(pid as number, { ppid: ppid as number, started: '', zombie: false });
    }
    return table;
  } catch {
    return undefined;
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
  if (member.started !== '') {
    try {
      const row = parseStat(readFileSync(`/proc/${member.pid}/stat`, 'utf8'));
      return row !== undefined && row.started === member.started && !row.zombie;
    } catch {
      return false;
    }
  }
  try {
    process.kill(member.pid, 0);
    return true;
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
