// The data directory under stress. Many live runs share a bounded number of
// open log files, each log whole and in order however often it is closed and
// reopened; a log that cannot be written says so once, on stderr, and the
// other runs go on; logs load line by line, whatever their size; and
// anything in runs/ that is not a regular file is skipped with one line on
// stderr instead of hanging or bloating the start.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { Run } from '../src/protocol/run-model.js';
import type { RunEvent } from '../src/protocol/ingest.js';
import { arrayElementEnds } from '../src/json/element-ends.js';
import { BatchText } from '../src/server/batch-text.js';
import { LogFiles, MAX_OPEN_LOGS } from '../src/server/log-files.js';
import { LOG_READ_CHUNK_BYTES, readLines, type ReadLinesOptions } from '../src/export/log-lines.js';
import { RunStore, type RunStoreOptions } from '../src/server/run-store.js';
import { waitFor } from './helpers/cli.js';
import { prng } from './helpers/random.js';
import { RunEvents, api, fakeReporter, freshDataDir, runId, runWhen, startServe, type ServeProcess } from './helpers/serve.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

const echo = { nodeId: 'tool:echo', kind: 'tool', parent: null, label: 'echo' } as const;
const HAS_PROC_FD = existsSync('/proc/self/fd');
const T0 = Date.UTC(2035, 0, 1);

function tempDir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-datadir-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A RunStore in a fresh directory, closed at teardown, whose warnings are collected, and a Feeder for it. */
function storeIn(t: Teardown, options: Omit<RunStoreOptions, 'dir' | 'onWarning'>): { dir: string; store: RunStore; warnings: string[]; feed: Feeder } {
  const dir = tempDir(t);
  const warnings: string[] = [];
  const store = new RunStore({ ...options, dir, onWarning: (line) => warnings.push(line) });
  t.teardown(() => store.close());
  return { dir, store, warnings, feed: new Feeder(store) };
}

/** A data dir (not created yet) that outlives the servers started on it. */
function sharedDataDir(t: Teardown): string {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return dataDir;
}

async function serveOn(t: Teardown, dataDir: string): Promise<ServeProcess> {
  const server = await startServe([], {}, { dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  return server;
}

/** How many descriptors of this process are open on files in `dir` (unlinked ones included). */
function openFilesIn(dir: string): number {
  const prefix = `${realpathSync(dir)}/`;
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).startsWith(prefix)) count++;
    } catch {
      // closed since it was listed
    }
  }
  return count;
}

/** A turn of the event loop or a few, or none: file writes finish in between, or not. */
function someTime(rand: () => number): Promise<void> {
  const roll = rand();
  if (roll < 0.25) return Promise.resolve();
  if (roll < 0.6) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, Math.floor(rand() * 3)));
}

/**
 * Runs fed to a {@link RunStore} as ingest feeds it (a batch's events as
 * slices of its text, or stringified one by one), remembering what each log
 * must hold: every event the store applied, in order.
 */
class Feeder {
  readonly logged = new Map<string, string[]>();
  readonly #seqs = new Map<string, number>();
  constructor(readonly store: RunStore) {}

