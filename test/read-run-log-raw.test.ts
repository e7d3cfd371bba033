// A run serve loads from its log keeps its large inputs and outputs as
// their JSON text outside the JavaScript heap (readRunLog's rawValues, as
// ingest keeps a live run's), so that the garbage collector has little to
// walk during an export; small ones stay parsed. What the API returns for
// the run is the same either way: a playbook of values, each read back
// both ways, compared as the JSON the API writes.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRunLog } from '../src/export/read-run-log.js';
import { RawJson } from '../src/json/raw-json.js';

const RUN = 'run_raw_values';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);
const TOOL = { nodeId: 'tool:echo', kind: 'tool', parent: 'mcp:session', label: 'echo' };

const big = 'x'.repeat(4096);
const PLAYBOOK: Array<{ name: string; input: unknown; output: unknown; raw: { input: boolean; output: boolean } }> = [
  { name: 'small values stay parsed', input: { name: 'echo' }, output: { content: [] }, raw: { input: false, output: false } },
  { name: 'a large output', input: { name: 'echo' }, output: { content: [{ type: 'text', text: big }] }, raw: { input: false, output: true } },
  { name: 'a large input', input: { name: 'echo', arguments: { text: big } }, output: { ok: 1 }, raw: { input: true, output: false } },
  { name: 'a large array', input: [big], output: [1, 2, big], raw: { input: true, output: true } },
  { name: 'a large string alone stays as it is', input: big, output: big, raw: { input: false, output: false } },
  { name: 'odd text', input: { text: `${big}"\\\n\u0000\u2028é😀\ud800` }, output: JSON.parse(`{"__proto__":{"a":"${big}"},"constructor":1,"n":-0,"f":1e300}`) as unknown, raw: { input: true, output: true } },
];

const dir = mkdtempSync(join(tmpdir(), 'graphmind-raw-values-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

for (const entry of PLAYBOOK) {
  t.test(entry.name, async (t) => {
    let seq = 0;
    const line = (fields: Record<string, unknown>): string => JSON.stringify({ runId: RUN, seq: ++seq, t: T + seq, ...fields });
    const file = join(dir, `${RUN}.jsonl`);
    writeFileSync(
      file,
      `${[
        line({ type: 'run.started', name: 'node server.js', source: 'mcp-proxy', meta: {} }),
        line({ type: 'instance.started', instanceId: 'mcp_1', node: { nodeId: 'mcp:session', kind: 'server', parent: null, label: 's' } }),
        line({ type: 'instance.started', instanceId: 'mcp_2', node: TOOL, input: entry.input, requestId: 2 }),
        line({ type: 'instance.finished', instanceId: 'mcp_2', output: entry.output }),
        line({ type: 'run.finished', status: 'ok' }),
      ].join('\n')}\n`,
    );
    const raw = readRunLog(file, RUN, { rawValues: true });
    const parsed = readRunLog(file, RUN);
    if (!raw.ok || !parsed.ok || raw.state === undefined || parsed.state === undefined) throw new Error('not read');
    const call = raw.state.byId.get('mcp_2');
    t.equal(call?.input instanceof RawJson, entry.raw.input, `input ${entry.raw.input ? 'kept as text' : 'parsed'}`);
    t.equal(call?.output instanceof RawJson, entry.raw.output, `output ${entry.raw.output ? 'kept as text' : 'parsed'}`);
    t.equal(JSON.stringify(raw.state.toRun()), JSON.stringify(parsed.state.toRun()), 'the run as the API writes it: the same');
  });
}

t.test('lines written another way: the value JSON.parse keeps, or parsed', async (t) => {
  const file = join(dir, `${RUN}.jsonl`);
  const head = (seq: number): string => `"runId":"${RUN}","seq":${seq},"t":${T + seq}`;
  const tool = JSON.stringify(TOOL);
  writeFileSync(
    file,
    `${[
      `{${head(1)},"type":"run.started","name":"s","source":"mcp-proxy","meta":{}}`,
      // Spaces, and the output given twice: JSON.parse keeps the last.
      ` { "type" : "instance.started" , "instanceId":"mcp_2", "node": ${tool}, "input" : {"text":"${big}"} , ${head(2)} } `,
      `{"type":"instance.finished","instanceId":"mcp_2","output":{"first":"${big}"},"output":{"second":"${big}"},${head(3)}}`,
      // A key written with an escape is not looked for: parsed.
      `{"type":"instance.started","instanceId":"mcp_3","node":${tool},"\\u0069nput":{"text":"${big}"},${head(4)}}`,
      `{${head(5)},"type":"run.finished","status":"ok"}`,
    ].join('\n')}\n`,
  );
  const raw = readRunLog(file, RUN, { rawValues: true });
  const parsed = readRunLog(file, RUN);
  if (!raw.ok || !parsed.ok || raw.state === undefined || parsed.state === undefined) throw new Error('not read');
  t.ok(raw.state.byId.get('mcp_2')?.input instanceof RawJson, 'spaces: kept as text');
  t.same((raw.state.byId.get('mcp_2')?.output as RawJson).toJSON(), { second: big }, 'a key given twice: the last, as JSON.parse');
  t.notOk(raw.state.byId.get('mcp_3')?.input instanceof RawJson, 'an escaped key: parsed');
  t.equal(JSON.stringify(raw.state.toRun()), JSON.stringify(parsed.state.toRun()), 'the run as the API writes it: the same');
});
