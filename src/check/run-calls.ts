/**
 * `--run`: the host's requests of a recorded run sent again, as `graphmind
 * verify` sends them (its {@link VerifySession}: recorded order, the
 * server's own requests answered from the recording), after the check's own
 * handshake (the run's is left out), without comparing answers. Each call's
 * answer gets the scenario's checks; a call that failed when recorded may
 * fail now.
 *
 * @module
 */
import type { OutputValidators } from './schema-checks.js';
import type { RecordedAnswer, RecordedRun } from '../replay/recorded-run.js';
import { NO_RULES } from '../replay/verify-rules.js';
import { VerifySession } from '../replay/verify-session.js';
import type { JsonRpcMessage } from '../streams/frame.js';
import { checkAnswer, failureOf, type ResultBudget } from './answer-checks.js';
import type { CheckContext } from './check-context.js';

/** The handshake's methods: the check makes its own. */
const HANDSHAKE = new Set(['initialize', 'notifications/initialized', 'server/discover']);

function messageOfAnswer(answer: RecordedAnswer): JsonRpcMessage {
  return 'result' in answer ? { jsonrpc: '2.0', result: answer.result } : { jsonrpc: '2.0', error: answer.error };
}

/** What the check needs to play a run. */
export interface RunPlayback {
  /** Messages from the server go here while the run plays (set by {@link playRun}, cleared after). */
  session?: VerifySession;
}

/** Play `run`'s calls (see the module). */
export async function playRun(
  context: CheckContext,
  run: RecordedRun,
  playback: RunPlayback,
  send: (text: string) => void,
  options: { timeoutMs: number; outputs: OutputValidators; budget: ResultBudget | undefined },
): Promise<void> {
  const calls = run.calls.filter((call) => !HANDSHAKE.has(call.method));
  const session = new VerifySession({ ...run, calls }, { rules: NO_RULES, timeoutMs: options.timeoutMs, firstId: context.conversation.lastId }, { send });
  playback.session = session;
  context.conversation.serverRequests = (message) => (session.receive(message), true);
  const results = await session.play();
  playback.session = undefined;
  context.conversation.serverRequests = undefined;
  context.conversation.skipIds(calls.length);
  let played = 0;
  for (const result of results) {
    if (result.index < 0) continue; // an answer to no request: the wire's unknown-id says so
    const call = { method: result.method, ...(result.name === undefined ? {} : { name: result.name }) };
    // Numbered among the requests sent again (the run's handshake is not), from 1.
    const check = `run call ${++played}: ${result.method}${result.name === undefined ? '' : ` ${result.name}`}`;
    context.ran(check, 'run', result.ms);
    if (result.received === undefined) {
      if (result.verdict !== 'missing') continue; // recorded unanswered, sent without waiting
      if (result.reason?.includes('--timeout') === true) context.report('unanswered', check, `${result.reason} (${check})`, { call });
      else context.endedBetween(`${result.reason ?? 'the server ended'} (while the check waited for ${check})`, check);
      continue;
    }
    context.checkDuration(check, call, result.ms);
    const expectError = result.expected !== undefined && failureOf(messageOfAnswer(result.expected)) !== undefined;
    const output = result.method === 'tools/call' && result.name !== undefined ? options.outputs.get(result.name) : undefined;
    checkAnswer(context, check, call, messageOfAnswer(result.received), {
      ...(expectError ? { allowError: true } : {}),
      ...(output === undefined ? {} : { output }),
      ...(options.budget === undefined ? {} : { budget: options.budget }),
    });
  }
}
