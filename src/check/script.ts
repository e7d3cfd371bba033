/**
 * A `--script`: a JSON array (or YAML, by the file's `.yaml`/`.yml`
 * ending) of steps, each a tool call, a resource read or a prompt get, with
 * what it should give. Read and checked before the server starts, so a bad
 * script is one line and exit 2, not a half-run check. Pure but for the
 * read.
 *
 * @module
 */
import { readFileSync } from 'node:fs';
import { isObject } from '../json/is-object.js';

/** What a step should give. */
export interface StepExpect {
  /** The call should fail (`true`) or succeed (`false`, the default). */
  isError?: boolean;
  /** Text the answer should contain (its text content, and structuredContent as JSON). */
  text?: string;
}

/** One step of a script. */
export type ScriptStep =
  | { call: string; arguments?: Record<string, unknown>; expect?: StepExpect }
  | { read: string; expect?: StepExpect }
  | { prompt: string; arguments?: Record<string, unknown>; expect?: StepExpect };

/** Why step `index` (from 0) is not a step, or undefined. */
function stepProblem(step: unknown, index: number): string | undefined {
  const at = `step ${index + 1}`;
  if (!isObject(step)) return `${at} is not an object`;
  const kinds = ['call', 'read', 'prompt'].filter((key) => key in step);
  if (kinds.length !== 1) return `${at} needs exactly one of "call", "read" or "prompt"`;
  const kind = kinds[0] as string;
  if (typeof step[kind] !== 'string' || step[kind] === '') return `${at}: "${kind}" must be a non-empty string`;
  if ('arguments' in step && (kind === 'read' || !isObject(step.arguments))) return `${at}: "arguments" ${kind === 'read' ? 'does not go with "read"' : 'must be an object'}`;
  for (const key of Object.keys(step)) if (![kind, 'arguments', 'expect'].includes(key)) return `${at}: unknown key ${JSON.stringify(key)} (a step has "${kind}", "arguments" and "expect")`;
  if (!('expect' in step)) return undefined;
  const expect = step.expect;
  if (!isObject(expect)) return `${at}: "expect" must be an object`;
  for (const key of Object.keys(expect)) if (key !== 'isError' && key !== 'text') return `${at}: unknown key ${JSON.stringify(key)} in "expect" (it takes "isError" and "text")`;
  if ('isError' in expect && typeof expect.isError !== 'boolean') return `${at}: "expect.isError" must be true or false`;
  if ('text' in expect && typeof expect.text !== 'string') return `${at}: "expect.text" must be a string`;
  return undefined;
}

/** Read a script's text (see the module); `yaml` for a YAML file. */
export async function parseScript(text: string, yaml: boolean): Promise<{ ok: true; steps: ScriptStep[] } | { ok: false; reason: string }> {
  let value: unknown;
  try {
    value = yaml ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0] as string;
    return { ok: false, reason: `not ${yaml ? 'YAML' : 'JSON'}: ${message}` };
  }
  if (!Array.isArray(value)) return { ok: false, reason: 'a script is an array of steps ([{ "call": "search", "arguments": { … } }, …])' };
  for (let i = 0; i < value.length; i++) {
    const problem = stepProblem(value[i], i);
    if (problem !== undefined) return { ok: false, reason: problem };
  }
  return { ok: true, steps: value as ScriptStep[] };
}

/** Read the script file `path`, or say in one line why not. */
export async function loadScript(path: string): Promise<{ ok: true; steps: ScriptStep[] } | { ok: false; reason: string }> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { ok: false, reason: `cannot read --script ${path}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const parsed = await parseScript(text, /\.ya?ml$/i.test(path));
  return parsed.ok ? parsed : { ok: false, reason: `--script ${path}: ${parsed.reason}` };
}