  event(id: string, fields: Record<string, unknown>): RunEvent {
    const seq = (this.#seqs.get(id) ?? 0) + 1;
    this.#seqs.set(id, seq);
    return { ...fields, runId: id, seq, t: T0 + seq } as unknown as RunEvent;
  }

  started(id: string): RunEvent {
    return this.event(id, { type: 'run.started', name: id, source: 'test', meta: {} });
  }

  log(id: string, text: string): RunEvent {
    return this.event(id, { type: 'log', nodeId: 'tool:echo', stream: 'stderr', text });
  }

  send(events: readonly RunEvent[], asBatch: boolean): void {
    const text = JSON.stringify(events);
    const batch = asBatch ? new BatchText(text, arrayElementEnds(text, events.length) as number[], Buffer.from(text)) : undefined;
    events.forEach((event, i) => {
      const changed = batch === undefined ? this.store.append(event) : this.store.append(event, batch, i);
      // A reclaim changes the run but is not logged: the log already starts with it.
      const reclaim = event.type === 'run.started' && this.logged.has(event.runId);
      if (changed === undefined || reclaim) return;
      let lines = this.logged.get(event.runId);
      if (lines === undefined) this.logged.set(event.runId, (lines = []));
      lines.push(JSON.stringify(event));
    });
  }

  /** Runs whose log on disk is not exactly what was logged, with what differs first. */
  wrongLogs(dir: string): string[] {
    const wrong: string[] = [];
    for (const [id, lines] of this.logged) {
      const file = join(dir, `${id}.jsonl`);
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '(no file)';
      const want = lines.map((line) => `${line}\n`).join('');
      if (text !== want) wrong.push(`${id}: ${text.length} chars, want ${want.length}`);
    }
    return wrong;
  }
}

t.test('300 live runs keep at most 64 log files open, and every log is whole and in order', { skip: HAS_PROC_FD ? false : 'needs /proc/self/fd' }, async (t) => {
  // Retention aside: all 300 stay when they finish.
  const { dir, store, warnings, feed } = storeIn(t, { maxRuns: 1000 });
  t.equal(MAX_OPEN_LOGS, 64, 'the bound the docs give');
  const ids = Array.from({ length: 300 }, (_, i) => `live_${i}`);
  const rand = prng(300);
  let most = 0;
  const sample = (): void => {
    most = Math.max(most, openFilesIn(dir));
  };
  feed.send(ids.map((id) => feed.started(id)), true);
  for (let round = 0; round < 12; round++) {
    // Every run gets a line or two a round, in a new order, in batches of about 50 runs.
    const order = [...ids].sort(() => rand() - 0.5);
    for (let at = 0; at < order.length; at += 50) {
      const events = order.slice(at, at + 50).flatMap((id) => (rand() < 0.3 ? [feed.log(id, `r${round}`), feed.log(id, `r${round}b é😀`)] : [feed.log(id, `r${round}`)]));
      feed.send(events, rand() < 0.7);
      await someTime(rand);
      sample();
    }
  }
  t.equal(store.list().filter((run) => run.status === 'running').length, 300, 'all 300 runs are live');
  feed.send(ids.map((id) => feed.event(id, { type: 'run.finished', status: 'ok' })), true);
  sample();
  await store.close();
  t.ok(most <= 64, `at most 64 log files open at once (saw ${most})`);
  t.ok(most > 1, 'the count sees the open logs');
  t.equal(openFilesIn(dir), 0, 'none left open after close');
  t.same(feed.wrongLogs(dir), [], 'every log holds every line once, in order');
  t.same(warnings, [], 'no warning');
  const reloaded = new RunStore({ dir, maxRuns: 1000, onWarning: (line) => warnings.push(line) });
  t.same(reloaded.load(), { runs: 300, skippedLines: 0 }, 'and all 300 load again');
  t.equal(reloaded.get('live_299')?.logs.length, (feed.logged.get('live_299')?.length ?? 0) - 2, 'whole: every log line');
});

t.test('with 3 open logs at most, runs written in random order, finished, reclaimed and deleted keep every line once, in order', async (t) => {
  const { dir, store, warnings, feed } = storeIn(t, { maxOpenLogs: 3 });
  const rand = prng(3);
  const ids = Array.from({ length: 40 }, (_, i) => `small_${i}`);
  const deleted = new Set<string>();
  feed.send(ids.map((id) => feed.started(id)), false);
  let most = 0;
  for (let round = 0; round < 400; round++) {
    const events: RunEvent[] = [];
    for (let k = 0; k < 1 + Math.floor(rand() * 6); k++) {
      const id = ids[Math.floor(rand() * ids.length)] as string;
      const roll = rand();
      // Now and then a run ends, and its reporter reclaims it: its log is closed and reopened.
      if (roll < 0.05) events.push(feed.event(id, { type: 'run.finished', status: 'ok' }));
      else if (roll < 0.08) events.push({ ...feed.started(id), seq: 1 });
      else events.push(feed.log(id, `${round}.${k} ${'x'.repeat(Math.floor(rand() * 300))}`));
    }
    feed.send(events, rand() < 0.6);
    if (rand() < 0.02) {
      const id = ids[Math.floor(rand() * ids.length)] as string;
      if (store.delete(id, true)) {
        deleted.add(id);
        feed.logged.delete(id);
      }
    }
    await someTime(rand);
    if (HAS_PROC_FD) most = Math.max(most, openFilesIn(dir));
  }
  await store.close();
  await new Promise((resolve) => setImmediate(resolve));
  if (HAS_PROC_FD) t.ok(most <= 3, `at most 3 log files open at once (saw ${most})`);
  else void t.test('at most 3 log files open at once', { skip: 'needs /proc/self/fd to count them' }, () => {});
  t.ok(deleted.size > 0, `some runs were deleted (${deleted.size})`);
  t.same([...deleted].filter((id) => existsSync(join(dir, `${id}.jsonl`))), [], 'a deleted run leaves no file');
  t.same(feed.wrongLogs(dir), [], `all ${feed.logged.size} other logs hold every line once, in order`);
  t.same(warnings, [], 'no warning');
});

t.test('a log that fails when it is reopened: one warning for its run, which stays whole in memory, and the others go on', async (t) => {
  const { dir, store, warnings, feed } = storeIn(t, { maxOpenLogs: 1 });
  const broken = 'broken_run';
  const fine = 'fine_run';
  const brokenFile = join(dir, `${broken}.jsonl`);
  feed.send([feed.started(broken), feed.log(broken, 'before')], true);
  await waitFor(() => existsSync(brokenFile) && readFileSync(brokenFile, 'utf8').split('\n').length === 3, 5000, 'the first lines on disk');
  // The open descriptor still writes to the moved file; a reopen finds a directory. Root cannot write there either.
  renameSync(brokenFile, `${brokenFile}.moved`);
  mkdirSync(brokenFile);
  feed.send([feed.started(fine)], true);
  for (let i = 0; i < 10; i++) {
    feed.send([feed.log(broken, `after ${i}`), feed.log(fine, `line ${i}`)], i % 2 === 0);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await store.close();
  t.equal(warnings.length, 1, 'one warning, not one per line');
  t.match(warnings[0], new RegExp(`^the log of run ${broken} stopped: could not write ${brokenFile}: EISDIR: [^\\n]*; the run goes on in memory, but after a restart it ends here$`));
  t.equal(readFileSync(`${brokenFile}.moved`, 'utf8'), (feed.logged.get(broken) ?? []).slice(0, 2).map((line) => `${line}\n`).join(''), 'its log is what was written before the error');
  t.equal(store.get(broken)?.logs.length, 11, 'the run itself has every line');
  t.equal(readFileSync(join(dir, `${fine}.jsonl`), 'utf8'), (feed.logged.get(fine) ?? []).map((line) => `${line}\n`).join(''), 'the other run: every line');
});

t.test('serve: a log that cannot be written is one line on stderr for its run, and serve goes on', async (t) => {
  const dataDir = sharedDataDir(t);
  const server = await serveOn(t, dataDir);
  const runs = join(dataDir, 'runs');
  const [unopenable, unwritable, fine] = [runId('dir_log'), runId('full_log'), runId('fine_log')] as [string, string, string];
  // Failures that hold for root too: a directory cannot be opened to append, and /dev/full refuses every write (ENOSPC).
  mkdirSync(join(runs, `${unopenable}.jsonl`));
  symlinkSync('/dev/full', join(runs, `${unwritable}.jsonl`));
  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  const runsOf = [unopenable, unwritable, fine].map((id) => new RunEvents(id, T0));
  reporter.send(runsOf.map((run) => run.started()));
  for (let i = 1; i <= 5; i++) {
    reporter.send(runsOf.map((run) => run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: `line ${i}` })));
    for (const run of runsOf) await runWhen(server, run.runId, (r) => (r.logs as unknown[]).length === i);
  }
  await waitFor(() => server.stderr().split('\n').length >= 3, 5000, 'two lines on stderr');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const lines = server.stderr().split('\n').filter((line) => line !== '');
  t.equal(lines.length, 2, 'two lines in all: one per broken run, not one per line', { stderr: server.stderr() });
  const about = (id: string): string[] => lines.filter((line) => line.includes(id));
  t.match(about(unopenable), [new RegExp(`^graphmind: the log of run ${unopenable} stopped: could not write .*${unopenable}\\.jsonl: EISDIR: .*; the run goes on in memory, but after a restart it ends here$`)]);
  t.match(about(unwritable), [new RegExp(`^graphmind: the log of run ${unwritable} stopped: the disk is full: could not write .*${unwritable}\\.jsonl \\(ENOSPC\\); the run goes on in memory`)]);
  t.equal((await api(server.port, server.token, 'GET', '/api/health')).status, 200, 'serve still answers');
  for (const id of [unopenable, unwritable]) t.equal(((await api(server.port, server.token, 'GET', `/api/runs/${id}`)).json as Run).logs.length, 5, `${id}: every line in memory`);
  reporter.send([(runsOf[2] as RunEvents).next({ type: 'run.finished', status: 'ok' })]);
  await runWhen(server, fine, (r) => r.status === 'ok');
  await server.stop();
  t.equal(readFileSync(join(runs, `${fine}.jsonl`), 'utf8').split('\n').length, 1 + 5 + 1 + 1, 'the healthy run has its whole log');
});

