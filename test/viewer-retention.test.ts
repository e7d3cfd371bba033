// The viewer says what `--max-runs` deleted (issue 29, "retention that
// speaks"): a note at the top of the run list, for what a start deleted
// (from the snapshot) and for what recording deletes later (from
// `runs.trimmed`), until the user dismisses it. A real Chromium on a real
// `graphmind serve`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { fakeReporter, freshDataDir, RunEvents, startServe } from './helpers/serve.js';
import { until } from './helpers/viewer.js';
import type { RunEvent } from '../src/protocol/ingest.js';

function finishedRun(runId: string, t: number): RunEvent[] {
  const run = new RunEvents(runId, t);
  return [run.started(runId), run.next({ type: 'run.finished', status: 'ok' })];
}

t.test('the run list says what --max-runs deleted, at start and since', async (t) => {
  const { root, dataDir } = freshDataDir();
  mkdirSync(join(dataDir, 'runs'), { recursive: true, mode: 0o700 });
  const t0 = Date.now() - 100_000;
  for (let i = 0; i < 30; i++) {
    const runId = `run_old_${String(i).padStart(2, '0')}`;
    writeFileSync(join(dataDir, 'runs', `${runId}.jsonl`), `${finishedRun(runId, t0 + i * 1000).map((e) => JSON.stringify(e)).join('\n')}\n`);
  }
  const serve = await startServe(['--max-runs', '10'], {}, { dataDir });
  t.teardown(async () => {
    await serve.stop();
    const { rmSync } = await import('node:fs');
    rmSync(root, { recursive: true, force: true });
  });
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, serve.url);
  const note = page.locator('.run-notes [data-note="trimmed"]');
  await until(page, `document.querySelector('.run-notes [data-note="trimmed"]') !== null`, 'the note');
  t.equal((await note.textContent())?.replace('×', '').trim(), 'deleted 20 oldest runs to keep --max-runs 10', 'what the start deleted');
  t.equal(await page.locator('.runs > li.run').count(), 10, 'the 10 kept are listed');
  await note.getByRole('button', { name: 'Dismiss this note' }).click();
  await until(page, `document.querySelector('.run-notes [data-note="trimmed"]') === null`, 'the note dismissed');

  const reporter = await fakeReporter(serve.port, serve.token);
  t.teardown(() => reporter.close());
  reporter.send(Array.from({ length: 5 }, (_, i) => finishedRun(`run_new_${i}`, Date.now() + i)).flat());
  await until(page, `document.querySelector('.run-notes [data-note="trimmed"]') !== null`, 'the note again');
  t.equal((await note.textContent())?.replace('×', '').trim(), 'deleted 5 oldest runs to keep --max-runs 10', 'what recording deleted since');
  t.equal(await page.locator('.run-notes [data-note="loading"]').count(), 0, 'nothing loading');
  t.strictSame(realProblems(problems, (text) => t.comment(text)), [], 'no console errors');
});
