/**
 * The single-pass classifier against the two-pass one it replaced (kept in
 * helpers/classify-reference.ts): for every line, valid or not, both must
 * classify alike.
 */
import t, { type Test } from 'tap';
import { classify } from '../src/streams/classifier.js';
import { Correlator } from '../src/streams/correlator.js';
import { newFrame, type Direction, type Frame } from '../src/streams/frame.js';
import { ReferenceCorrelator, referenceClassify } from './helpers/classify-reference.js';
import { prng, randomLine } from './helpers/random.js';

const DIRECTIONS: Direction[] = ['client-to-server', 'server-to-client'];

function summary(frame: Frame): unknown {
  return {
    type: frame.type,
    method: frame.method,
    id: frame.id,
    node: frame.node,
    isError: frame.isError,
    request: frame.request?.seq,
  };
}

/** Classify `bytes` both ways, the new way through the `bytes` parameter (with a decoy `raw`) when `decoy`. */
function compare(
  t: Test,
  bytes: Buffer,
  direction: Direction,
  seq: number,
  mine: Correlator,
  theirs: ReferenceCorrelator,
  decoy: boolean,
): Frame | undefined {
  const raw = decoy ? Buffer.from('[{"jsonrpc":"2.0","id":1,"method":"decoy"}]\n') : bytes;
  const frame = classify(newFrame(raw, direction, seq, true), mine, decoy ? bytes : undefined);
  const got = summary(frame);
  const want = summary(referenceClassify(newFrame(bytes, direction, seq, true), theirs));
  if (JSON.stringify(got) === JSON.stringify(want)) return frame;
  t.same(got, want, `${direction} ${JSON.stringify(bytes.toString('latin1'))}`);
  return undefined;
}

const PIECES = [
  '"a"', '"echo"', '"ech\\u006f"', '"é"', '""', '1', '-2', '1.5', '1e3', 'true', 'false', 'null', '[]', '{}', '[1,{"a":[]}]',
  '{"isError":true}', '{"name":"inner"}', '"tab\\there"', '"q\\"}"', '"\\\\"',
];
const KEYS = ['name', 'uri', 'isError', 'n\\u0061me', 'isErr\\u006fr', 'content', 'arguments', 'x', 'name ', 'uri\\"'];
const LOOKALIKE_KEYS = ['i', 'idx', 'ids', 'json', 'jsonrpc2', 'metho', 'methods', 'param', 'paramsX', 'resul', 'results', 'err', 'errors', '\\u0069d', 'id\\"', 'e', 'p', 'r', 'm', 'j'];
const METHODS = ['tools/call', 'resources/read', 'prompts/get', 'tools\\/call', 'ping', 'sampling/createMessage', 'elicitation/create', 'completion/complete', 'x'];

function object(rand: () => number, depth: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const n = Math.floor(rand() * 4);
  const members: string[] = [];
  for (let i = 0; i < n; i++) {
    const value = depth > 0 && rand() < 0.3 ? object(rand, depth - 1) : pick(PIECES);
    const sp = rand() < 0.2 ? ' ' : '';
    members.push(`"${pick(KEYS)}"${sp}:${sp}${value}`);
  }
  return `{${members.join(',')}}`;
}

/** A structured line: the members that matter, in any order, sometimes twice, with odd values. */
function structuredLine(rand: () => number, id: number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const members: string[] = [];
  if (rand() < 0.95) members.push('"jsonrpc":"2.0"');
  if (rand() < 0.85) members.push(`"id":${pick([String(id % 50), `"${id % 50}"`, 'null', `${id % 50}.0`])}`);
  const response = rand() < 0.45;
  if (response) {
    const isError = pick(['true', 'false', '"true"', 'true ', 'null']);
    const result = pick([
      `{"content":[{"type":"text","text":"hi"}],"isError":${isError}}`,
      `{"isError":${isError},"content":[]}`,
      `{"content":{"isError":true}}`,
      `{"structured":{"isError":true},"isError":${isError}}`,
      `{"isErr\\u006fr":true}`,
      `{"a":tru,"isError":true}`,
      `{"isError":true,"a":tru}`,
      `{"a":1 "isError":true}`,
      `{"isError":true "a":1}`,
      `{ "isError" : true }`,
      '[{"isError":true}]',
      '"isError"',
      object(rand, 2),
    ]);
    members.push(rand() < 0.1 ? `"error":{"code":-1,"message":"x"}` : `"result":${result}`);
    if (rand() < 0.1) members.push(`"result":${object(rand, 1)}`);
  } else {
    if (rand() < 0.9) members.push(`"method":"${pick(METHODS)}"`);
    const params = pick([
      `{"name":${pick(PIECES)},"arguments":{"text":"hi"}}`,
      `{"arguments":{"name":"deep"},"name":${pick(PIECES)}}`,
      `{"uri":${pick(PIECES)}}`,
      `{"n\\u0061me":"escaped"}`,
      `{"x":tru,"name":"after-bad-literal"}`,
      `{"name":"before-bad-literal","x":tru}`,
      `{"x":1 "name":"after-missing-comma"}`,
      `{"x":1,}`,
      `{"name":"a","name":"b"}`,
      `{ "uri" : "file:///a b" , "name" : "both" }`,
      '["name","x"]',
      '"name"',
      'null',
      object(rand, 2),
    ]);
    if (rand() < 0.9) members.push(`"params":${params}`);
    if (rand() < 0.1) members.push(`"params":${object(rand, 1)}`);
  }
  // Keys that start like the envelope's own, or spell one with an escape: other keys.
  if (rand() < 0.3) members.push(`"${pick(LOOKALIKE_KEYS)}":${pick(PIECES)}`);
  for (let i = members.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [members[i], members[j]] = [members[j] as string, members[i] as string];
  }
  const sp = rand() < 0.2 ? ' ' : '';
  return `${sp}{${sp}${members.join(`,${sp}`)}${sp}}${sp}\n`;
}

