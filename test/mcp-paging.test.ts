// Playbook of paging (src/mcp/paging.ts): a list, a request, and the page or the refusal.
import t from 'tap';
import { decodeCursor, encodeCursor, pageOf, queryKey } from '../src/mcp/paging.js';
import { ToolError } from '../src/mcp/tool-error.js';

const ids = (n: number, prefix = 'r'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
const Q = queryKey('list_runs', { status: 'ok' });
const idOf = (row: string): string => row;

t.test('queryKey: the tool and its filters, in any order, undefined ones ignored', async (t) => {
  t.equal(queryKey('t', { a: 1, b: 'x' }), queryKey('t', { b: 'x', a: 1 }));
  t.equal(queryKey('t', { a: 1, b: undefined }), queryKey('t', { a: 1 }));
  t.not(queryKey('t', { a: 1 }), queryKey('t', { a: 2 }));
  t.not(queryKey('t', { a: 1 }), queryKey('u', { a: 1 }));
  t.match(queryKey('t', {}), /^[A-Za-z0-9_-]{12}$/);
});

t.test('pages follow each other', async (t) => {
  const rows = ids(45);
  const steps: Array<{ rows: string[]; offset: number; next: boolean }> = [
    { rows: ids(20), offset: 0, next: true },
    { rows: ids(40).slice(20), offset: 20, next: true },
    { rows: ['r41', 'r42', 'r43', 'r44', 'r45'], offset: 40, next: false },
  ];
  let cursor: string | undefined;
  for (const step of steps) {
    const page = pageOf(rows, { limit: 20, cursor, query: Q, idOf });
    t.same({ rows: page.rows, offset: page.offset, total: page.total, next: page.nextCursor !== null }, { rows: step.rows, offset: step.offset, total: 45, next: step.next });
    cursor = page.nextCursor ?? undefined;
  }
});

t.test('an anchor keeps a list that grew at its head from repeating rows', async (t) => {
  const first = pageOf(ids(10), { limit: 3, query: Q, idOf });
  t.same(first.rows, ['r1', 'r2', 'r3']);
  // Two new rows arrive at the head (newest first): the next page still starts after r3.
  const grown = ['n2', 'n1', ...ids(10)];
  t.same(pageOf(grown, { limit: 3, cursor: first.nextCursor as string, query: Q, idOf }).rows, ['r4', 'r5', 'r6']);
  // The anchor row is gone: the offset is used.
  const shrunk = ids(10).filter((id) => id !== 'r3');
  t.same(pageOf(shrunk, { limit: 3, cursor: first.nextCursor as string, query: Q, idOf }).rows, ['r5', 'r6', 'r7']);
  // Without ids, the offset alone: r2 and r3 come again, which is what the anchor prevents.
  t.same(pageOf(grown, { limit: 3, cursor: first.nextCursor as string, query: Q }).rows, ['r2', 'r3', 'r4']);
});

t.test('a budget cuts a page short; the next page starts where it stopped', async (t) => {
  const rows = ['aaaa', 'bbbb', 'cccc', 'dddd'];
  const budget = { chars: 10, sizeOf: (row: string) => row.length };
  const page = pageOf(rows, { limit: 4, query: Q, idOf, budget });
  t.same(page.rows, ['aaaa', 'bbbb']);
  const next = pageOf(rows, { limit: 4, cursor: page.nextCursor as string, query: Q, idOf, budget });
  t.same(next.rows, ['cccc', 'dddd']);
  t.equal(next.nextCursor, null);
  // A row larger than the budget still goes, alone.
  t.same(pageOf(['x'.repeat(50), 'y'], { limit: 4, query: Q, budget }).rows, ['x'.repeat(50)]);
});

t.test('refusals', async (t) => {
  const rows = ids(5);
  const cases: ReadonlyArray<{ cursor: string; code: string; message: RegExp }> = [
    { cursor: 'not a cursor!', code: 'bad-cursor', message: /^bad cursor/ },
    { cursor: '', code: 'bad-cursor', message: /^bad cursor/ },
    { cursor: 'x'.repeat(1_001), code: 'bad-cursor', message: /^bad cursor/ },
    { cursor: Buffer.from('[1,2]').toString('base64url'), code: 'bad-cursor', message: /^bad cursor/ },
    { cursor: Buffer.from('{"q":"a","o":-1}').toString('base64url'), code: 'bad-cursor', message: /^bad cursor/ },
    { cursor: Buffer.from('{"q":"a","o":1.5}').toString('base64url'), code: 'bad-cursor', message: /^bad cursor/ },
    { cursor: Buffer.from('{"q":"a","o":1,"a":3}').toString('base64url'), code: 'bad-cursor', message: /^bad cursor/ },
    { cursor: encodeCursor({ q: queryKey('list_runs', {}), o: 1 }), code: 'bad-cursor', message: /belongs to a query with other arguments/ },
    { cursor: encodeCursor({ q: Q, o: 5 }), code: 'page-past-end', message: /^page past the end: the list has 5 row\(s\) now/ },
    { cursor: encodeCursor({ q: Q, o: 500, a: 'r5' }), code: 'page-past-end', message: /^page past the end/ },
  ];
  for (const c of cases) {
    t.throws(() => pageOf(rows, { limit: 2, cursor: c.cursor, query: Q, idOf }), { code: c.code, message: c.message }, c.cursor.slice(0, 40));
  }
  t.throws(() => pageOf([], { limit: 2, cursor: encodeCursor({ q: Q, o: 0 }), query: Q }), ToolError, 'an empty list has no second page');
});

t.test('a cursor round-trips', async (t) => {
  for (const state of [{ q: 'abc', o: 0 }, { q: 'abc', o: 12, a: 'run_1' }]) t.same(decodeCursor(encodeCursor(state)), state);
});
