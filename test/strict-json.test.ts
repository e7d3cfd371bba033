// isStrictJson must say yes exactly when JSON.parse would: the reporter copies
// frame bytes that pass it verbatim into the JSON it sends, so a false yes
// breaks a whole batch, and a false no only costs a parse.
import { isUtf8 } from 'node:buffer';
import t from 'tap';
import { MESSAGE_MAX_DEPTH, RECORD_MAX_DEPTH } from '../src/json/depth.js';
import { isStrictJson, NESTED_TOO_DEEP, NOT_JSON, STRICT, strictJson } from '../src/json/strict-json.js';
import { prng } from './helpers/random.js';

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const ATOMS = [
  '"a"', '""', '"é"', '"\\u00e9"', '"\\ud83d\\ude00"', '"\\ud800"', '"😀"', '"\\"\\\\\\/\\b\\f\\n\\r\\t"',
  '0', '-0', '1.5', '-12.25e+3', '1E-7', '12345678901234567890', '1e400', 'true', 'false', 'null', '[]', '{}',
];
// Bytes that mutations insert: JSON's own punctuation, and what it forbids.
const NOISE = ['{', '}', '[', ']', ',', ':', '"', '\\', 'u', 'x', '0', '-', '+', '.', 'e', ' ', '\t', '\n', '\u0001', 'tru', 'nul', '01', '\\u12'];

function randomValue(rand: () => number, depth: number): string {
  const roll = rand();
  if (depth > 3 || roll < 0.4) return ATOMS[Math.floor(rand() * ATOMS.length)] as string;
  const n = Math.floor(rand() * 4);
  const space = (): string => (rand() < 0.2 ? ' \n\t\r'[Math.floor(rand() * 4)] as string : '');
  if (roll < 0.7) return `[${space()}${Array.from({ length: n }, () => randomValue(rand, depth + 1)).join(`${space()},${space()}`)}${space()}]`;
  const members = Array.from({ length: n }, (_, i) => `"k${i}"${space()}:${space()}${randomValue(rand, depth + 1)}`);
  return `{${space()}${members.join(`,${space()}`)}${space()}}`;
}

function mutate(text: string, rand: () => number): string {
  let out = text;
  const edits = 1 + Math.floor(rand() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * (out.length + 1));
    const roll = rand();
    if (roll < 0.4) out = out.slice(0, at) + out.slice(at + 1);
    else if (roll < 0.8) out = out.slice(0, at) + (NOISE[Math.floor(rand() * NOISE.length)] as string) + out.slice(at);
    else out = out.slice(0, at) + out.slice(at, at + 3) + out.slice(at);
  }
  return out;
}

t.test('agrees with JSON.parse on valid and mutated values', async (t) => {
  const rand = prng(20261130);
  let checked = 0;
  let valid = 0;
  for (let i = 0; i < 20_000; i++) {
    const value = randomValue(rand, 0);
    const text = rand() < 0.7 ? mutate(value, rand) : value;
    const bytes = Buffer.from(text, 'utf8');
    if (!isUtf8(bytes)) continue;
    const expected = parses(text);
    if (isStrictJson(bytes, 0, bytes.length) !== expected) {
      t.fail(`disagrees with JSON.parse (${expected}) on ${JSON.stringify(text)}`);
      return;
    }
    checked++;
    if (expected) valid++;
  }
  t.ok(checked > 19_000, `${checked} texts checked`);
  t.ok(valid > 5_000 && valid < checked - 5_000, `both answers are exercised (${valid} valid)`);
});

t.test('reads only its range, whatever surrounds it', async (t) => {
  const rand = prng(7);
  for (let i = 0; i < 2_000; i++) {
    const text = rand() < 0.5 ? randomValue(rand, 0) : mutate(randomValue(rand, 0), rand);
    const inner = Buffer.from(text, 'utf8');
    if (!isUtf8(inner)) continue;
    // Bytes around the range that would complete a truncated value if read.
    const buf = Buffer.concat([Buffer.from('["x":{'), inner, Buffer.from('"}]}:1,2]')]);
    if (isStrictJson(buf, 6, 6 + inner.length) !== parses(text)) {
      t.fail(`range check differs from JSON.parse on ${JSON.stringify(text)}`);
      return;
    }
  }
  t.notOk(isStrictJson(Buffer.from('{"a":1}'), 0, 6), 'a value cut short is refused even though its end follows');
  t.notOk(isStrictJson(Buffer.from('"abc"'), 0, 4), 'a string cut short is refused');
  t.notOk(isStrictJson(Buffer.from('[1,2]'), 0, 4), 'an array cut short is refused');
  t.ok(isStrictJson(Buffer.from('x {"a":[1,true,null]} y'), 1, 22), 'surrounding space inside the range is fine');
});

t.test('depth and the rest of the grammar', async (t) => {
  const deep = (n: number): Buffer => Buffer.from(`${'['.repeat(n)}${']'.repeat(n)}`);
  const most = MESSAGE_MAX_DEPTH;
  t.ok(isStrictJson(deep(most), 0, 2 * most), `${most} levels are accepted (what the debugger can serialise again)`);
  t.notOk(isStrictJson(deep(most + 1), 0, 2 * most + 2), 'deeper is refused (the caller parses instead)');
  // The three answers of strictJson, at the bound a recorded value has.
  const cases: Array<[string, number, number]> = [
    [`${'['.repeat(RECORD_MAX_DEPTH)}${']'.repeat(RECORD_MAX_DEPTH)}`, RECORD_MAX_DEPTH, STRICT],
    [`${'['.repeat(RECORD_MAX_DEPTH + 1)}${']'.repeat(RECORD_MAX_DEPTH + 1)}`, RECORD_MAX_DEPTH, NESTED_TOO_DEEP],
    [`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, RECORD_MAX_DEPTH, NESTED_TOO_DEEP],
    [' {"a":[1,{"b":null}]} ', 3, STRICT],
    ['{"a":[1,{"b":null}]}', 2, NESTED_TOO_DEEP],
    ['{"a":[1,{"b":nul}]}', 3, NOT_JSON],
    ['{"a":[1,{"b":null}]', 3, NOT_JSON],
    ['"only a string"', 0, STRICT],
    ['[]', 0, NESTED_TOO_DEEP],
  ];
  for (const [text, maxDepth, expected] of cases) {
    t.equal(strictJson(Buffer.from(text), 0, text.length, maxDepth), expected, `${text.length > 40 ? `${text.slice(0, 40)}…` : text} within ${maxDepth}`);
  }
  for (const bad of ['', ' ', '01', '1.', '.5', '-', '1e', '+1', '"\t"', '"\\x"', '"\\u12g4"', '{"a"}', '{"a":}', '[1,]', '{,}', 'True', 'nul', '{"a":1,}', '1 2', 'NaN']) {
    t.notOk(isStrictJson(Buffer.from(bad), 0, Buffer.byteLength(bad)), `refuses ${JSON.stringify(bad)}`);
    t.notOk(parses(bad), `JSON.parse refuses ${JSON.stringify(bad)} too`);
  }
});
