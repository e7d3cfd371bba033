// Lifting as a playbook (src/gates/lift.ts): a method and an injected value
// in, the `result` the client receives out. test/gates-lift checks the same
// results against the real SDK clients' validation.
import t from 'tap';
import { ERA_2026, liftResult, type LiftOptions } from '../src/gates/lift.js';

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const URI = 'test://greeting';
const assistant = (value: string) => ({ role: 'assistant', content: { type: 'text', text: value }, model: 'graphmind-inject', stopReason: 'endTurn' });

const playbook: Array<[string, string | undefined, unknown, LiftOptions, unknown]> = [
  // tools/call
  ['tools/call: a string is a text block', 'tools/call', 'hi', {}, text('hi')],
  ['tools/call: an object is its JSON and structuredContent', 'tools/call', { price: 42 }, {}, { content: [{ type: 'text', text: '{"price":42}' }], structuredContent: { price: 42 } }],
  ['tools/call: a result-shaped value as it is', 'tools/call', { content: [], isError: true }, {}, { content: [], isError: true }],
  ['tools/call: a number is its JSON text', 'tools/call', 42, {}, text('42')],
  ['tools/call: an array is its JSON text (structuredContent must be an object)', 'tools/call', [1, 2], {}, text('[1,2]')],
  ['tools/call: false is its JSON text', 'tools/call', false, {}, text('false')],
  ['tools/call: nothing (undefined) is an empty result', 'tools/call', undefined, {}, { content: [] }],
  ['tools/call: null is nothing, an empty result (not the text "null")', 'tools/call', null, {}, { content: [] }],
  ['tools/call: null on a 2026 session is stamped', 'tools/call', null, { protocolVersion: ERA_2026 }, { content: [], resultType: 'complete' }],
  // resources/read
  ['resources/read: a string is text/plain at the uri', 'resources/read', 'hello', { uri: URI }, { contents: [{ uri: URI, mimeType: 'text/plain', text: 'hello' }] }],
  ['resources/read: an object is application/json', 'resources/read', { a: 1 }, { uri: URI }, { contents: [{ uri: URI, mimeType: 'application/json', text: '{"a":1}' }] }],
  ['resources/read: a result-shaped value as it is', 'resources/read', { contents: [] }, { uri: URI }, { contents: [] }],
  ['resources/read: null is nothing, no contents', 'resources/read', null, { uri: URI }, { contents: [] }],
  ['resources/read: undefined is nothing, no contents', 'resources/read', undefined, { uri: URI }, { contents: [] }],
  ['resources/read: null on a 2026 session is stamped', 'resources/read', null, { uri: URI, protocolVersion: ERA_2026 }, { contents: [], resultType: 'complete', ttlMs: 0, cacheScope: 'private' }],
  // prompts/get
  ['prompts/get: a string is one user message', 'prompts/get', 'say hi', {}, { messages: [{ role: 'user', content: { type: 'text', text: 'say hi' } }] }],
  ['prompts/get: a result-shaped value as it is', 'prompts/get', { messages: [] }, {}, { messages: [] }],
  ['prompts/get: null is nothing, no messages', 'prompts/get', null, {}, { messages: [] }],
  ['prompts/get: undefined is nothing, no messages', 'prompts/get', undefined, {}, { messages: [] }],
  // sampling/createMessage: a result always carries one content block.
  ['sampling: a string is the assistant text', 'sampling/createMessage', 'pong', {}, assistant('pong')],
  ['sampling: null is an empty assistant text', 'sampling/createMessage', null, {}, assistant('')],
  ['sampling: undefined is an empty assistant text', 'sampling/createMessage', undefined, {}, assistant('')],
  // Methods we do not model: as typed.
  ['another method: as typed', 'completion/complete', { completion: { values: [] } }, {}, { completion: { values: [] } }],
  ['another method: null as typed', 'completion/complete', null, {}, null],
  ['no method: as typed', undefined, 'x', {}, 'x'],
];

for (const [name, method, value, options, expected] of playbook) {
  t.test(name, async (t) => {
    t.strictSame(liftResult(method, value, options), expected);
  });
}
