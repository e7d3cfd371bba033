// graphmind check's pure rules as playbooks: which lines of the wire are stdout noise, invalid
// frames or answers to unknown ids (wire-rules.ts, over frames the relay's own classifier
// classified); --fail-on; tool schemas and structuredContent with ajv (schemas.ts); scripts
// (script.ts, JSON and YAML); resource templates; and docs/ci.md listing every finding code.
import t from 'tap';
import { readFileSync } from 'node:fs';
import { failing, parseFailOn } from '../src/check/fail-on.js';
import { FINDING_CODES, FINDINGS, finding } from '../src/check/findings.js';
import { MessageFrames } from '../src/check/relay-target.js';
import { compileToolSchema, outputMismatch } from '../src/check/schemas.js';
import { parseScript } from '../src/check/script.js';
import { matchesTemplate } from '../src/check/steps.js';
import { wireFinding } from '../src/check/wire-rules.js';

/** The finding code the server's line makes, after the check sent `sent` (each a request with its id). */
function codeOf(line: string, sent: readonly number[] = [1]): string | undefined {
  const frames = new MessageFrames();
  for (const id of sent) frames.frameOf(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }), 'client-to-server');
  return wireFinding(frames.frameOf(line, 'server-to-client'))?.code;
}

t.test('the wire: each line from the server, classified as the proxy classifies it', async (t) => {
  const rows: Array<[string, string | undefined]> = [
    ['{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}', undefined],
    ['{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}', undefined],
    ['{"jsonrpc":"2.0","method":"notifications/message","params":{}}', undefined],
    ['{"jsonrpc":"2.0","id":"s1","method":"ping"}', undefined],
    ['Server listening on stdio', 'stdout-noise'],
    ['{"level":"info","msg":"started"}', 'stdout-noise'],
    ['[1,2,3]', 'stdout-noise'],
    ['{"jsonrpc":"1.0","id":1,"result":{}}', 'invalid-frame'],
    ['{"jsonrpc":"2.0","id":1,"result":', 'invalid-frame'],
    ['{"jsonrpc":"2.0","result":{}}', 'invalid-frame'],
    ['{"id":1,"result":{}}', 'invalid-frame'],
    ['{"jsonrpc":"2.0","id":1,"result":"done"}', 'invalid-frame'],
    ['{"jsonrpc":"2.0","id":1,"result":null}', 'invalid-frame'],
    ['{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}', 'invalid-frame'],
    ['{"jsonrpc":"2.0","id":1,"error":"boom"}', 'invalid-frame'],
    ['[{"jsonrpc":"2.0","id":1,"result":{}}]', 'invalid-frame'],
    ['{"jsonrpc":"2.0","id":7,"result":{}}', 'unknown-id'],
  ];
  for (const [line, code] of rows) t.equal(codeOf(line), code, line);
  t.equal(codeOf('{"jsonrpc":"2.0","id":1,"result":{}}', []), 'unknown-id', 'an answer to nothing sent');
  const frames = new MessageFrames();
  frames.frameOf('{"jsonrpc":"2.0","id":1,"method":"ping"}', 'client-to-server');
  t.equal(wireFinding(frames.frameOf('{"jsonrpc":"2.0","id":1,"result":{}}', 'server-to-client')), undefined);
  t.equal(wireFinding(frames.frameOf('{"jsonrpc":"2.0","id":1,"result":{}}', 'server-to-client'))?.code, 'unknown-id', 'a second answer to one id');
});

t.test('--fail-on: severities and codes', async (t) => {
  const error = finding('stdout-noise', 'wire', 'x');
  const warning = finding('unknown-id', 'wire', 'x');
  const note = { ...finding('drift', 'lock', 'x'), severity: 'note' as const };
  const rows: Array<[string, string[]]> = [
    ['error', ['stdout-noise']],
    ['warning', ['stdout-noise', 'unknown-id']],
    ['note', ['stdout-noise', 'unknown-id', 'drift']],
    ['unknown-id', ['unknown-id']],
    ['drift,unknown-id', ['unknown-id', 'drift']],
    ['error, drift', ['stdout-noise', 'drift']],
  ];
  for (const [text, codes] of rows) {
    const parsed = parseFailOn(text);
    if (!parsed.ok) {
      t.fail(parsed.reason);
      continue;
    }
    t.same(failing([error, warning, note], parsed.failOn).map((found) => found.code), codes, text);
  }
  const bad = parseFailOn('errors');
  t.notOk(bad.ok);
  if (!bad.ok) t.match(bad.reason, /"errors" is neither a severity \(error, warning, note\) nor a finding code/);
  t.notOk(parseFailOn(' , ').ok);
  const handshake = finding('unanswered', 'handshake', 'no answer');
  const onlyDrift = parseFailOn('drift');
  if (onlyDrift.ok) t.same(failing([handshake, error], onlyDrift.failOn), [handshake], 'a handshake that failed fails whatever --fail-on names');
});