/** Write `content` to a temp file and read it back with {@link readLines}. */
function readBack(dir: string, content: Buffer, options: ReadLinesOptions): { lines: Buffer[]; bytes: number; endsWithNewline: boolean; tooLong: number } {
  const file = join(dir, 'lines.jsonl');
  writeFileSync(file, content);
  const fd = openSync(file, 'r');
  const lines: Buffer[] = [];
  try {
    // The buffer handed over is only lent: copy it.
    const result = readLines(fd, (line) => lines.push(Buffer.from(line)), options);
    return { lines, ...result };
  } finally {
    closeSync(fd);
  }
}

/** The lines of `content` by splitting it whole: what reading in chunks must match. */
function splitWhole(content: Buffer): { lines: Buffer[]; endsWithNewline: boolean } {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < content.length; i++) {
    if (content[i] !== 0x0a) continue;
    lines.push(content.subarray(start, i));
    start = i + 1;
  }
  if (start < content.length) lines.push(content.subarray(start));
  return { lines, endsWithNewline: start === content.length };
}

/** For every chunk size from 1 to past the content's length: what differs from {@link splitWhole}. */
function chunkedMismatches(dir: string, content: Buffer, maxChunk = content.length + 2): string[] {
  const want = splitWhole(content);
  const wrong: string[] = [];
  for (let chunkBytes = 1; chunkBytes <= maxChunk; chunkBytes++) {
    const got = readBack(dir, content, { chunkBytes });
    const same =
      got.lines.length === want.lines.length &&
      got.lines.every((line, i) => line.equals(want.lines[i] as Buffer)) &&
      got.endsWithNewline === want.endsWithNewline &&
      got.bytes === content.length &&
      got.tooLong === 0;
    if (!same) wrong.push(`chunk ${chunkBytes}: ${JSON.stringify(got.lines.map(String))} ends ${got.endsWithNewline}`);
  }
  return wrong;
}

