// A small run that arrived whole (the adapter's `run.completed`) is applied
// by the store in one step and kept as its summary until it is opened
// (src/server/completed-record.ts, issue 29: serve's CPU per adapter run).
// Whatever it saves, it must leave nothing different: the same list, the
// same run when opened, the same bytes on disk, the same retention, as
// applying its five events one by one. Two stores are given the same
// batches, read from their bytes as ingest reads them; one takes the one
// step where it can, the other never does.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { RunEvent } from '../src/protocol/ingest.js';
import { BatchReader } from '../src/server/batch-reader.js';
import { BatchText } from '../src/server/batch-text.js';
import { COMPLETED_RUN_EVENTS, isCompletedRun } from '../src/server/completed-record.js';
import { RunStore } from '../src/server/run-store.js';

const T0 = 1_700_000_000_000;
/** Two processes' run ids (report/reporter.ts newRunId): the group of a run depends on which. */
const ORIGINS = ['AbCdEfGhIjKlMnOp', 'QrStUvWxYz012345'];

/** One run.completed element, as the adapter writes it (bench/start.mjs smallRunLine, with a request id and an error when asked). */
function completedRun(runId: string, t: number, options: { tool?: string; error?: boolean; connection?: string } = {}): string {
  const meta = { app: 'test', sdk: '@modelcontextprotocol/server', server: 'srv', serverSdk: '@modelcontextprotocol/sdk', connection: options.connection ?? 'c1', serverInfo: { name: 'srv', version: '1.0.0' } };
  const server = { nodeId: 'server:srv', kind: 'server', parent: null, label: 'srv 1.0.0' };
  const tool = options.tool ?? 'echo';
  return JSON.stringify({
    type: 'run.completed', runId, seq: 1, t, endT: t + 2, name: `tools/call:${tool}`, source: 'mcp-adapter', meta,
    root: { instanceId: 'server', node: server, input: { sdk: '@modelcontextprotocol/sdk', name: 'srv', version: '1.0.0', app: 'test' } },
    instanceId: 'c1:1', node: { nodeId: `tool:${tool}`, kind: 'tool', parent: 'server:srv', label: tool },
    input: { text: runId }, requestId: 7, output: { content: [{ type: 'text', text: runId }] },
    ...(options.error === true ? { error: { name: 'ToolError', message: 'it broke' } } : {}),
  });
}

/** The batches: runs of two processes and two tools, some in one message, a failed one among them, and a repeat. */
function batches(): string[] {
  const out: string[] = [];
  let n = 0;
  const id = (origin: string): string => `run_${(T0 + n).toString(36)}_${origin}${(n++).toString(36)}`;
  for (let i = 0; i < 12; i++) out.push(`[${completedRun(id(ORIGINS[0] as string), T0 + i * 10)}]`);
  out.push(`[${completedRun(id(ORIGINS[1] as string), T0 + 200)},${completedRun(id(ORIGINS[1] as string), T0 + 201, { tool: 'add' })},${completedRun(id(ORIGINS[1] as string), T0 + 202, { tool: 'add' })}]`);
  out.push(`[${completedRun(id(ORIGINS[0] as string), T0 + 300, { error: true })},${completedRun(id(ORIGINS[0] as string), T0 + 301)}]`);
  out.push(`[${completedRun(id(ORIGINS[0] as string), T0 + 400, { connection: 'c2' })}]`);
  const again = out[3] as string;
  out.push(again);
  for (let i = 0; i < 5; i++) out.push(`[${completedRun(id(ORIGINS[0] as string), T0 + 500 + i)}]`);
  return out;
}

/** Apply one message's events as ingest does: a run that arrived whole in one step when `oneStep` (and the store takes it). */
function ingest(store: RunStore, reader: BatchReader, text: string, oneStep: boolean): number {
  const bytes = Buffer.from(text);
  const read = reader.read(bytes);
  if (read === undefined) throw new Error('not read on the fast path');
  const batch = new BatchText(bytes, read.ends, read.groups);
  const { events, elements } = read;
  let taken = 0;
  for (let i = 0; i < events.length; i++) {
    const element = elements[i] as number;
    if (oneStep && elements[i + 1] === element && store.appendCompleted(events, i, batch, element)) {
      i += COMPLETED_RUN_EVENTS - 1;
      taken++;
    } else {
      store.append(events[i] as RunEvent, batch, element);
    }
  }
  return taken;
}

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'graphmind-completed-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every file under `dir` with its bytes. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) out[join(entry.parentPath, entry.name).slice(dir.length)] = readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

