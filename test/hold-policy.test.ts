// The hold policy as a playbook: breakpoints and a call in, where it holds
// (and why) out. Every integration asks this one function.
import t from 'tap';
import { holdPlan, type HoldQuery } from '../src/gates/hold-policy.js';
import type { Breakpoints } from '../src/protocol/control.js';

const none: Breakpoints = { pauseOnError: false, nodes: {} };
const errorsOnly: Breakpoints = { pauseOnError: true, nodes: {} };
const both: Breakpoints = { pauseOnError: true, nodes: { 'tool:echo': { before: true, after: true } } };
const afterOnly: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { after: true } } };
const beforeOff: Breakpoints = { pauseOnError: true, nodes: { 'tool:echo': { before: false } } };

const playbook: Array<[string, Breakpoints, HoldQuery, string | undefined]> = [
  ['nothing armed: a call goes on', none, { point: 'before', nodeId: 'tool:echo' }, undefined],
  ['nothing armed: a failed answer goes on', none, { point: 'after', nodeId: 'tool:echo', failed: true }, undefined],
  ['pause-on-error: a good answer goes on', errorsOnly, { point: 'after', nodeId: 'tool:echo', failed: false }, undefined],
  ['pause-on-error: a failed answer holds at the error gate', errorsOnly, { point: 'after', nodeId: 'tool:echo', failed: true }, 'error/error'],
  ['pause-on-error: a request goes on', errorsOnly, { point: 'before', nodeId: 'tool:echo' }, undefined],
  ['a before breakpoint holds the request', both, { point: 'before', nodeId: 'tool:echo' }, 'before/breakpoint'],
  ['a before breakpoint on another node does not', both, { point: 'before', nodeId: 'tool:other' }, undefined],
  ['an after breakpoint holds a good answer', both, { point: 'after', nodeId: 'tool:echo' }, 'after/breakpoint'],
  ['an after breakpoint wins over the error gate', both, { point: 'after', nodeId: 'tool:echo', failed: true }, 'after/breakpoint'],
  ['an after breakpoint without pause-on-error', afterOnly, { point: 'after', nodeId: 'tool:echo', failed: true }, 'after/breakpoint'],
  ['before: false is no breakpoint', beforeOff, { point: 'before', nodeId: 'tool:echo' }, undefined],
  ['a loop holds before, even with nothing armed', none, { point: 'before', nodeId: 'tool:echo', loop: true }, 'before/loop'],
  ['a breakpoint and a loop: the breakpoint is the reason', both, { point: 'before', nodeId: 'tool:echo', loop: true }, 'before/breakpoint'],
  ['loop means nothing after the call', none, { point: 'after', nodeId: 'tool:echo', loop: true }, undefined],
];

// The scope rule: a breakpoint with `server` holds only calls to that server
// (its serverInfo.name, once known); one without holds on every server;
// pause-on-error is for every server.
const onA: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { before: true, after: true, server: 'A' } } };
const onEvery: Breakpoints = { pauseOnError: false, nodes: { 'tool:echo': { before: true, after: true } } };
const onAWithErrors: Breakpoints = { pauseOnError: true, nodes: { 'tool:echo': { after: true, server: 'A' } } };
const scopePlaybook: Array<[string, Breakpoints, HoldQuery, string | undefined]> = [
  ['scoped to A, server A: holds before', onA, { point: 'before', nodeId: 'tool:echo', server: 'A' }, 'before/breakpoint'],
  ['scoped to A, server A: holds after', onA, { point: 'after', nodeId: 'tool:echo', server: 'A' }, 'after/breakpoint'],
  ['scoped to A, server B: goes on before', onA, { point: 'before', nodeId: 'tool:echo', server: 'B' }, undefined],
  ['scoped to A, server B: goes on after', onA, { point: 'after', nodeId: 'tool:echo', server: 'B' }, undefined],
  ['scoped to A, server not known yet: goes on', onA, { point: 'before', nodeId: 'tool:echo' }, undefined],
  ['scoped to A, server "a" (names are exact): goes on', onA, { point: 'before', nodeId: 'tool:echo', server: 'a' }, undefined],
  ['every server, server A: holds', onEvery, { point: 'before', nodeId: 'tool:echo', server: 'A' }, 'before/breakpoint'],
  ['every server, server B: holds', onEvery, { point: 'after', nodeId: 'tool:echo', server: 'B' }, 'after/breakpoint'],
  ['every server, server not known yet: holds', onEvery, { point: 'before', nodeId: 'tool:echo' }, 'before/breakpoint'],
  ['scoped to A, server B, a loop: still the loop hold', onA, { point: 'before', nodeId: 'tool:echo', server: 'B', loop: true }, 'before/loop'],
  ['scoped to A, server B, a failed answer: the error gate (every server)', onAWithErrors, { point: 'after', nodeId: 'tool:echo', server: 'B', failed: true }, 'error/error'],
  ['scoped to A, server A, a failed answer: the breakpoint wins', onAWithErrors, { point: 'after', nodeId: 'tool:echo', server: 'A', failed: true }, 'after/breakpoint'],
];
playbook.push(...scopePlaybook);

for (const [name, breakpoints, query, expected] of playbook) {
  t.test(name, async (t) => {
    const plan = holdPlan(breakpoints, query);
    t.equal(plan === undefined ? undefined : `${plan.point}/${plan.reason}`, expected);
  });
}
