// A run's end status as a playbook (src/relay/session-end.ts): how the
// server process ended in, the session node's last event and the run's
// status out.
import t from 'tap';
import { sessionEndRecord, type SessionEnd, type SessionEndRecord } from '../src/relay/session-end.js';

const stderr = ['boom'];

const playbook: Array<[string, SessionEnd, SessionEndRecord]> = [
  ['a clean exit: the node ends well, the run is ok', { exitCode: 0, signal: null }, { status: 'ok', output: { exitCode: 0, signal: null } }],
  ['nothing known of the exit (the host went first)', {}, { status: 'ok', output: { exitCode: null, signal: null } }],
  [
    'the command could not start: SpawnError, the run fails',
    { spawnError: { message: 'spawn nope ENOENT', code: 'ENOENT' } },
    { status: 'error', error: { name: 'SpawnError', message: 'spawn nope ENOENT', data: { code: 'ENOENT' } } },
  ],
  [
    'died before answering: McpServerExitedEarly, the run fails',
    { exitedEarly: { message: 'exited with code 1 before answering', stderr }, exitCode: 1, signal: null },
    { status: 'error', error: { name: 'McpServerExitedEarly', message: 'exited with code 1 before answering', data: { exitCode: 1, signal: null, stderr } } },
  ],
  [
    'failed once its answers could not be seen: McpServerExited, the run ok',
    { exitedUnobserved: { message: 'exited with code 2', stderr }, exitCode: 2 },
    { status: 'ok', error: { name: 'McpServerExited', message: 'exited with code 2', data: { exitCode: 2, signal: null, stderr } } },
  ],
  [
    'answered, then exited badly: McpServerExited, the run ok',
    { exitCode: 3, signal: null },
    { status: 'ok', error: { name: 'McpServerExited', message: 'the MCP server exited with code 3', data: { exitCode: 3, signal: null } } },
  ],
  [
    'answered, then killed: McpServerExited by the signal, the run ok',
    { exitCode: null, signal: 'SIGKILL' },
    { status: 'ok', error: { name: 'McpServerExited', message: 'the MCP server was killed by SIGKILL', data: { exitCode: null, signal: 'SIGKILL' } } },
  ],
  [
    'the host asked for the end (SIGINT passed on, the server died of it): the node ends well, saying so',
    { exitCode: null, signal: 'SIGINT', asked: true },
    { status: 'ok', output: { exitCode: null, signal: 'SIGINT', endedBy: 'host' } },
  ],
  [
    'the host closed its input and the server exited 1: asked for, the code kept',
    { exitCode: 1, signal: null, asked: true },
    { status: 'ok', output: { exitCode: 1, signal: null, endedBy: 'host' } },
  ],
  [
    'an early death wins over asked (it died before answering anything)',
    { exitedEarly: { message: 'early', stderr: [] }, exitCode: 1, signal: null, asked: true },
    { status: 'error', error: { name: 'McpServerExitedEarly', message: 'early', data: { exitCode: 1, signal: null, stderr: [] } } },
  ],
  [
    'a spawn error wins over everything else',
    { spawnError: { message: 'no' }, exitedEarly: { message: 'early', stderr: [] }, exitCode: 1 },
    { status: 'error', error: { name: 'SpawnError', message: 'no', data: { code: undefined } } },
  ],
  [
    'not observed wins over early (its answers may have gone by)',
    { exitedUnobserved: { message: 'unseen', stderr: [] }, exitedEarly: { message: 'early', stderr: [] }, exitCode: 1 },
    { status: 'ok', error: { name: 'McpServerExited', message: 'unseen', data: { exitCode: 1, signal: null, stderr: [] } } },
  ],
];

for (const [name, end, expected] of playbook) {
  t.test(name, async (t) => {
    t.strictSame(sessionEndRecord(end), expected);
  });
}