t.test('schemas: valid object schemas compile; anything else says why', async (t) => {
  const good = [
    { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { q: { type: 'string', format: 'uri' } }, additionalProperties: false },
    { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { type: 'number' } } },
    { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' },
    { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { x: { type: 'integer' } } },
    { type: 'object', 'x-vendor': true },
  ];
  for (const schema of good) t.ok(compileToolSchema(schema).ok, JSON.stringify(schema));
  const bad: Array<[unknown, RegExp]> = [
    [undefined, /a undefined, not a JSON Schema object/],
    [null, /null, not a JSON Schema object/],
    [[], /an array/],
    [{ type: 'string' }, /"type" is "string", not "object"/],
    [{ properties: {} }, /"type" is missing/],
    [{ type: 'object', properties: { a: { type: 'strung' } } }, /schema is invalid/],
    [{ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, /can't resolve reference|missing/],
    [{ type: 'object', required: 'a' }, /schema is invalid/],
  ];
  for (const [schema, reason] of bad) {
    const compiled = compileToolSchema(schema);
    t.notOk(compiled.ok, JSON.stringify(schema));
    if (!compiled.ok) t.match(compiled.reason, reason);
  }
  const compiled = compileToolSchema({ type: 'object', properties: { count: { type: 'number' } }, required: ['count'] });
  if (!compiled.ok) return t.fail(compiled.reason);
  t.equal(outputMismatch({ content: [], structuredContent: { count: 1 } }, compiled.validate), undefined);
  t.equal(outputMismatch({ content: [], isError: true }, compiled.validate), undefined, 'an error result is exempt');
  t.match(outputMismatch({ content: [] }, compiled.validate), /no structuredContent/);
  t.match(outputMismatch({ content: [], structuredContent: { count: 'one' } }, compiled.validate), /\/count must be number/);
  t.match(outputMismatch({ content: [], structuredContent: {} }, compiled.validate), /must have required property 'count'/);
});

t.test('scripts: steps in JSON and YAML; a bad one is one line', async (t) => {
  const json = await parseScript('[{"call":"search","arguments":{"q":"x"},"expect":{"isError":false,"text":"ok"}},{"read":"file:///a"},{"prompt":"p","arguments":{"n":"1"}}]', false);
  t.ok(json.ok);
  if (json.ok) t.equal(json.steps.length, 3);
  const yaml = await parseScript(readFileSync(new URL('fixtures/check/script.yaml', import.meta.url), 'utf8'), true);
  const fromJson = await parseScript(readFileSync(new URL('fixtures/check/script.json', import.meta.url), 'utf8'), false);
  t.same(yaml, fromJson, 'the YAML and the JSON scenario are the same');
  const rows: Array<[string, RegExp]> = [
    ['{"call":"x"}', /a script is an array of steps/],
    ['[1]', /step 1 is not an object/],
    ['[{"call":"a","read":"b"}]', /step 1 needs exactly one of "call", "read" or "prompt"/],
    ['[{"call":""}]', /step 1: "call" must be a non-empty string/],
    ['[{"call":"a"},{"call":"b","arguments":[1]}]', /step 2: "arguments" must be an object/],
    ['[{"read":"a","arguments":{}}]', /"arguments" does not go with "read"/],
    ['[{"call":"a","expect":{"isError":"no"}}]', /"expect.isError" must be true or false/],
    ['[{"call":"a","expect":{"status":1}}]', /unknown key "status" in "expect"/],
    ['[{"call":"a","args":{}}]', /unknown key "args"/],
    ['[{"call":', /^not JSON: /],
  ];
  for (const [text, reason] of rows) {
    const parsed = await parseScript(text, false);
    t.notOk(parsed.ok, text);
    if (!parsed.ok) t.match(parsed.reason, reason, text);
  }
  const badYaml = await parseScript('- call: [unclosed', true);
  t.notOk(badYaml.ok);
  if (!badYaml.ok) t.match(badYaml.reason, /^not YAML: /);
});

t.test('resource templates match the URIs they produce', async (t) => {
  const rows: Array<[string, string, boolean]> = [
    ['note://{id}', 'note://7', true],
    ['file:///{+path}', 'file:///a/b.txt', true],
    ['db://{table}/rows', 'db://users/rows', true],
    ['db://{table}/rows', 'db://users/cols', false],
    ['note://{id}', 'other://7', false],
  ];
  for (const [template, uri, matches] of rows) t.equal(matchesTemplate(template, uri), matches, `${template} ${uri}`);
});

t.test('docs/ci.md explains every finding code', async (t) => {
  const docs = readFileSync(new URL('../docs/ci.md', import.meta.url), 'utf8');
  for (const code of FINDING_CODES) {
    t.match(docs, new RegExp(`### \`${code}\``), `${code} has its section`);
    t.ok(FINDINGS[code].meaning.length > 0 && FINDINGS[code].fix.length > 0, `${code} has a meaning and a fix`);
  }
});
