// OpenTelemetry is loaded only when something exports over OTLP: by a
// serve that streams, and by an otlp-json export. mcp-proxy (started by an
// MCP host for every server), a serve that does not stream, the JSONL
// export and the CLI's help never load it; mcp-proxy does not load the
// export code at all. Every module a process loads is logged by a resolve
// hook (test/fixtures/mcp/module-log.mjs).
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLI, PROXY_FIXTURES, waitFor } from './helpers/cli.js';
import { freshDataDir } from './helpers/serve.js';

const MODULE_LOG_HOOK = fileURLToPath(new URL('./fixtures/mcp/module-log.mjs', import.meta.url));
const RUN_LOG = fileURLToPath(new URL('./fixtures/report-wire.jsonl', import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'graphmind-export-startup-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));

function env(log: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('GRAPHMIND_') && !key.startsWith('OTEL_')) out[key] = value;
  return { ...out, MODULE_LOG: log };
}

function logFile(): string {
  return join(root, `modules-${Math.random().toString(36).slice(2)}.txt`);
}

function modules(log: string): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter((line) => line !== '') : [];
}

const otel = (list: readonly string[]): string[] => list.filter((url) => url.includes('/@opentelemetry/'));

/** Run the CLI to its end; the modules it loaded. */
function run(args: readonly string[], input = ''): { status: number | null; stderr: string; modules: string[] } {
  const log = logFile();
  const result = spawnSync(process.execPath, ['--import', MODULE_LOG_HOOK, CLI, ...args], { input, encoding: 'utf8', timeout: 30_000, env: env(log) });
  return { status: result.status, stderr: result.stderr, modules: modules(log) };
}

/** Start serve, wait for it to listen, stop it; the modules it loaded. */
async function serveModules(args: readonly string[]): Promise<string[]> {
  const { root: dir, dataDir } = freshDataDir();
  const log = logFile();
  const child = spawn(process.execPath, ['--import', MODULE_LOG_HOOK, CLI, 'serve', '--port', '0', '--data-dir', dataDir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: env(log) });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await waitFor(() => out.includes('debugger listening on'), 15_000, 'serve to listen');
  child.kill('SIGTERM');
  await once(child, 'close');
  rmSync(dir, { recursive: true, force: true });
  return modules(log);
}

t.test('mcp-proxy loads neither OpenTelemetry nor the export code', async (t) => {
  const proxy = run(['mcp-proxy', '--port', '1', '--', process.execPath, `${PROXY_FIXTURES}echo-server.mjs`]);
  t.ok(proxy.modules.some((url) => url.includes('/dist/cli/graphmind.js')), 'the hook saw the CLI');
  t.same(otel(proxy.modules), []);
  t.same(proxy.modules.filter((url) => url.includes('/dist/export/')), []);
});

t.test('serve loads OpenTelemetry only when it streams', async (t) => {
  t.same(otel(await serveModules([])), [], 'not without --otlp-endpoint');
  const streaming = await serveModules(['--otlp-endpoint', 'http://127.0.0.1:1']);
  t.ok(otel(streaming).some((url) => url.includes('/@opentelemetry/exporter-trace-otlp-proto/')), 'the protobuf exporter with it');
  t.same(otel(streaming).filter((url) => url.includes('/exporter-trace-otlp-http/')), [], 'and not the JSON one it does not use');
});

t.test('export loads OpenTelemetry for otlp-json only; help never', async (t) => {
  const { root: dir, dataDir } = freshDataDir();
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const imported = run(['import', RUN_LOG, '--port', '1', '--data-dir', dataDir]);
  t.equal(imported.status, 0, imported.stderr);
  t.same(otel(imported.modules), []);
  const runId = JSON.parse(readFileSync(RUN_LOG, 'utf8').split('\n')[0] as string).runId as string;
  const jsonl = run(['export', runId, '--port', '1', '--data-dir', dataDir]);
  t.equal(jsonl.status, 0, jsonl.stderr);
  t.same(otel(jsonl.modules), []);
  const har = run(['export', runId, '--format', 'har', '--port', '1', '--data-dir', dataDir]);
  t.equal(har.status, 0, har.stderr);
  t.same(otel(har.modules), []);
  const otlp = run(['export', runId, '--format', 'otlp-json', '--port', '1', '--data-dir', dataDir]);
  t.equal(otlp.status, 0, otlp.stderr);
  t.ok(otel(otlp.modules).some((url) => url.includes('/@opentelemetry/otlp-transformer/')));
  t.same(otel(run(['--help']).modules), []);
});
