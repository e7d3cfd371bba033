// A run log that the disk cannot take (issue 29, a full disk). The failure
// is one line that names the file and says the disk is full (other errors
// as the system names them); the run's summary says its recording stopped
// and why; and a write cut part-way leaves the log readable: the next load
// reads every whole line before the cut and skips only the torn one, and
// nothing is ever appended after the torn part without a newline first.
//
// The faults are real where they can be: /dev/full (every write fails with
// ENOSPC) opened in place of a log, or symlinked where a run's log goes. A
// write that fails after part of its bytes landed (what a disk that fills
// up mid-write does) needs a writer that stops half-way: LogFiles' `writer`.
import { close as fsClose, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, write as fsWrite, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { RunEvent } from '../src/protocol/ingest.js';
import type { RunState } from '../src/protocol/run-state.js';
import { readRunLog } from '../src/export/read-run-log.js';
import { endLastLine } from '../src/server/end-line.js';
import { LogFiles, type LogWriter } from '../src/server/log-files.js';
import { RunStore } from '../src/server/run-store.js';
import { RunEvents } from './helpers/serve.js';

const HAS_DEV_FULL = existsSync('/dev/full');
const T0 = Date.UTC(2035, 0, 1);
const STILL_FULL = (): never => {
  throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
};

function tempDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'gm-log-full-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Lines of one run: its start, then `count` log lines. */
function runLines(runId: string, count: number): string[] {
  const run = new RunEvents(runId, T0);
  const events: RunEvent[] = [run.started()];
  for (let i = 1; i <= count; i++) events.push(run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: `line ${i}` }));
  return events.map((event) => `${JSON.stringify(event)}\n`);
}

/**
 * A writer whose write number `failAt` (counting from 1) puts the first
 * half of its bytes on disk and then fails with ENOSPC, as a disk that
 * fills up mid-write does; every other write is a real one.
 */
function tearingWriter(failAt: number): LogWriter & { writes: number } {
  const writer = {
    writes: 0,
    write(fd: number, buffer: Buffer, offset: number, length: number, position: number | null, callback: (error: NodeJS.ErrnoException | null, written?: number) => void): void {
      writer.writes++;
      if (writer.writes !== failAt) {
        fsWrite(fd, buffer, offset, length, position, callback);
        return;
      }
      fsWrite(fd, buffer, offset, Math.floor(length / 2), position, () => callback(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })));
    },
    close: fsClose,
  };
  return writer;
}

/** LogFiles whose errors are collected; `failed` resolves with the first. */
function logFiles(options: Omit<ConstructorParameters<typeof LogFiles>[0], 'onError'>): { files: LogFiles; errors: Array<[string, Error]>; failed: Promise<void> } {
  const errors: Array<[string, Error]> = [];
  let told = (): void => {};
  const failed = new Promise<void>((resolve) => (told = resolve));
  const files = new LogFiles({
    ...options,
    onError: (file, error) => {
      errors.push([file, error]);
      told();
    },
  });
  return { files, errors, failed };
}