for (const segments of [true, false]) {
  for (const maxRuns of [1000, 4]) {
    t.test(`one step or event by event: the same list, runs, files and retention (segments ${segments}, --max-runs ${maxRuns})`, async (t) => {
      const [dirA, dirB] = [tempDir(t), tempDir(t)];
      const deleted: [string[], string[]] = [[], []];
      const store = (dir: string, gone: string[]) => new RunStore({ dir, maxRuns, segments, onRetentionDelete: (runId) => gone.push(runId), onWarning: () => {} });
      const [a, b] = [store(dirA, deleted[0]), store(dirB, deleted[1])];
      const [readerA, readerB] = [new BatchReader(), new BatchReader()];
      let taken = 0;
      for (const text of batches()) {
        taken += ingest(a, readerA, text, true);
        ingest(b, readerB, text, false);
      }
      t.ok(taken >= 15, `runs applied in one step: ${taken}`);
      t.equal(JSON.stringify(a.list()), JSON.stringify(b.list()), 'the same list, key for key');
      t.strictSame(deleted[0], deleted[1], 'retention deleted the same runs');
      for (const summary of b.list()) {
        const runId = summary.runId;
        t.equal(JSON.stringify(a.get(runId)?.toRun()), JSON.stringify(b.get(runId)?.toRun()), `${runId} opened: the same run`);
      }
      t.equal(JSON.stringify(a.list()), JSON.stringify(b.list()), 'and the same list once opened');
      await Promise.all([a.close(), b.close()]);
      t.strictSame(files(dirA), files(dirB), 'the same files, byte for byte');
      const [againA, againB] = [store(dirA, []), store(dirB, [])];
      t.strictSame(againA.load(), againB.load());
      t.equal(JSON.stringify(againA.list()), JSON.stringify(againB.list()), 'the same runs after a restart');
      await Promise.all([againA.close(), againB.close()]);
    });
  }
}

t.test('what the one step leaves to the event-by-event path', async (t) => {
  const dir = tempDir(t);
  const a = new RunStore({ dir, segments: true, onWarning: () => {} });
  t.teardown(() => a.close());
  const reader = new BatchReader();
  const read = (text: string) => {
    const bytes = Buffer.from(text);
    const r = reader.read(bytes);
    if (r === undefined) throw new Error('not read');
    return { events: r.events, batch: new BatchText(bytes, r.ends, r.groups) };
  };
  const first = read(`[${completedRun('run_x1', T0)}]`);
  t.equal(a.appendCompleted(first.events, 0, first.batch, 0), false, 'the first run of its shape: replayed in full, to learn the shape');
  for (const event of first.events) a.append(event, first.batch, 0);
  const second = read(`[${completedRun('run_x2', T0 + 1)}]`);
  t.equal(a.appendCompleted(second.events, 0, undefined, 0), false, 'no text to log it as');
  t.equal(a.appendCompleted(second.events, 0, second.batch, 0), true, 'the next: one step');
  const again = read(`[${completedRun('run_x2', T0 + 2)}]`);
  t.equal(a.appendCompleted(again.events, 0, again.batch, 0), false, 'a run already here');
  a.delete('run_x2', true);
  t.equal(a.appendCompleted(again.events, 0, again.batch, 0), false, 'a run deleted on request');
  t.equal(a.get('run_x2'), undefined, 'stays deleted');
  const failed = read(`[${completedRun('run_x3', T0 + 3, { error: true })}]`);
  t.equal(isCompletedRun(failed.events, 0), false, 'a failed call: six events, event by event');
  const ok = read(`[${completedRun('run_x4', T0 + 4)}]`).events;
  const changed = (i: number, patch: Record<string, unknown>): RunEvent[] => ok.map((event, k) => (k === i ? ({ ...event, ...patch } as RunEvent) : event));
  t.equal(isCompletedRun(ok, 0), true);
  t.equal(isCompletedRun(ok, 1), false, 'not from its start');
  t.equal(isCompletedRun(changed(2, { instanceId: 'server' }), 0), false, 'the call under the root\'s instance id');
  t.equal(isCompletedRun(changed(3, { instanceId: 'other' }), 0), false, 'another instance ended');
  t.equal(isCompletedRun(changed(4, { runId: 'run_other' }), 0), false, 'another run finished');
  t.equal(isCompletedRun(changed(2, { seq: 9 }), 0), false, 'out of sequence');
  t.equal(isCompletedRun(changed(0, { seq: 0 }), 0), false, 'a start outside the sequence');
});
