// Context cost (src/cost): bytes exact, tokens within the error
// docs/context-cost.md states, against counts published by others — the
// tokenizer's reference (tiktoken's own examples, OpenAI's cookbook), and
// token counts OpenAI's and Anthropic's APIs reported for known requests.
// Playbooks: input -> the published count.
import t from 'tap';
import { callCost, countTokens, MAX_COUNTED_CHARS, resultCost, surfaceCost, tokenizerLoadMs, toolDefinitionCost, TOKENIZER } from '../src/cost/index.js';
import { RawJson } from '../src/json/raw-json.js';
import { countTokens as reference } from 'gpt-tokenizer/encoding/o200k_base';

t.test('the tokenizer loads on first use, and says what it is', async (t) => {
  t.equal(tokenizerLoadMs(), undefined, 'importing the module loads no vocabulary');
  t.equal(countTokens(''), 0, 'nothing to count: still nothing loaded');
  t.equal(tokenizerLoadMs(), undefined);
  countTokens('hello world');
  const ms = tokenizerLoadMs() as number;
  t.comment(`gpt-tokenizer o200k_base loaded in ${ms.toFixed(0)} ms`);
  // Guards that it is loaded once and lazily, not how fast a loaded CI machine is (about 0.4 s idle, 2 s loaded).
  t.ok(ms > 0 && ms < 30_000, 'loaded once, on the first count');
  t.match(TOKENIZER, { package: 'gpt-tokenizer', encoding: 'o200k_base', note: /estimate/ });
});

t.test('o200k_base counts: exact against the published reference counts', async (t) => {
  // string -> count, as published for o200k_base: OpenAI's cookbook "How to count tokens with tiktoken"
  // (its encoding comparison), and gpt-tokenizer's own tests (token ids checked against tiktoken).
  const playbook: Array<[string, number]> = [
    ['antidisestablishmentarianism', 6],
    ['2 + 2 = 4', 7],
    ['お誕生日おめでとう', 8],
    ['This is some text', 4],
    ['indivisible', 3],
    ['hello 👋 world 🌍', 6],
    ['toString constructor hasOwnProperty valueOf', 8],
    ['hello, I am a text, and I have commas. a,b,c', 15],
  ];
  for (const [text, count] of playbook) t.equal(countTokens(text), count, JSON.stringify(text));
  t.equal(countTokens('a <|endoftext|> b'), 9, 'a special token in a server\'s text is counted as text, not refused');
});

/** OpenAI's chat framing, as the cookbook gives it for gpt-4o: 3 per message, 1 per name, 3 for the reply. */
function chatTokens(messages: Array<Record<string, string>>): number {
  let total = 3;
  for (const message of messages) {
    total += 3;
    for (const [key, value] of Object.entries(message)) total += countTokens(value) + (key === 'name' ? 1 : 0);
  }
  return total;
}

const WEATHER_MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant that can answer to questions about the weather.' },
  { role: 'user', content: "What's the weather like in San Francisco?" },
];

t.test('against counts the APIs reported', async (t) => {
  // The cookbook's six messages: the OpenAI API reported 124 prompt tokens for gpt-4o and gpt-4o-mini.
  const six: Array<Record<string, string>> = [
    { role: 'system', content: 'You are a helpful, pattern-following assistant that translates corporate jargon into plain English.' },
    { role: 'system', name: 'example_user', content: 'New synergies will help drive top-line growth.' },
    { role: 'system', name: 'example_assistant', content: 'Things working well together will increase revenue.' },
    { role: 'system', name: 'example_user', content: "Let's circle back when we have more bandwidth to touch base on opportunities for increased leverage." },
    { role: 'system', name: 'example_assistant', content: "Let's talk later when we're less busy about how to do better." },
    { role: 'user', content: "This late pivot means we don't have time to boil the ocean for the client deliverable." },
  ];
  t.equal(chatTokens(six), 124, 'text: exactly what the OpenAI API counted for gpt-4o');

  // The cookbook's get_current_weather tool with two messages: 101 prompt tokens for gpt-4o, so the tool
  // definition cost 101 - 33 = 68 as OpenAI renders it. We count its JSON: a little more, never less.
  const weather = {
    name: 'get_current_weather',
    description: 'Get the current weather in a given location',
    inputSchema: {
      type: 'object',
      properties: {
        location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' },
        unit: { type: 'string', description: 'The unit of temperature to return', enum: ['celsius', 'fahrenheit'] },
      },
      required: ['location'],
    },
  };
  const openai = 101 - chatTokens(WEATHER_MESSAGES);
  t.equal(openai, 68);
  const estimate = toolDefinitionCost(weather).tokens;
  t.comment(`get_current_weather: estimate ${estimate}, OpenAI gpt-4o ${openai} (${(((estimate - openai) / openai) * 100).toFixed(0)}%)`);
  t.ok(estimate >= openai && estimate <= openai * 1.3, 'a tool definition: within +30% of what gpt-4o counted (docs/context-cost.md)');

  // Anthropic's token-counting example (claude-sonnet-4-5): get_weather and one user message counted 403
  // input tokens, 346 of them the tool-use system prompt Anthropic documents. The rest, 57, is the definition
  // plus the message (8 tokens of text, and its framing): the definition is at most 49 Claude tokens.
  const getWeather = {
    name: 'get_weather',
    description: 'Get the current weather in a given location',
    inputSchema: { type: 'object', properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } }, required: ['location'] },
  };
  const claude = 403 - 346 - countTokens("What's the weather like in San Francisco?");
  const claudeEstimate = toolDefinitionCost(getWeather).tokens;
  t.comment(`get_weather: estimate ${claudeEstimate}, Claude Sonnet 4.5 at most ${claude} (${(((claudeEstimate - claude) / claude) * 100).toFixed(0)}%)`);
  t.ok(Math.abs(claudeEstimate - claude) <= claude * 0.3, 'a tool definition: within 30% of Claude\'s count (docs/context-cost.md)');
});

