// graphmind serve --otlp-endpoint: a real proxy session (SDK 1.x client,
// graphmind mcp-proxy, a real server) streamed by OpenTelemetry's exporters
// to a real OTLP/HTTP receiver started here, which decodes it with
// definitions of its own (protobuf, then JSON). Checks the spans against
// OpenTelemetry's MCP semantic conventions (names, kinds, attributes and
// their values) and GraphMind's own graphmind.* facts: a call held and
// injected, one aborted, one continued, a failing tool, a JSON-RPC error,
// a sampling request, stdout noise and a client's traceparent.
import t from 'tap';
import { fileURLToPath } from 'node:url';
import { connectV1, decide, getRun, newRuns, runIds, setBreakpoints, startDebugger, waitFor, waitForHold, type SamplingStub } from './helpers/gates.js';
import { api, rawRequest, startServe } from './helpers/serve.js';
import { decodeSpans, KIND, STATUS, startReceiver, type ReceivedSpan } from './fixtures/export/otlp-receiver.js';

const TOOLS_SERVER = fileURLToPath(new URL('./fixtures/export/tools-server.mjs', import.meta.url));

/** Every attribute the conventions' MCP client and server span tables list. */
const CONVENTION_ATTRIBUTES = new Set([
  'mcp.method.name',
  'error.type',
  'gen_ai.prompt.name',
  'gen_ai.tool.name',
  'jsonrpc.request.id',
  'mcp.resource.uri',
  'rpc.response.status_code',
  'gen_ai.operation.name',
  'jsonrpc.protocol.version',
  'mcp.protocol.version',
  'mcp.session.id',
  'network.protocol.name',
  'network.protocol.version',
  'network.transport',
  'server.address',
  'server.port',
  'client.address',
  'client.port',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
]);

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

function text(result: unknown): string {
  const content = (result as { content?: Array<{ text?: string }> }).content ?? [];
  return content.map((part) => part.text ?? '').join('');
}

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((span) => span.name === name);
}

function event(span: ReceivedSpan, name: string): ReceivedSpan['events'][number] | undefined {
  return span.events.find((e) => e.name === name);
}