/** Write each line as a write of its own, one turn apart, until the files fail; then wait for the file to settle. */
async function writeUntilFailed(files: LogFiles, file: string, lines: string[], failed: Promise<void>): Promise<void> {
  for (const line of lines) {
    files.write(file, [line]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await failed;
  await files.end(file);
}

t.test('endLastLine: a playbook of file tails', async (t) => {
  const dir = tempDir(t);
  const rows: Array<[string, string | null, string | null, boolean]> = [
    ['a missing file', null, null, false],
    ['an empty file', '', '', false],
    ['a file ending with a newline', '{"a":1}\n', '{"a":1}\n', false],
    ['a torn last line', '{"a":1}\n{"b"', '{"a":1}\n{"b"\n', true],
    ['one torn line', '{"b', '{"b\n', true],
  ];
  for (const [name, before, after, added] of rows) {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.jsonl`);
    if (before !== null) writeFileSync(file, before);
    t.equal(endLastLine(file), added, `${name}: newline added ${added}`);
    t.equal(existsSync(file) ? readFileSync(file, 'utf8') : null, after, `${name}: what the file holds after`);
  }
  if (HAS_DEV_FULL) t.equal(endLastLine('/dev/full'), false, 'a device is left alone');
  const sub = join(dir, 'a-directory.jsonl');
  mkdirSync(sub);
  t.throws(() => endLastLine(sub), { code: 'EISDIR' }, 'a directory cannot be ended: said as the system says it');
});

t.test('/dev/full opened in place of a log: one ENOSPC error for the file, and nothing more tried', { skip: HAS_DEV_FULL ? false : 'needs /dev/full' }, async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'run_full.jsonl');
  const { files, errors, failed } = logFiles({ open: () => openSync('/dev/full', 'a') });
  await writeUntilFailed(files, file, runLines('run_full', 5), failed);
  files.write(file, ['{"after":true}\n']);
  await files.endAll();
  t.equal(errors.length, 1, 'one error, not one per write');
  t.equal(errors[0]?.[0], file, 'naming the log');
  t.equal((errors[0]?.[1] as NodeJS.ErrnoException).code, 'ENOSPC', 'the disk is full');
  t.notOk(existsSync(file), 'nothing was made at the log path by the mend');
});

t.test('a write cut part-way: the log is ended cleanly, and read back whole up to the cut', async (t) => {
  const dir = tempDir(t);
  const runId = 'run_torn';
  const file = join(dir, `${runId}.jsonl`);
  const lines = runLines(runId, 6);
  // Writes 1–3 land, write 4 puts half its line on disk and fails.
  const { files, errors, failed } = logFiles({ writer: tearingWriter(4) });
  await writeUntilFailed(files, file, lines, failed);
  t.equal(errors.length, 1, 'one error');
  t.equal((errors[0]?.[1] as NodeJS.ErrnoException).code, 'ENOSPC');
  const fourth = lines[3] as string;
  const torn = fourth.slice(0, Math.floor(Buffer.byteLength(fourth) / 2));
  t.equal(readFileSync(file, 'utf8'), `${lines.slice(0, 3).join('')}${torn}\n`, 'three whole lines, the torn part, and a newline that ends it');
  const read = readRunLog(file, runId);
  t.ok(read.ok, 'the log reads');
  if (!read.ok) return;
  t.equal(read.skippedLines, 1, 'only the torn line is skipped');
  t.equal(read.endsWithNewline, true, 'it ends with a newline');
  t.same(read.state?.logs.map((log) => log.text), ['line 1', 'line 2'], 'every whole line before the cut is in the run');

  // The same server writes to that file again (a run of that id after a delete whose unlink failed):
  // the new lines start lines of their own, with no empty line between.
  files.discard(file);
  const after = runLines(runId, 7).slice(7);
  files.write(file, after);
  await files.endAll();
  t.equal(readFileSync(file, 'utf8'), `${lines.slice(0, 3).join('')}${torn}\n${after.join('')}`, 'appended after the ended line');
  const again = readRunLog(file, runId);
  t.same(again.ok && again.state?.logs.map((log) => log.text), ['line 1', 'line 2', 'line 7'], 'read back: the whole lines, before and after the cut');
});

t.test('a cut log the disk still refuses to end: the next load reads every whole line before the cut', async (t) => {
  const dir = tempDir(t);
  const runId = 'run_still_full';
  const file = join(dir, `${runId}.jsonl`);
  const lines = runLines(runId, 4);
  let mends = 0;
  const { files, failed } = logFiles({
    writer: tearingWriter(3),
    endLine: () => {
      mends++;
      STILL_FULL();
    },
  });
  await writeUntilFailed(files, file, lines, failed);
  t.equal(mends, 1, 'ending the torn line was tried once when the write failed');
  const third = lines[2] as string;
  const torn = third.slice(0, Math.floor(Buffer.byteLength(third) / 2));
  t.equal(readFileSync(file, 'utf8'), `${lines.slice(0, 2).join('')}${torn}`, 'the log ends mid-line: the disk took nothing more');

  // The next start (with room on the disk again): every line before the cut, the torn one skipped, and the line ended.
  const warnings: string[] = [];
  const store = new RunStore({ dir, onWarning: (line) => warnings.push(line) });
  t.teardown(() => store.close());
  const loaded = store.load();
  t.equal(loaded.skippedLines, 1, 'one line skipped: the torn one');
  t.same(store.get(runId)?.logs.map((log) => log.text), ['line 1'], 'every whole line is in the run');
  t.same(warnings, [], 'no warning');
  t.equal(readFileSync(file, 'utf8'), `${lines.slice(0, 2).join('')}${torn}\n`, 'the load ended the torn line');
});

t.test('a torn log written again while the disk still refuses the mend: a newline goes first', async (t) => {
  const dir = tempDir(t);
  const runId = 'run_reopened';
  const file = join(dir, `${runId}.jsonl`);
  const lines = runLines(runId, 4);
  const { files, failed } = logFiles({ writer: tearingWriter(2), endLine: STILL_FULL });
  await writeUntilFailed(files, file, lines, failed);
  const second = lines[1] as string;
  const torn = second.slice(0, Math.floor(Buffer.byteLength(second) / 2));
  files.discard(file);
  const after = runLines(runId, 5).slice(5);
  files.write(file, after);
  await files.endAll();
  t.equal(readFileSync(file, 'utf8'), `${lines[0] as string}${torn}\n${after.join('')}`, 'the torn part, a newline, then the new line');
  const read = readRunLog(file, runId);
  t.ok(read.ok && read.skippedLines === 1, 'only the torn line is skipped');
  t.same(read.ok && read.state?.logs.map((log) => log.text), ['line 5'], 'the line written after it is read');
});

t.test('RunStore: a log on a full disk is one line naming the file, and the run summary says its recording stopped', { skip: HAS_DEV_FULL ? false : 'needs /dev/full' }, async (t) => {
  const dir = tempDir(t);
  const warnings: string[] = [];
  const store = new RunStore({ dir, onWarning: (line) => warnings.push(line) });
  t.teardown(() => store.close());
  const told: RunState[] = [];
  let tell = (): void => {};
  const bothTold = new Promise<void>((resolve) => (tell = resolve));
  store.onRecordingStopped = (state) => {
    told.push(state);
    if (told.length === 2) tell();
  };
  const [full, dirLog, fine] = ['run_disk_full', 'run_dir_log', 'run_fine'];
  const fullFile = join(dir, `${full}.jsonl`);
  const dirFile = join(dir, `${dirLog}.jsonl`);
  // Where the run's log goes, a disk with no room; and, for an error that is not a full disk, a directory.
  symlinkSync('/dev/full', fullFile);
  mkdirSync(dirFile);
  const runs = [full, dirLog, fine].map((id) => new RunEvents(id, T0));
  for (const run of runs) store.append(run.started());
  const revisions = runs.map((run) => store.get(run.runId)?.revision);
  await bothTold;
  for (let i = 1; i <= 3; i++) for (const run of runs) store.append(run.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: `line ${i}` }));
  await store.close();

  t.equal(warnings.length, 2, 'one line per broken log, not one per write');
  t.match(warnings.find((line) => line.includes(full)), new RegExp(`^the log of run ${full} stopped: the disk is full: could not write ${fullFile} \\(ENOSPC\\); the run goes on in memory, but after a restart it ends here$`));
  t.match(warnings.find((line) => line.includes(dirLog)), new RegExp(`^the log of run ${dirLog} stopped: could not write ${dirFile}: EISDIR: [^\\n]*; the run goes on in memory`));
  t.equal(store.get(full)?.summary.recordingStopped, `the disk is full: could not write ${fullFile} (ENOSPC)`, 'the summary says why the recording stopped');
  t.match(store.get(dirLog)?.summary.recordingStopped, new RegExp(`^could not write ${dirFile}: EISDIR`), 'another error, as the system names it');
  t.notOk('recordingStopped' in (store.get(fine)?.summary ?? {}), 'a run whose log is written has no such field');
  t.same(told.map((state) => state.summary.runId).sort(), [full, dirLog].sort(), 'the hook was told of each, once');
  t.ok(runs.slice(0, 2).every((run, i) => (store.get(run.runId)?.revision ?? 0) > (revisions[i] ?? 0)), 'a new revision: no cached copy of the run is served');
  t.equal(store.list().find((s) => s.runId === full)?.recordingStopped, `the disk is full: could not write ${fullFile} (ENOSPC)`, 'the run list carries it');
  t.same(store.get(full)?.logs.map((log) => log.text), ['line 1', 'line 2', 'line 3'], 'the run goes on in memory');
  t.equal(readFileSync(join(dir, `${fine}.jsonl`), 'utf8').split('\n').length, 1 + 3 + 1, 'the other run: its whole log');
});