t.test('bytes: exactly the UTF-8 of the compact JSON a host hands the model', async (t) => {
  const tool = { name: 'größe', title: 'Size', description: 'Taille — 尺寸 🌍', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, _meta: { x: 1 }, icons: [] };
  const seen = { name: 'größe', description: 'Taille — 尺寸 🌍', inputSchema: { type: 'object' } };
  t.equal(toolDefinitionCost(tool).bytes, Buffer.byteLength(JSON.stringify(seen)), 'name, description and schemas; title, annotations, icons and _meta are not the model\'s');
  t.equal(toolDefinitionCost({ ...tool, outputSchema: { type: 'object' } }).bytes, Buffer.byteLength(JSON.stringify({ ...seen, outputSchema: { type: 'object' } })), 'an output schema counts');

  const text = { content: [{ type: 'text', text: 'ünïcode ✓' }], isError: false, _meta: { trace: 'x' } };
  t.equal(resultCost(text).bytes, Buffer.byteLength(JSON.stringify({ content: text.content })), 'a result: its content');
  const structured = { content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } };
  t.equal(resultCost(structured).bytes, Buffer.byteLength(JSON.stringify(structured)), 'and its structuredContent');
  const image = { content: [{ type: 'image', data: 'A'.repeat(40_000), mimeType: 'image/png' }] };
  const cost = resultCost(image);
  t.equal(cost.bytes, Buffer.byteLength(JSON.stringify(image)), 'an image: all its bytes');
  t.ok(cost.tokens < 30, `but its base64 is not read as text (${cost.tokens} tokens)`);
  t.same(resultCost({ contents: [{ uri: 'file:///a', text: 'abc' }], _meta: {} }).bytes, Buffer.byteLength('{"contents":[{"uri":"file:///a","text":"abc"}]}'), 'a resource read: its contents');
});

t.test('a tool list: each tool, and the total on every turn', async (t) => {
  const tools = [
    { name: 'a', description: 'short', inputSchema: { type: 'object' } },
    { name: 'b', description: 'a much longer description of what this tool does, with words', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
  ];
  const surface = surfaceCost(tools);
  t.same(surface.perTool.map((tool) => tool.name), ['a', 'b']);
  t.equal(surface.tokens, surface.perTool[0]!.tokens + surface.perTool[1]!.tokens, 'the total is the sum');
  t.equal(surface.bytes, toolDefinitionCost(tools[0]).bytes + toolDefinitionCost(tools[1]).bytes);
  t.ok(surface.perTool[1]!.tokens > surface.perTool[0]!.tokens);
  t.same(surfaceCost([]), { bytes: 0, tokens: 0, perTool: [] });
});

t.test('a recorded call: which figure its method has', async (t) => {
  const tools = { tools: [{ name: 'x', inputSchema: { type: 'object' } }] };
  t.ok(callCost('tools/list', tools)?.surface, 'tools/list: the surface');
  t.ok(callCost('tools/call', { content: [] })?.result, 'tools/call: the result');
  t.ok(callCost('resources/read', { contents: [] })?.result);
  t.ok(callCost('prompts/get', { messages: [] })?.result);
  const json = Buffer.from('{"content":[{"type":"text","text":"kept as raw JSON"}]}');
  t.same(callCost('tools/call', new RawJson(json, 0, json.length))?.result, resultCost(JSON.parse(json.toString())), 'a value the server keeps as raw JSON');
  for (const [method, output] of [
    ['initialize', { protocolVersion: '2025-06-18' }],
    ['tools/call', undefined],
    ['tools/call', '[hidden]'],
    ['tools/call', { '[graphmind]': 'not recorded: the frame is larger than 1 MiB', bytes: 2_000_000 }],
    ['tools/list', { nextCursor: 'x' }],
  ] as const) {
    t.equal(callCost(method, output), undefined, `nothing to count: ${method} ${JSON.stringify(output)}`);
  }
});

t.test('long text: bounded time, small error', async (t) => {
  // One 64,000-letter word took 30 s in the package's merge; slices keep it linear.
  let start = performance.now();
  t.equal(countTokens('x'.repeat(64_000)), 8_000, 'a long run of one letter: the same count');
  const runMs = performance.now() - start;
  // Text over MAX_COUNTED_CHARS: counted on windows and scaled.
  const prose = Array.from({ length: 40_000 }, (_, i) => `Call ${i} of the quick brown fox: {"jumps": ${i * 7}, "over": "the lazy dog"}.`).join('\n');
  t.ok(prose.length > MAX_COUNTED_CHARS);
  start = performance.now();
  const scaled = countTokens(prose);
  const scaledMs = performance.now() - start;
  // The package itself, on the whole text: the reference the windows are scaled against.
  const exact = reference(prose);
  t.ok(Math.abs(scaled - exact) / exact < 0.01, `scaled count ${scaled} within 1% of the whole count ${exact} (${((100 * (scaled - exact)) / exact).toFixed(2)}%)`);
  t.comment(`64,000 letters ${runMs.toFixed(0)} ms; ${(prose.length / 1e6).toFixed(1)} MB of varied text ${scaledMs.toFixed(0)} ms`);
  // Guards against the quadratic case (30 s), with a wide margin for a loaded machine.
  t.ok(runMs < 5_000 && scaledMs < 5_000);
});
