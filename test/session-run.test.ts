// The run a session starts as a playbook (src/relay/session-label.ts): the
// command line (or a name) and the hide switches in, the run's label,
// source, session input and first metadata out. test/run-extensions has the
// label's own table.
import t from 'tap';
import { sessionRun, type SessionNaming, type SessionRun } from '../src/relay/session-label.js';

const shown = { inputs: false, toolResults: false };
const hidden = { inputs: true, toolResults: false };
const CWD = '/home/me/project';
const PID = 4242;

const playbook: Array<[string, SessionNaming, SessionRun]> = [
  [
    'the proxy: named after the command line, with it as input and metadata',
    { command: '/usr/bin/node', args: ['/srv/weather/dist/server.js', '--port', '3000'], hide: shown },
    {
      label: 'node weather/dist/server.js --port 3000',
      source: 'mcp-proxy',
      input: { command: '/usr/bin/node', args: ['/srv/weather/dist/server.js', '--port', '3000'] },
      meta: { command: '/usr/bin/node', args: ['/srv/weather/dist/server.js', '--port', '3000'], cwd: CWD, proxyPid: PID },
    },
  ],
  [
    'hidden inputs: only the command name and file names, no working directory',
    { command: '/usr/bin/node', args: ['/home/me/secret/build/index.js', '--token=abc'], hide: hidden },
    {
      label: 'node index.js',
      source: 'mcp-proxy',
      input: { command: 'node', args: ['index.js'] },
      meta: { command: 'node', args: ['index.js'], cwd: undefined, proxyPid: PID },
    },
  ],
  ['no arguments', { command: 'uvx', hide: shown }, { label: 'uvx', source: 'mcp-proxy', input: { command: 'uvx', args: [] }, meta: { command: 'uvx', args: [], cwd: CWD, proxyPid: PID } }],
  [
    'a source of its own',
    { command: 'node', args: ['s.js'], source: 'mcp-custom', hide: shown },
    { label: 'node s.js', source: 'mcp-custom', input: { command: 'node', args: ['s.js'] }, meta: { command: 'node', args: ['s.js'], cwd: CWD, proxyPid: PID } },
  ],
  ['a relay of your own: no command', { hide: shown }, { label: 'relay', source: 'mcp-relay', input: undefined, meta: { pid: PID } }],
  ['the HTTP proxy: a name and a source', { name: 'http', source: 'mcp-http-proxy', hide: hidden }, { label: 'http', source: 'mcp-http-proxy', input: undefined, meta: { pid: PID } }],
];

for (const [name, naming, expected] of playbook) {
  t.test(name, async (t) => {
    t.strictSame(sessionRun(naming, CWD, PID), expected);
  });
}

t.test('a long command line is cut to 120 characters', async (t) => {
  const run = sessionRun({ command: 'node', args: ['--flag='.padEnd(200, 'x')], hide: shown }, CWD, PID);
  t.equal(run.label.length, 120);
  t.ok(run.label.endsWith('…'));
});
