import t from 'tap';
import { LoopDetector } from '../src/gates/loop-detector.js';

t.test('three identical calls in a row hold, once per streak', async (t) => {
  const loop = new LoopDetector();
  t.same([1, 2, 3].map(() => loop.observe('search', { q: 'x', _meta: { progressToken: Math.random() } })), [false, false, true]);
  t.same([1, 2].map(() => loop.observe('search', { q: 'x' })), [false, false], 'a decision starts a new streak');
  t.equal(loop.observe('search', { q: 'x' }), true);
  t.equal(loop.observe('search', { q: 'y' }), false, 'other arguments start over');
});

t.test('key order does not matter, _meta does not count', async (t) => {
  const loop = new LoopDetector({ threshold: 2 });
  loop.observe('t', { a: 1, b: [1, { c: 2, d: 3 }] });
  t.equal(loop.observe('t', { b: [1, { d: 3, c: 2 }], a: 1, _meta: { progressToken: 7 } }), true);
});

t.test('an allowed tool is never held and breaks the streak of others', async (t) => {
  const loop = new LoopDetector({ allow: ['poll'] });
  t.ok(loop.allows('poll'));
  t.notOk(loop.allows('search'));
  t.same(
    Array.from({ length: 10 }, () => loop.observe('poll', { since: 1 })),
    Array.from({ length: 10 }, () => false),
    'polled ten times: never held',
  );
  loop.observe('search', { q: 'x' });
  loop.observe('search', { q: 'x' });
  t.equal(loop.observe('poll', undefined), false, 'its arguments are not needed');
  t.equal(loop.observe('search', { q: 'x' }), false, 'the poll in between broke the streak');
  loop.observe('search', { q: 'x' });
  t.equal(loop.observe('search', { q: 'x' }), true, 'three in a row again: held');
});
