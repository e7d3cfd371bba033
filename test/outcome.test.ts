// The decision table as a playbook, straight from the spec's action table:
// what each action does to a held request, notification and answer. The
// proxy and the adapter both carry out these outcomes (test/parity runs the
// same cases through both).
import t from 'tap';
import { ABORT_CODE, ABORT_MESSAGE, outcomeOf, type HeldKind, type Outcome } from '../src/gates/outcome.js';

const fail: Outcome = { kind: 'fail', code: ABORT_CODE, message: ABORT_MESSAGE };
const whole = { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'typed by hand' } };

const playbook: Array<[HeldKind, string, unknown, Outcome]> = [
  // Held request (before): nothing has run yet.
  ['request', 'continue', undefined, { kind: 'forward' }],
  ['request', 'retry', undefined, { kind: 'forward' }],
  ['request', 'inject', 'a string', { kind: 'answer', value: 'a string' }],
  ['request', 'inject', { price: 42 }, { kind: 'answer', value: { price: 42 } }],
  ['request', 'inject', undefined, { kind: 'answer', value: undefined }],
  ['request', 'inject', whole, { kind: 'answer-frame', frame: whole }],
  ['request', 'abort', undefined, fail],
  // Held answer (after / error): the server has done the work.
  ['answer', 'continue', undefined, { kind: 'forward' }],
  ['answer', 'inject', { content: [] }, { kind: 'answer', value: { content: [] } }],
  ['answer', 'inject', whole, { kind: 'answer-frame', frame: whole }],
  ['answer', 'retry', undefined, { kind: 'retry' }],
  ['answer', 'abort', undefined, fail],
  // A notification has no answer: only a before gate.
  ['notification', 'continue', undefined, { kind: 'forward' }],
  ['notification', 'retry', undefined, { kind: 'forward' }],
  ['notification', 'inject', { jsonrpc: '2.0', method: 'x' }, { kind: 'replace', value: { jsonrpc: '2.0', method: 'x' } }],
  ['notification', 'abort', undefined, { kind: 'drop' }],
  // An action nobody knows fails open.
  ['request', 'bogus', undefined, { kind: 'forward' }],
  ['answer', 'bogus', undefined, { kind: 'forward' }],
  ['notification', 'bogus', undefined, { kind: 'forward' }],
];

for (const [held, action, value, expected] of playbook) {
  t.test(`${held}, ${action}${value === undefined ? '' : ` ${JSON.stringify(value)}`}`, async (t) => {
    t.strictSame(outcomeOf(held, { action, value }), expected);
  });
}

t.test('an array with a jsonrpc-looking first item is a value, not a whole frame', async (t) => {
  t.strictSame(outcomeOf('request', { action: 'inject', value: [{ jsonrpc: '2.0' }] }), { kind: 'answer', value: [{ jsonrpc: '2.0' }] });
});