t.test('readLines: lines across chunk boundaries, at every chunk size', async (t) => {
  const dir = tempDir(t);
  t.equal(LOG_READ_CHUNK_BYTES, 4 * 1024 * 1024, 'logs load 4 MiB at a time');
  const table = ['', '\n', '\n\n', 'a', 'a\n', 'ab\ncd', 'ab\ncd\n', '\nab\n\ncd\n\n', 'é😀\n😀é\nz', `${'x'.repeat(50)}\nshort\n${'y'.repeat(23)}`, '{"a":1}\n{"b":"\\n"}\n'];
  for (const text of table) t.same(chunkedMismatches(dir, Buffer.from(text)), [], `${JSON.stringify(text)} at every chunk size`);

  // Random texts: short and long lines, empty ones, UTF-8 split anywhere.
  const rand = prng(42);
  const alphabet = ['a', 'b', '\n', '\n', 'é', '😀', '{"k":"v"}'];
  const wrong: string[] = [];
  for (let i = 0; i < 150; i++) {
    let text = '';
    const length = Math.floor(rand() * 40);
    for (let k = 0; k < length; k++) text += alphabet[Math.floor(rand() * alphabet.length)];
    for (const problem of chunkedMismatches(dir, Buffer.from(text), 12)) wrong.push(`${JSON.stringify(text)} ${problem}`);
  }
  t.same(wrong, [], '150 random texts, chunks of 1 to 12 bytes');
});

