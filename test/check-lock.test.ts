// graphmind check --lock against real parts: a lock written by `graphmind surface -o` from an
// SDK 1.x server, then the server changed (a description: risky; a tool removed: breaking; a
// parameter made required: breaking; a rename; a tool added: risky), each a drift finding with
// its class.
import t from 'tap';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from './helpers/cli.js';
import { CHECK_FIXTURES, checkJson } from './helpers/check.js';
import { cleanEnv } from './helpers/replay.js';

const TOOLS = [process.execPath, `${CHECK_FIXTURES}sdk1-tools-server.mjs`];
const dir = mkdtempSync(join(tmpdir(), 'graphmind-check-lock-'));

t.test('--lock: each change from the lock is a drift finding with its class', async (t) => {
  const lock = join(dir, 'graphmind.surface.json');
  const written = spawn(process.execPath, [CLI, 'surface', '-o', lock, '--', ...TOOLS], { env: cleanEnv(), stdio: 'ignore' });
  const [status] = (await once(written, 'close')) as [number | null];
  t.equal(status, 0, 'graphmind surface wrote the lock');
  const same = await checkJson(['--lock', lock], TOOLS);
  t.equal(same.code, 0, JSON.stringify(same.report.findings));
  const rows: Array<[Record<string, string>, string, string, RegExp]> = [
    [{ CHANGE_DESCRIPTION: '3' }, 'risky', 'tool:tool_3', /risky: .*tool_3.*description/],
    [{ TOOLS: '49' }, 'breaking', 'tool:tool_49', /breaking: .*tool_49 was removed/],
    [{ REQUIRE_LIMIT: '4' }, 'breaking', 'tool:tool_4', /breaking: .*"limit" was made required/],
    [{ RENAME: '5' }, 'breaking', 'tool:tool_5', /renamed to renamed_5/],
    [{ TOOLS: '51' }, 'risky', 'tool:tool_50', /risky: .*tool_50 was added/],
  ];
  for (const [env, changeClass, entry, message] of rows) {
    const { code, report } = await checkJson(['--lock', lock], TOOLS, env);
    t.equal(code, 1, JSON.stringify(env));
    t.match(report.findings, [{ code: 'drift', severity: 'error', class: changeClass, entry, check: 'lock' }], JSON.stringify(env));
    t.equal(report.findings.length, 1, JSON.stringify(report.findings));
    t.match(report.findings[0]?.message, message);
  }
  const onlyBreaking = await checkJson(['--lock', lock, '--fail-on', 'drift'], TOOLS, { CHANGE_DESCRIPTION: '3' });
  t.equal(onlyBreaking.code, 1, '--fail-on drift');
});

