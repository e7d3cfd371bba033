// The reporter's small rules as playbooks: the reconnect schedule (with the
// clock passed in, so no test waits for it), what it takes from the
// server's messages, and its ingest URL.
import t from 'tap';
import { Backoff, HURRY_RECONNECT_MS, MAX_RECONNECT_MS } from '../src/report/backoff.js';
import { parseIngestUrl } from '../src/report/ingest-url.js';
import { readServerMessage } from '../src/report/server-message.js';

/** One step of the schedule: an attempt failed at `now` (the delay it waits is the outcome), attached, or a hurry. */
type Step = ['fail', number] | ['attached'] | ['hurry', number, number];

const schedules: Array<[string, number, Step[], number[]]> = [
  ['doubles from the first delay', 250, [['fail', 0], ['fail', 0], ['fail', 0], ['fail', 0]], [250, 500, 1000, 2000]],
  ['up to 5 s, no further', 250, [['fail', 0], ['fail', 0], ['fail', 0], ['fail', 0], ['fail', 0], ['fail', 0], ['fail', 0]], [250, 500, 1000, 2000, 4000, MAX_RECONNECT_MS, MAX_RECONNECT_MS]],
  ['attached: back to the first delay', 250, [['fail', 0], ['fail', 0], ['fail', 0], ['attached'], ['fail', 0]], [250, 500, 1000, 250]],
  ['a first delay over 250 ms is kept', 1000, [['fail', 0], ['fail', 0]], [1000, 2000]],
  [
    'while somebody waits for a debugger, 250 ms at most',
    250,
    [['fail', 0], ['fail', 0], ['fail', 0], ['hurry', 100, 5000], ['fail', 200], ['fail', 5099], ['fail', 5100]],
    // The schedule goes on doubling underneath (2 s, 4 s, 5 s): once the wait is over, it is back.
    [250, 500, 1000, HURRY_RECONNECT_MS, HURRY_RECONNECT_MS, MAX_RECONNECT_MS],
  ],
  ['a hurry does not shorten a delay already under 250 ms', 20, [['hurry', 0, 1000], ['fail', 0], ['fail', 0], ['fail', 0]], [20, 40, 80]],
  ['a shorter hurry does not end a longer one', 250, [['hurry', 0, 10_000], ['hurry', 0, 100], ['fail', 0], ['fail', 0], ['fail', 0], ['fail', 9_999]], [250, 250, 250, 250]],
];

for (const [name, base, steps, delays] of schedules) {
  t.test(`backoff: ${name}`, async (t) => {
    const backoff = new Backoff(base);
    const waited: number[] = [];
    for (const step of steps) {
      if (step[0] === 'fail') waited.push(backoff.next(step[1]));
      else if (step[0] === 'attached') backoff.reset();
      else backoff.hurry(step[1], step[2]);
    }
    t.same(waited, delays);
  });
}

const BP = { pauseOnError: true, nodes: { 'tool:echo': { before: true } } };

const messages: Array<[string, string, unknown]> = [
  ['breakpoints, numbered', JSON.stringify({ type: 'breakpoints', breakpoints: BP, version: 3 }), { type: 'breakpoints', breakpoints: BP, version: 3 }],
  ['breakpoints from a server older than the ack: no version', JSON.stringify({ type: 'breakpoints', breakpoints: BP }), { type: 'breakpoints', breakpoints: BP, version: undefined }],
  ['a version that is not a positive integer is none', JSON.stringify({ type: 'breakpoints', breakpoints: BP, version: 'x' }), { type: 'breakpoints', breakpoints: BP, version: undefined }],
  ['a fractional version is none', JSON.stringify({ type: 'breakpoints', breakpoints: BP, version: 1.5 }), { type: 'breakpoints', breakpoints: BP, version: undefined }],
  ['breakpoints without pauseOnError: ignored', JSON.stringify({ type: 'breakpoints', breakpoints: { nodes: {} } }), undefined],
  ['breakpoints with nodes an array: ignored', JSON.stringify({ type: 'breakpoints', breakpoints: { pauseOnError: true, nodes: [] } }), undefined],
  ['breakpoints null: ignored', JSON.stringify({ type: 'breakpoints', breakpoints: null }), undefined],
  ['a decision', JSON.stringify({ type: 'decision', holdId: 'h1', action: 'inject', value: 7 }), { type: 'decision', decision: { holdId: 'h1', action: 'inject', value: 7 } }],
  ['a decision without a value', JSON.stringify({ type: 'decision', holdId: 'h1', action: 'continue' }), { type: 'decision', decision: { holdId: 'h1', action: 'continue', value: undefined } }],
  ['a decision without a hold: ignored', JSON.stringify({ type: 'decision', action: 'continue' }), undefined],
  ['a decision with a numeric action: ignored', JSON.stringify({ type: 'decision', holdId: 'h1', action: 1 }), undefined],
  ['rejected, with its reason', JSON.stringify({ type: 'rejected', runId: 'r1', reason: 'the run was deleted' }), { type: 'rejected', runId: 'r1', reason: 'the run was deleted' }],
  ['rejected, a reason of the wrong type is none', JSON.stringify({ type: 'rejected', runId: 'r1', reason: 5 }), { type: 'rejected', runId: 'r1', reason: '' }],
  ['rejected without a run: ignored', JSON.stringify({ type: 'rejected' }), undefined],
  ['restart', JSON.stringify({ type: 'restart', runId: 'r1' }), { type: 'restart', runId: 'r1' }],
  ['restart without a run: ignored', JSON.stringify({ type: 'restart', runId: 1 }), undefined],
  ['an unknown type: ignored', JSON.stringify({ type: 'surprise' }), undefined],
  ['not JSON: ignored', '{nope', undefined],
  ['null: ignored', 'null', undefined],
  ['an array: ignored', '[{"type":"restart","runId":"r1"}]', undefined],
  ['a number: ignored', '42', undefined],
];

for (const [name, text, expected] of messages) {
  t.test(`server message: ${name}`, async (t) => {
    t.same(readServerMessage(text), expected);
  });
}

const urls: Array<[string, unknown]> = [
  ['ws://127.0.0.1:4747/ingest', { host: '127.0.0.1', port: 4747, path: '/ingest' }],
  ['http://127.0.0.1:4747', { host: '127.0.0.1', port: 4747, path: '/ingest' }],
  ['ws://[::1]:5000/', { host: '::1', port: 5000, path: '/ingest' }],
  ['ws://localhost/custom', { host: 'localhost', port: 80, path: '/custom' }],
  ['wss://127.0.0.1:4747/ingest', undefined],
  ['not a url', undefined],
];

for (const [url, expected] of urls) {
  t.test(`ingest URL: ${url}`, async (t) => {
    t.same(parseIngestUrl(url), expected);
  });
}
