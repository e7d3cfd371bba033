// Playbook of value capping (src/mcp/cap.ts): inputs and the exact outputs.
import t from 'tap';
import { capText, capValue, jsonText, preview, truncationMarker } from '../src/mcp/cap.js';

t.test('capText', async (t) => {
  const cases: ReadonlyArray<{ text: string; max: number; out: string; more: number }> = [
    { text: '', max: 0, out: '', more: 0 },
    { text: 'abc', max: 3, out: 'abc', more: 0 },
    { text: 'abcd', max: 3, out: 'abc… [truncated, 1 more characters]', more: 1 },
    { text: 'x'.repeat(10_050), max: 10_000, out: `${'x'.repeat(10_000)}… [truncated, 50 more characters]`, more: 50 },
    { text: 'abc', max: 0, out: '… [truncated, 3 more characters]', more: 3 },
    // A surrogate pair is never split: its high half goes with the rest.
    { text: 'ab😀cd', max: 3, out: 'ab… [truncated, 4 more characters]', more: 4 },
    { text: 'ab😀cd', max: 4, out: 'ab😀… [truncated, 2 more characters]', more: 2 },
  ];
  for (const c of cases) t.same(capText(c.text, c.max), { text: c.out, more: c.more }, JSON.stringify([c.text.slice(0, 12), c.max]));
  t.equal(truncationMarker(7), '… [truncated, 7 more characters]');
});

t.test('capValue', async (t) => {
  const cases: ReadonlyArray<{ value: unknown; max: number; out: unknown; more: number }> = [
    { value: { a: 1 }, max: 7, out: { a: 1 }, more: 0 },
    { value: { a: 1 }, max: 6, out: '{"a":1… [truncated, 1 more characters]', more: 1 },
    { value: [1, 2, 3], max: 100, out: [1, 2, 3], more: 0 },
    // A string is measured and cut as itself, not as its quoted JSON.
    { value: 'hello', max: 5, out: 'hello', more: 0 },
    { value: 'hello world', max: 5, out: 'hello… [truncated, 6 more characters]', more: 6 },
    { value: 'a\nb', max: 10, out: 'a\nb', more: 0 },
    { value: null, max: 4, out: null, more: 0 },
    { value: 12345, max: 3, out: '123… [truncated, 2 more characters]', more: 2 },
  ];
  for (const c of cases) t.same(capValue(c.value, c.max), { value: c.out, more: c.more }, JSON.stringify([c.value, c.max]));
});

t.test('preview: one line, compact JSON, capped', async (t) => {
  const cases: ReadonlyArray<{ value: unknown; max: number; out: string }> = [
    { value: 'line one\n  line two\ttab', max: 100, out: 'line one line two tab' },
    { value: { text: 'a\nb' }, max: 100, out: '{"text":"a\\nb"}' },
    { value: { key: 'value' }, max: 5, out: '{"key… [truncated, 10 more characters]' },
    { value: [], max: 5, out: '[]' },
  ];
  for (const c of cases) t.equal(preview(c.value, c.max), c.out, JSON.stringify(c.value));
});

t.test('jsonText is total', async (t) => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  t.equal(jsonText({ a: [1] }), '{"a":[1]}');
  t.equal(jsonText(undefined), 'undefined');
  t.equal(jsonText(10n), '10');
  t.equal(jsonText(cycle), '[object Object]');
});