t.test('readLines: a line longer than maxLineBytes is counted, not kept, and the lines after it are read', async (t) => {
  const dir = tempDir(t);
  const cases: Array<[string, string[], number, boolean]> = [
    ['aaaa\nbb\ncccccc\nd', ['bb', 'd'], 2, false],
    ['abc\nabcd\n', ['abc'], 1, true],
    ['a\nbbbbbbbbbb', ['a'], 1, false],
    ['bbbbbbbbbb', [], 1, false],
  ];
  for (const [text, lines, tooLong, endsWithNewline] of cases) {
    for (const chunkBytes of [1, 2, 3, 4, 5, 16]) {
      const got = readBack(dir, Buffer.from(text), { chunkBytes, maxLineBytes: 3 });
      t.same({ lines: got.lines.map(String), tooLong: got.tooLong, endsWithNewline: got.endsWithNewline }, { lines, tooLong, endsWithNewline }, `${JSON.stringify(text)}, chunks of ${chunkBytes}`);
    }
  }
});

t.test('serve: a log larger than the read chunk loads after a restart, lines straddling chunk boundaries', async (t) => {
  const dataDir = sharedDataDir(t);
  const first = await serveOn(t, dataDir);
  const reporter = await fakeReporter(first.port, first.token);
  t.teardown(() => reporter.ws.terminate());
  const id = runId('large');
  const run = new RunEvents(id, T0);
  // Multi-byte characters throughout, so chunk boundaries fall inside them too; one line longer than a chunk.
  const text = (chars: number): string => 'aé😀"\\'.repeat(Math.ceil(chars / 5)).slice(0, chars);
  reporter.send([run.started('large', { big: true }, 'mcp-proxy')]);
  for (let i = 0; i < 4; i++) reporter.send([run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: text(700_000 + i * 1000) })]);
  reporter.send([run.next({ type: 'instance.started', instanceId: 'mcp_1', node: echo, input: { text: text(3_000_000) } })]);
  reporter.send([run.next({ type: 'instance.finished', instanceId: 'mcp_1', output: { text: text(1_500_000) } })]);
  reporter.send(Array.from({ length: 3000 }, (_, i) => run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stdout', text: `small ${i}` })));
  reporter.send([run.next({ type: 'run.finished', status: 'ok' })]);
  await runWhen(first, id, (r) => r.status === 'ok', 20_000);
  const before = (await api(first.port, first.token, 'GET', `/api/runs/${id}`)).json as Run;
  await first.stop();
  const file = join(dataDir, 'runs', `${id}.jsonl`);
  const size = statSync(file).size;
  t.ok(size > 2 * LOG_READ_CHUNK_BYTES, `the log (${size} bytes) spans more than two chunks`);
  t.ok(Buffer.from(text(3_000_000)).length > LOG_READ_CHUNK_BYTES, 'and has a line longer than a chunk');
  // And a torn last line at its end.
  appendFileSync(file, '{"type":"log","runId":"torn');

  const second = await serveOn(t, dataDir);
  const after = (await api(second.port, second.token, 'GET', `/api/runs/${id}`)).json as Run;
  t.same(after, before, 'the run is the same after the restart');
  await waitFor(() => /skipped 1 unreadable line/.test(second.stdout()), 5000, 'the torn line reported');
  t.pass('the torn last line is skipped and reported');
  t.equal(readFileSync(file).at(-1), 0x0a, 'and ended with a newline, so the next line starts its own');
  t.equal(second.stderr(), '', 'nothing on stderr');
});

/** The lines of a small finished run, as its log holds them. */
function finishedRunLog(id: string): string {
  const run = new RunEvents(id, T0);
  const events = [run.started(id), run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'hello' }), run.next({ type: 'run.finished', status: 'ok' })];
  return events.map((event) => `${JSON.stringify(event)}\n`).join('');
}

/** Things that are not regular files, named like a log, and what serve must say of each. */
const NOT_REGULAR: Array<{ what: string; make(path: string, elsewhere: string, t: Teardown): void | Promise<void>; says: RegExp }> = [
  { what: 'a FIFO', make: (path) => execFileSync('mkfifo', [path]), says: /: it is a FIFO, not a regular file$/ },
  { what: 'a directory', make: (path) => mkdirSync(path), says: /: it is a directory, not a regular file$/ },
  { what: 'a symlink to /dev/zero', make: (path) => symlinkSync('/dev/zero', path), says: /: it is a character device, not a regular file$/ },
  {
    what: 'a symlink to a FIFO',
    make: (path, elsewhere) => {
      execFileSync('mkfifo', [join(elsewhere, 'fifo')]);
      symlinkSync(join(elsewhere, 'fifo'), path);
    },
    says: /: it is a FIFO, not a regular file$/,
  },
  {
    what: 'a socket',
    make: async (path, _elsewhere, t) => {
      const listener = createServer();
      await new Promise<void>((resolve) => listener.listen(path, resolve));
      t.teardown(() => new Promise((resolve) => listener.close(resolve)));
    },
    says: /: cannot open it \(ENXIO: [^\n]*\)$/,
  },
  { what: 'a dangling symlink', make: (path, elsewhere) => symlinkSync(join(elsewhere, 'gone.jsonl'), path), says: /: cannot open it \(ENOENT: [^\n]*\)$/ },
];

