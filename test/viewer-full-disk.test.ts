// A run whose log the disk cannot take (issue 29, a full disk), through a
// real `graphmind serve` and a real Chromium. The run's log path is a
// symlink to /dev/full, which takes every open and refuses every write with
// ENOSPC, as a full disk does; this holds for root too (CI runs as root,
// and chmod stops nothing there). serve says it in one stderr line naming
// the file; the run's summary carries `recordingStopped` in the REST API
// and on the live feed (`run.updated`); and the viewer's run header says
// the recording stopped, and why, both on a page that was open when it
// happened and on one opened later. A run whose log is written shows none.
import { existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import type { RunSummary } from '../src/protocol/run-model.js';
import { launchBrowser, openPage, realProblems } from './helpers/browser.js';
import { RunEvents, api, fakeReporter, liveClient, runId, runWhen, startServe } from './helpers/serve.js';
import { waitFor } from './helpers/cli.js';

const NOTICE = /^Recording stopped: the disk is full: could not write (\S+) \(ENOSPC\)\. What happens next is shown here but not saved: after the debugger restarts, this run ends where its recording stopped\.$/;

t.test('a run log on a full disk: one stderr line, the summary says why, and the viewer says the recording stopped', { skip: existsSync('/dev/full') ? false : 'needs /dev/full' }, async (t) => {
  const server = await startServe();
  t.teardown(() => server.stop());
  const live = await liveClient(server.port, server.token);
  t.teardown(() => live.ws.terminate());
  const browser = await launchBrowser(t);
  const { page, problems } = await openPage(browser, server.url);
  await page.locator('.conn-live').waitFor();

  const fine = new RunEvents(runId('fine'), Date.now() - 60_000);
  const full = new RunEvents(runId('full'));
  const fullFile = join(server.dataDir, 'runs', `${full.runId}.jsonl`);
  symlinkSync('/dev/full', fullFile);
  const reason = `the disk is full: could not write ${fullFile} (ENOSPC)`;

  const reporter = await fakeReporter(server.port, server.token);
  t.teardown(() => reporter.ws.terminate());
  reporter.send([fine.started('fine-run', {}, 'mcp-proxy'), fine.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'fine 1' })]);
  reporter.send([full.started('full-run', {}, 'mcp-proxy'), full.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'full 1' })]);

  // The page follows the newest run: the notice arrives live, as a run.updated.
  const notice = page.locator('.run-header .recording-stopped');
  await page.locator('.run-title', { hasText: 'full-run' }).waitFor({ timeout: 10_000 });
  await notice.waitFor({ timeout: 10_000 });
  const text = ((await notice.textContent()) ?? '').trim();
  t.match(text, NOTICE, 'the run header says the recording stopped, and why');
  t.equal(NOTICE.exec(text)?.[1], fullFile, 'naming the log file');

  await waitFor(() => live.messages.some((m) => (m as { type?: string; run?: RunSummary }).type === 'run.updated' && (m as { run: RunSummary }).run.recordingStopped !== undefined), 5000, 'the run.updated');
  const updates = live.messages.filter((m) => (m as { type?: string }).type === 'run.updated').map((m) => (m as { run: RunSummary }).run);
  t.same(
    updates.filter((run) => run.recordingStopped !== undefined).map((run) => [run.runId, run.status, run.recordingStopped]),
    [[full.runId, 'running', reason]],
    'the live feed sent the summary once, with why its recording stopped',
  );

  const lines = server.stderr().split('\n').filter((line) => line.includes(full.runId));
  t.same(lines, [`graphmind: the log of run ${full.runId} stopped: ${reason}; the run goes on in memory, but after a restart it ends here`], 'one stderr line, naming the file and saying the disk is full');

  // The REST API: the list and the run carry it; the other run has no such field.
  const list = (await api(server.port, server.token, 'GET', '/api/runs')).json as RunSummary[];
  t.equal(list.find((run) => run.runId === full.runId)?.recordingStopped, reason, 'GET /api/runs carries it');
  t.notOk('recordingStopped' in (list.find((run) => run.runId === fine.runId) ?? {}), 'a run whose log is written has none');
  // The run goes on in memory: a later line is there, and the notice stays.
  reporter.send([full.next({ type: 'log', nodeId: 'mcp:session', stream: 'stderr', text: 'full 2' })]);
  const run = await runWhen(server, full.runId, (r) => (r.logs as unknown[]).length === 2);
  t.equal(run.recordingStopped, reason, 'GET /api/runs/:runId carries it');
  t.equal(server.stderr().split('\n').filter((line) => line.includes(full.runId)).length, 1, 'a later write says nothing more');

  // The other run: no notice.
  await page.locator(`.runs li[data-run-id="${fine.runId}"]`).click();
  await page.locator('.run-title', { hasText: 'fine-run' }).waitFor();
  t.equal(await notice.count(), 0, 'a run whose log is written shows no notice');

  // A page opened later fetches the run: the notice is there too.
  const later = await openPage(browser, `${server.url}/#run=${encodeURIComponent(full.runId)}`);
  await later.page.locator('.run-title', { hasText: 'full-run' }).waitFor({ timeout: 10_000 });
  const laterNotice = later.page.locator('.run-header .recording-stopped');
  await laterNotice.waitFor({ timeout: 10_000 });
  t.match(((await laterNotice.textContent()) ?? '').trim(), NOTICE, 'a page opened later says it too');

  t.same(realProblems([...problems, ...later.problems], (line) => t.comment(line)), [], 'no console errors, page errors or CSP violations');
});