t.test('a proxy session streamed over OTLP/HTTP protobuf, checked against the MCP conventions', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const serve = await startDebugger(t, ['--pause-on-error', 'off', '--otlp-endpoint', receiver.url, '--otlp-header', 'x-team=graphmind-tests']);
  t.match(serve.stdout(), `graphmind: streaming runs to ${receiver.url}/v1/traces over OTLP (http/protobuf)`);
  await setBreakpoints(serve, { pauseOnError: false, nodes: { 'tool:echo': { before: true }, 'tool:slow': { before: true }, 'tool:fail': { before: true }, 'tool:flaky': { after: true } } });
  const before = new Set(await runIds(serve));
  const sampling: SamplingStub = { calls: 0, answer: { role: 'assistant', content: { type: 'text', text: 'sampled' }, model: 'stub' } };
  const session = await connectV1(t, serve, { server: [TOOLS_SERVER], sampling });
  const [runId] = await newRuns(serve, before);

  // 1. Held before it went out, and answered in the debugger (by a caller that names itself).
  const injected = session.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
  const echoHold = await waitForHold(serve, { nodeId: 'tool:echo', gate: 'before' });
  const answer = await api(serve.port, serve.token, 'POST', `/api/holds/${echoHold.holdId}`, { action: 'inject', value: { content: [{ type: 'text', text: 'injected by the test' }] }, by: 'test-suite' });
  t.equal(answer.status, 200);
  t.equal(text(await injected), 'injected by the test');

  // 2. Aborted from a browser page (an Origin of the server's own): the viewer.
  const aborted = session.client.callTool({ name: 'slow', arguments: { ms: 1 } });
  aborted.catch(() => {});
  const slowHold = await waitForHold(serve, { nodeId: 'tool:slow' });
  const fromPage = await rawRequest(serve.port, {
    method: 'POST',
    path: `/api/holds/${slowHold.holdId}`,
    headers: { host: `127.0.0.1:${serve.port}`, origin: `http://127.0.0.1:${serve.port}`, authorization: `Bearer ${serve.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ action: 'abort' }),
  });
  t.equal(fromPage.status, 200);
  await t.rejects(aborted, { code: -32099 });

  // 3. A failing tool, held and let go unchanged through the API.
  const failing = session.client.callTool({ name: 'fail', arguments: {} });
  const failHold = await waitForHold(serve, { nodeId: 'tool:fail' });
  await decide(serve, failHold.holdId, 'continue');
  t.equal((await failing).isError, true);

  // 4. A call that carries a W3C trace context in params._meta.
  const traced = session.client.callTool({ name: 'echo', arguments: { text: 'traced' }, _meta: { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' } });
  const tracedHold = await waitForHold(serve, { nodeId: 'tool:echo' });
  await api(serve.port, serve.token, 'POST', `/api/holds/${tracedHold.holdId}`, { action: 'continue', by: 'graphmind mcp' });
  t.equal(text(await traced), 'traced');

  // 5. An answer held after it came back, and replaced well after the stream's settling time.
  const replaced = session.client.callTool({ name: 'flaky', arguments: {} });
  const flakyHold = await waitForHold(serve, { nodeId: 'tool:flaky', gate: 'after' });
  await new Promise((resolve) => setTimeout(resolve, 2500));
  await api(serve.port, serve.token, 'POST', `/api/holds/${flakyHold.holdId}`, { action: 'inject', value: { content: [{ type: 'text', text: 'fixed in the debugger' }] }, by: 'test-suite' });
  t.equal(text(await replaced), 'fixed in the debugger');

  // 6. Unheld: a JSON-RPC error, a sampling request, the wire untouched, a resource and a prompt.
  await t.rejects(session.client.callTool({ name: 'boom', arguments: {} }), { code: -32000 });
  t.match(text(await session.client.callTool({ name: 'ask', arguments: { question: 'why?' } })), 'sampled');
  t.equal(sampling.calls, 1);
  t.equal(text(await session.client.callTool({ name: 'whatmeta', arguments: {} })), 'null', 'nothing of a trace context is added to what the server gets');
  await session.client.readResource({ uri: 'test://greeting' });
  await session.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  await session.close();

  const recorded = await (async () => {
    let run = await getRun(serve, runId as string);
    await waitFor(() => run.status !== 'running', 10_000, 'the run to end').catch(() => {});
    for (let i = 0; i < 100 && run.status === 'running'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await getRun(serve, runId as string);
    }
    return (await api(serve.port, serve.token, 'GET', `/api/runs/${runId}`)).json as {
      status: string;
      meta: { protocolVersion: string; decisions: Array<{ holdId: string; by: string; action: string }> };
      instances: Array<{ instanceId: string; nodeId: string }>;
    };
  })();
  t.equal(recorded.status, 'ok');
  t.same(
    recorded.meta.decisions.map(({ holdId, by, action }) => ({ holdId, by, action })),
    [
      { holdId: echoHold.holdId, by: 'test-suite', action: 'inject' },
      { holdId: slowHold.holdId, by: 'viewer', action: 'abort' },
      { holdId: failHold.holdId, by: 'api', action: 'continue' },
      { holdId: tracedHold.holdId, by: 'graphmind mcp', action: 'continue' },
      { holdId: flakyHold.holdId, by: 'test-suite', action: 'inject' },
    ],
    'the run says who decided each hold',
  );

  const isRoot = (span: ReceivedSpan): boolean => span.attributes['graphmind.run.id'] === runId;
  await waitFor(() => receiver.spans.some(isRoot), 15_000, 'the root span');
  const root = receiver.spans.find(isRoot) as ReceivedSpan;
  const ours = receiver.spans.filter((span) => span.traceId === root.traceId || span.links.some((link) => link.traceId === root.traceId));

  t.test('requests and resource', async (t) => {
    t.ok(receiver.requests.length > 0);
    for (const request of receiver.requests) {
      t.equal(request.path, '/v1/traces');
      t.equal(request.contentType, 'application/x-protobuf');
      t.equal(request.headers['x-team'], 'graphmind-tests');
    }
    t.equal(root.resource['service.name'], 'export-fixture');
    t.equal(root.resource['service.version'], '2.3.4');
    t.equal(root.scope.name, 'graphmind-ai');
    t.equal(new Set(ours.map((span) => span.spanId)).size, ours.length, 'each span once');
  });

  t.test('the session is the parent span', async (t) => {
    t.equal(root.name, 'mcp-proxy export-fixture');
    t.equal(root.kind, KIND.INTERNAL);
    t.equal(root.parentSpanId, '');
    t.equal(root.attributes['network.transport'], 'pipe');
    t.equal(root.attributes['mcp.protocol.version'], recorded.meta.protocolVersion);
    t.notOk('mcp.session.id' in root.attributes, 'stdio has no Mcp-Session-Id');
    t.equal(root.attributes['graphmind.run.status'], 'ok');
    t.equal(root.status.code, STATUS.UNSET);
    const noise = root.events.filter((e) => e.name === 'graphmind.stdout_noise').map((e) => e.attributes['graphmind.stdout_noise.text']);
    t.same(noise, ['tools-server: starting (this line is not JSON-RPC)', '{"level":"info","msg":"a logger writing to stdout"}']);
    t.equal(root.attributes['graphmind.stdout_noise.count'], 2);
    t.ok(root.events.some((e) => e.name === 'graphmind.log' && e.attributes['graphmind.log.text'] === 'tools-server: ready on stdio'), 'stderr lines are events');
    for (const span of ours) {
      if (span === root || span.links.length > 0) continue;
      t.equal(span.parentSpanId, root.spanId, `${span.name} hangs under the session`);
      t.ok(span.startNs >= root.startNs && span.endNs <= root.endNs, `${span.name} is within the session`);
    }
  });

  t.test('attribute names are the conventions\' or graphmind.*', async (t) => {
    for (const span of ours) {
      if (span === root) continue;
      for (const key of Object.keys(span.attributes)) t.ok(CONVENTION_ATTRIBUTES.has(key) || key.startsWith('graphmind.'), `${span.name}: ${key}`);
      t.ok(span.startNs <= span.endNs);
      t.equal(span.attributes['network.transport'], 'pipe');
      t.equal(span.attributes['mcp.protocol.version'], recorded.meta.protocolVersion);
      t.type(span.attributes['mcp.method.name'], 'string');
      t.equal(span.name.split(' ')[0], span.attributes['mcp.method.name'], 'span name is {mcp.method.name} {target}');
    }
  });

  t.test('held and injected: a changed result', async (t) => {
    const [span] = byName(ours, 'tools/call echo').filter((s) => s.traceId === root.traceId);
    t.ok(span);
    if (span === undefined) return;
    t.equal(span.kind, KIND.SERVER);
    t.equal(span.attributes['mcp.method.name'], 'tools/call');
    t.equal(span.attributes['gen_ai.tool.name'], 'echo');
    t.equal(span.attributes['gen_ai.operation.name'], 'execute_tool');
    t.equal(span.attributes['jsonrpc.request.id'], String((echoHold.frame as { id: number }).id));
    t.equal(span.attributes['graphmind.changed_by_debugger'], true);
    t.equal(span.attributes['graphmind.change.action'], 'inject');
    t.equal(span.attributes['graphmind.change.by'], 'test-suite');
    t.equal(span.attributes['graphmind.hold.count'], 1);
    t.notOk('error.type' in span.attributes);
    t.equal(span.status.code, STATUS.UNSET);
    const hold = event(span, 'graphmind.hold');
    t.match(hold?.attributes, { 'graphmind.hold.id': echoHold.holdId, 'graphmind.hold.gate': 'before', 'graphmind.hold.reason': 'breakpoint' });
    const decision = event(span, 'graphmind.decision');
    t.match(decision?.attributes, { 'graphmind.decision.action': 'inject', 'graphmind.decision.by': 'test-suite', 'graphmind.changed_by_debugger': true });
    t.match(String(decision?.attributes['graphmind.decision.value']), 'injected by the test');
    t.ok((decision?.timeNs ?? 0n) >= (hold?.timeNs ?? 0n));
  });

  t.test('an answer held after it came, then replaced: sent once, with the replacement', async (t) => {
    const spans = byName(ours, 'tools/call flaky');
    t.equal(spans.length, 1, 'one span: not the answer as it came, then the replacement');
    const [span] = spans;
    if (span === undefined) return;
    t.equal(span.status.code, STATUS.UNSET, 'the call ended well, as the client saw it');
    t.notOk('error.type' in span.attributes);
    t.match(span.attributes, { 'graphmind.changed_by_debugger': true, 'graphmind.change.action': 'inject', 'graphmind.change.by': 'test-suite' });
    t.match(event(span, 'graphmind.hold')?.attributes, { 'graphmind.hold.gate': 'after', 'graphmind.hold.answer_status': 'error', 'graphmind.hold.answer_error.type': 'tool_error' });
    t.ok((span.attributes['graphmind.held_ms'] as number) >= 2500, 'held as long as it was');
    t.match(String(event(span, 'graphmind.decision')?.attributes['graphmind.decision.value']), 'fixed in the debugger');
  });

  t.test('aborted from the viewer', async (t) => {
    const [span] = byName(ours, 'tools/call slow');
    t.ok(span);
    if (span === undefined) return;
    t.equal(span.attributes['error.type'], '-32099');
    t.equal(span.attributes['rpc.response.status_code'], '-32099');
    t.equal(span.status.code, STATUS.ERROR);
    t.equal(span.attributes['graphmind.change.action'], 'abort');
    t.equal(span.attributes['graphmind.change.by'], 'viewer');
    t.match(event(span, 'graphmind.decision')?.attributes, { 'graphmind.decision.action': 'abort', 'graphmind.decision.by': 'viewer' });
  });

  t.test('a failing tool, continued unchanged', async (t) => {
    const [span] = byName(ours, 'tools/call fail');
    t.ok(span);
    if (span === undefined) return;
    t.equal(span.attributes['error.type'], 'tool_error');
    t.notOk('rpc.response.status_code' in span.attributes);
    t.equal(span.status.code, STATUS.ERROR);
    t.equal(span.attributes['graphmind.changed_by_debugger'], false);
    t.match(event(span, 'graphmind.decision')?.attributes, { 'graphmind.decision.action': 'continue', 'graphmind.decision.by': 'api', 'graphmind.changed_by_debugger': false });
  });

  t.test('a JSON-RPC error', async (t) => {
    const [span] = byName(ours, 'tools/call boom');
    t.ok(span);
    if (span === undefined) return;
    t.equal(span.attributes['error.type'], '-32000');
    t.equal(span.attributes['rpc.response.status_code'], '-32000');
    t.equal(span.status.code, STATUS.ERROR);
    t.match(span.status.message, 'boom: the tool blew up');
    t.equal(span.events.length, 0);
  });

  t.test('sampling is a CLIENT span', async (t) => {
    const [span] = byName(ours, 'sampling/createMessage');
    t.ok(span);
    t.equal(span?.kind, KIND.CLIENT);
    t.equal(span?.attributes['mcp.method.name'], 'sampling/createMessage');
    t.notOk(span !== undefined && 'gen_ai.operation.name' in span.attributes);
    t.equal(byName(ours, 'tools/call ask')[0]?.kind, KIND.SERVER);
  });

  t.test('resources, prompts and the handshake', async (t) => {
    const [read] = byName(ours, 'resources/read');
    t.equal(read?.attributes['mcp.resource.uri'], 'test://greeting', 'the URI is an attribute, not in the name');
    const [prompt] = byName(ours, 'prompts/get greet');
    t.equal(prompt?.attributes['gen_ai.prompt.name'], 'greet');
    t.notOk(prompt !== undefined && 'gen_ai.operation.name' in prompt.attributes, 'execute_tool is for tool calls only');
    t.equal(byName(ours, 'initialize')[0]?.kind, KIND.SERVER);
    const [initialized] = byName(ours, 'notifications/initialized');
    t.ok(initialized);
    t.notOk(initialized !== undefined && 'jsonrpc.request.id' in initialized.attributes, 'a notification has no request id');
  });

  t.test('a client\'s traceparent is the parent; the session a link', async (t) => {
    const span = ours.find((s) => s.traceId === '0af7651916cd43dd8448eb211c80319c');
    t.ok(span, 'the traced call is in the client\'s trace');
    if (span === undefined) return;
    t.equal(span.name, 'tools/call echo');
    t.equal(span.parentSpanId, 'b7ad6b7169203331');
    t.equal(span.traceState, 'congo=t61rcWkgMzE');
    t.same(span.links.map((link) => [link.traceId, link.spanId]), [[root.traceId, root.spanId]]);
    t.match(event(span, 'graphmind.decision')?.attributes, { 'graphmind.decision.by': 'graphmind mcp' });
  });

  t.test('health shows what the stream did; the export is the same trace', async (t) => {
    const health = (await api(serve.port, serve.token, 'GET', '/api/health')).json as { otlp: Record<string, unknown> };
    t.match(health.otlp, { endpoint: `${receiver.url}/v1/traces`, protocol: 'http/protobuf', dropped: 0, failed: 0, queued: 0 });
    t.ok((health.otlp.exported as number) >= ours.length);
    const exported = await api(serve.port, serve.token, 'GET', `/api/runs/${runId}/export?format=otlp-json`);
    t.equal(exported.status, 200);
    t.equal(exported.headers['content-disposition'], `attachment; filename="${runId}.otlp.json"`);
    const fromFile = decodeSpans(Buffer.from(exported.text), 'application/json');
    const key = (span: ReceivedSpan): string => `${span.traceId}/${span.spanId}/${span.parentSpanId}/${span.name}/${span.kind}/${span.status.code}/${span.startNs}/${span.endNs}`;
    t.same(fromFile.map(key).sort(), ours.map(key).sort(), 'streamed and exported: the same spans, ids and times');
    const attributesOf = (spans: ReceivedSpan[]): Record<string, unknown> => Object.fromEntries(spans.map((span) => [span.spanId, span.attributes]));
    t.same(attributesOf(fromFile), attributesOf(ours));
  });
});

t.test('OTEL_EXPORTER_OTLP_* and http/json', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const serve = await startServe(['--pause-on-error', 'off'], {
    OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/collector`,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_EXPORTER_OTLP_HEADERS: 'x-env=a%20b,authorization=Basic%20dGVzdA%3D%3D',
  });
  t.teardown(() => serve.stop());
  t.match(serve.stdout(), `streaming runs to ${receiver.url}/collector/v1/traces over OTLP (http/json)`);
  const before = new Set(await runIds(serve));
  const session = await connectV1(t, serve, { server: [TOOLS_SERVER] });
  const [runId] = await newRuns(serve, before);
  await session.client.callTool({ name: 'fail', arguments: {} });
  await session.client.callTool({ name: 'echo', arguments: { text: 'x' } });
  await session.close();
  await waitFor(() => receiver.spans.some((span) => span.attributes['graphmind.run.id'] === runId), 15_000, 'the root span');
  for (const request of receiver.requests) {
    t.equal(request.path, '/collector/v1/traces');
    t.equal(request.contentType, 'application/json');
    t.equal(request.headers['x-env'], 'a b');
    t.equal(request.headers.authorization, 'Basic dGVzdA==');
  }
  const [fail] = byName(receiver.spans, 'tools/call fail');
  t.equal(fail?.attributes['error.type'], 'tool_error');
  t.equal(byName(receiver.spans, 'tools/call echo')[0]?.attributes['graphmind.changed_by_debugger'], false);
});

t.test('bad OTLP settings are one line and exit 2, before anything starts', async (t) => {
  const { serveFailure } = await import('./helpers/serve.js');
  const grpc = await serveFailure(['--port', '0', '--otlp-endpoint', 'http://127.0.0.1:4318'], { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  t.equal(grpc.code, 2);
  t.match(grpc.stderr, 'the OTLP protocol "grpc" is not supported: use http/protobuf (the default) or http/json');
  const header = await serveFailure(['--port', '0', '--otlp-endpoint', 'http://127.0.0.1:4318', '--otlp-header', 'no-equals']);
  t.equal(header.code, 2);
  t.match(header.stderr, '--otlp-header must be key=value');
});