const BREAKERS = ['{', '}', '[', ']', '"', ',', ':', '\\', ' ', 'x', '1', 't'];

/** A few random byte edits: what a broken writer or a torn line looks like. */
function mutate(rand: () => number, line: Buffer): Buffer {
  let bytes = [...line];
  const edits = 1 + Math.floor(rand() * 3);
  for (let e = 0; e < edits; e++) {
    const at = Math.floor(rand() * bytes.length);
    const roll = rand();
    if (roll < 0.35) bytes.splice(at, 1);
    else if (roll < 0.7) bytes.splice(at, 0, (BREAKERS[Math.floor(rand() * BREAKERS.length)] as string).charCodeAt(0));
    else if (roll < 0.85) bytes.splice(at, 0, bytes[at] ?? 0x20);
    else bytes = bytes.slice(0, at);
  }
  return Buffer.from(bytes);
}

t.test('classifies every line as the two-pass classifier did', async (t) => {
  const seed = Number(process.env.GRAPHMIND_SEED ?? Date.now() % 1_000_000);
  t.comment(`seed ${seed} (set GRAPHMIND_SEED to replay)`);
  const rand = prng(seed);
  const mine = new Correlator();
  const theirs = new ReferenceCorrelator();
  let seq = 0;
  let failures = 0;
  const kinds = { request: 0, response: 0, noise: 0, isError: 0, named: 0 };
  for (let i = 0; i < 20_000 && failures < 10; i++) {
    const roll = rand();
    let line = roll < 0.6 ? Buffer.from(structuredLine(rand, i)) : randomLine(rand, i % 50);
    if (rand() < 0.3) line = mutate(rand, line);
    const direction = DIRECTIONS[rand() < 0.6 ? 0 : 1] as Direction;
    const f = compare(t, line, direction, ++seq, mine, theirs, rand() < 0.3);
    if (f === undefined) {
      failures++;
      continue;
    }
    if (f.type !== undefined && f.type in kinds) kinds[f.type as 'request']++;
    if (f.isError) kinds.isError++;
    if (f.node?.kind === 'tool' || f.node?.kind === 'resource' || f.node?.kind === 'prompt') kinds.named++;
  }
  t.equal(failures, 0, 'no line classified differently');
  t.comment(JSON.stringify(kinds));
  t.ok(kinds.request > 1000 && kinds.response > 1000 && kinds.noise > 1000 && kinds.named > 500, 'the generator covers the paths');
});

t.test('answers to tools/call, isError anywhere', async (t) => {
  const rand = prng(11);
  const mine = new Correlator();
  const theirs = new ReferenceCorrelator();
  let seq = 0;
  let failures = 0;
  let flagged = 0;
  for (let i = 0; i < 5000 && failures < 10; i++) {
    const id = i % 50;
    const request = Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t${i % 3}"}}\n`);
    if (compare(t, request, 'client-to-server', ++seq, mine, theirs, false) === undefined) failures++;
    // A response-shaped structured line, answering that id most of the time.
    let answer: Buffer;
    do answer = Buffer.from(structuredLine(rand, id));
    while (!answer.includes('"result"') && !answer.includes('"error"'));
    if (rand() < 0.3) answer = mutate(rand, answer);
    const f = compare(t, answer, 'server-to-client', ++seq, mine, theirs, rand() < 0.5);
    if (f === undefined) failures++;
    else if (f.isError) flagged++;
  }
  t.equal(failures, 0, 'no line classified differently');
  t.ok(flagged > 200, `some results flagged isError (${flagged})`);
});

t.test('nesting of any depth, in params and result (no limit: JSON.parse has none that matters)', async (t) => {
  const mine = new Correlator();
  const theirs = new ReferenceCorrelator();
  let seq = 0;
  for (const depth of [254, 255, 256, 257, 1_000, 100_000]) {
    for (const member of ['params', 'result']) {
      for (const shape of ['array', 'object']) {
        const inner = shape === 'array' ? '['.repeat(depth - 1) + ']'.repeat(depth - 1) : '{"a":'.repeat(depth - 1) + '1' + '}'.repeat(depth - 1);
        const value = `{"name":"x","isError":true,"deep":${inner}}`;
        const head = member === 'params' ? '"method":"tools/call",' : '';
        const line = Buffer.from(`{"jsonrpc":"2.0","id":1,${head}"${member}":${value}}\n`);
        const f = compare(t, line, 'client-to-server', ++seq, mine, theirs, false);
        t.equal(f?.type, member === 'params' ? 'request' : 'response', `${member} ${shape} ${depth}`);
        t.ok(compare(t, line, 'server-to-client', ++seq, mine, theirs, false), `${member} ${shape} ${depth}`);
      }
    }
  }
});