for (const { what, make, says } of NOT_REGULAR) {
  t.test(`serve: ${what} in runs/ is skipped with one line on stderr, and the start is prompt`, { skip: process.platform === 'win32' ? 'POSIX files' : false }, async (t) => {
    const dataDir = sharedDataDir(t);
    const runs = join(dataDir, 'runs');
    mkdirSync(runs, { recursive: true });
    const elsewhere = join(dataDir, '..');
    const real = runId('real');
    writeFileSync(join(runs, `${real}.jsonl`), finishedRunLog(real));
    const odd = runId('odd');
    const path = join(runs, `${odd}.jsonl`);
    await make(path, elsewhere, t);
    const started = Date.now();
    const server = await serveOn(t, dataDir);
    const took = Date.now() - started;
    t.ok(took < 5000, `listening after ${took} ms`);
    const list = (await api(server.port, server.token, 'GET', '/api/runs')).json as Array<{ runId: string; status: string }>;
    t.same(list.map((r) => [r.runId, r.status]), [[real, 'ok']], 'the real run, and nothing else');
    const lines = server.stderr().split('\n').filter((line) => line !== '');
    t.equal(lines.length, 1, 'one line on stderr', { stderr: server.stderr() });
    t.ok(lines[0]?.startsWith(`graphmind: skipped ${path}: `), 'naming the file', { line: lines[0] });
    t.match(lines[0], says, 'and why');
    t.notMatch(server.stderr(), /^\s+at /m, 'no stack trace');
  });
}

t.test('serve: a symlink to a regular file is followed', async (t) => {
  const dataDir = sharedDataDir(t);
  const runs = join(dataDir, 'runs');
  mkdirSync(runs, { recursive: true });
  const id = runId('linked');
  const target = join(dataDir, '..', 'kept-elsewhere.jsonl');
  writeFileSync(target, finishedRunLog(id));
  symlinkSync(target, join(runs, `${id}.jsonl`));
  const server = await serveOn(t, dataDir);
  const loaded = (await api(server.port, server.token, 'GET', `/api/runs/${id}`)).json as Run;
  t.equal(loaded.status, 'ok', 'its run loads');
  t.equal(loaded.logs.length, 1);
  t.equal(server.stderr(), '', 'without a warning');
});

t.test('LogFiles: no descriptor free for the moment (EMFILE) is waited out, not an error', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gm-logfiles-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'run.jsonl');
  // No descriptor for the first 100 ms.
  const freeAt = Date.now() + 100;
  let opens = 0;
  const errors: string[] = [];
  const files = new LogFiles({
    onError: (_file, error) => errors.push(error.message),
    retryMs: 30,
    open: (path) => {
      opens++;
      if (Date.now() < freeAt) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
      return openSync(path, 'a', 0o600);
    },
  });
  // A busy run: a write on every turn of the event loop while no descriptor is free.
  const expected: string[] = [];
  for (let i = 0; i < 30; i++) {
    expected.push(`line ${i}\n`);
    files.write(file, [`line ${i}\n`]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await files.end(file);
  t.equal(readFileSync(file, 'utf8'), expected.join(''), 'every line, in order, once a descriptor came free');
  t.same(errors, [], 'and no error was reported');
  t.ok(opens <= 6, `writes during the wait do not spend the tries: ${opens} opens in all, one every 30 ms`);

  const stuck = join(dir, 'stuck.jsonl');
  const never = new LogFiles({
    onError: (_file, error) => errors.push((error as NodeJS.ErrnoException).code ?? ''),
    retryMs: 5,
    retries: 3,
    open: () => {
      throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
    },
  });
  never.write(stuck, ['lost\n']);
  await never.end(stuck);
  t.same(errors, ['EMFILE'], 'a shortage that lasts is reported once, after the retries');
  t.notOk(existsSync(stuck), 'and nothing was written');
});
