// Helpers for the graphmind check tests: run the built CLI, read its JSON report, and check
// JUnit XML for well-formedness and SARIF against the SARIF 2.1.0 schema with ajv.
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { CLI, FIXTURES, NO_DEBUGGER } from './cli.js';
import { runGraphmind } from './replay.js';

/** The check fixtures. */
export const CHECK_FIXTURES = `${FIXTURES}check/`;
/** The Python server with one fault (argv: the fault). */
export const FAULT_SERVER = ['python3', `${CHECK_FIXTURES}fault-server.py`];

/** What a `graphmind check` run gave. */
export interface CheckRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `graphmind check <args> -- <server>` (no debugger unless `args` name a port). */
export async function check(args: readonly string[], server: readonly string[] = [], env: Record<string, string> = {}): Promise<CheckRun> {
  const port = args.includes('--port') ? [] : NO_DEBUGGER;
  return runGraphmind(['check', ...port, ...args, ...(server.length > 0 ? ['--', ...server] : [])], env);
}

/** One finding of the JSON report. */
export interface JsonFinding {
  code: string;
  severity: string;
  message: string;
  check: string;
  fails: boolean;
  call?: { method: string; name?: string; id?: unknown; step?: number };
  frame?: { direction: string; seq: number; text: string };
  class?: string;
}

/** The JSON report. */
export interface JsonReport {
  ok: boolean;
  target: string;
  findings: JsonFinding[];
  checks: Array<{ name: string; group: string; ms: number }>;
  counts: { tools: number; resources: number; resourceTemplates: number; prompts: number };
  surfaceCost?: { bytes: number; tokens: number };
  durationMs: number;
  recordedRunId?: string;
}

/** `graphmind check --reporter json`, parsed. */
export async function checkJson(args: readonly string[], server: readonly string[], env: Record<string, string> = {}): Promise<CheckRun & { report: JsonReport }> {
  const run = await check(['--reporter', 'json', ...args], server, env);
  let report: JsonReport;
  try {
    report = JSON.parse(run.stdout) as JsonReport;
  } catch {
    throw new Error(`not a JSON report (exit ${run.code}): ${run.stdout}\n${run.stderr}`);
  }
  return { ...run, report };
}

/** Why `xml` is not well-formed XML (tags nest and close, attributes are quoted, entities known), or undefined. */
export function xmlProblem(xml: string): string | undefined {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const stack: string[] = [];
  const token = /<\/?([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|&(?!(?:lt|gt|amp|quot|apos|#\d+);)|<|>/g;
  let seenRoot = false;
  for (let match = token.exec(body); match !== null; match = token.exec(body)) {
    const [whole, name, , selfClosing] = match;
    if (name === undefined) return `a stray ${JSON.stringify(whole)} at ${match.index}`;
    if (whole.startsWith('</')) {
      if (stack.pop() !== name) return `</${name}> closes nothing open at ${match.index}`;
    } else if (selfClosing !== '/') {
      if (stack.length === 0 && seenRoot) return 'more than one root element';
      stack.push(name);
      seenRoot = true;
    } else if (stack.length === 0) return 'a root that is empty';
  }
  return stack.length === 0 ? undefined : `<${stack.join('>, <')}> never closed`;
}

/** The SARIF 2.1.0 schema's validator (the schema is draft-04: its root `id` read as `$id`). */
export function sarifValidator(): (value: unknown) => string | undefined {
  const schema = JSON.parse(readFileSync(`${CHECK_FIXTURES}sarif-schema-2.1.0.json`, 'utf8')) as Record<string, unknown>;
  const { $schema: _draft, id, ...rest } = schema;
  const ajv = new Ajv({ strict: false, allErrors: true });
  ajv.addFormat('uri', (text: string) => URL.canParse(text));
  ajv.addFormat('uri-reference', (text: string) => URL.canParse(text, 'file:///'));
  ajv.addFormat('date-time', (text: string) => !Number.isNaN(Date.parse(text)));
  const validate = ajv.compile({ ...rest, $id: id as string });
  return (value) => (validate(value) ? undefined : ajv.errorsText(validate.errors));
}
