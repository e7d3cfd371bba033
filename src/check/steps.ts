/**
 * A `--script` played: each step sent as a host sends it (`tools/call`,
 * `resources/read`, `prompts/get`), its answer checked (answer-checks.ts).
 * A step that names a tool, prompt or resource the server does not list is
 * an `unknown-entry` finding and is not sent.
 *
 * @module
 */
import type { OutputValidators } from './schema-checks.js';
import { isObject } from '../json/is-object.js';
import { checkAnswer, type ResultBudget } from './answer-checks.js';
import type { CheckContext } from './check-context.js';
import type { Listed } from './listing.js';
import type { ScriptStep } from './script.js';

/** Does `uri` match the RFC 6570 template `template` (its expressions matched loosely)? */
export function matchesTemplate(template: string, uri: string): boolean {
  const parts = template.split(/\{[^}]*\}/);
  const pattern = parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${pattern}$`, 's').test(uri);
}

function names(list: readonly unknown[], key: string): Set<string> {
  const out = new Set<string>();
  for (const item of list) if (isObject(item) && typeof item[key] === 'string') out.add(item[key]);
  return out;
}

/** What a step is: its method, the name it targets, its params and a title. */
function stepRequest(step: ScriptStep): { method: string; name: string; params: Record<string, unknown>; title: string } {
  if ('call' in step) return { method: 'tools/call', name: step.call, params: { name: step.call, arguments: step.arguments ?? {} }, title: `call ${step.call}` };
  if ('read' in step) return { method: 'resources/read', name: step.read, params: { uri: step.read }, title: `read ${step.read}` };
  return { method: 'prompts/get', name: step.prompt, params: { name: step.prompt, ...(step.arguments === undefined ? {} : { arguments: step.arguments }) }, title: `prompt ${step.prompt}` };
}

/** Why the server does not offer what `step` names, or undefined when it does. */
function unknownEntry(step: ScriptStep, listed: Listed): string | undefined {
  if ('call' in step) return names(listed.tools, 'name').has(step.call) ? undefined : `the server lists no tool ${JSON.stringify(step.call)}`;
  if ('prompt' in step) return names(listed.prompts, 'name').has(step.prompt) ? undefined : `the server lists no prompt ${JSON.stringify(step.prompt)}`;
  if (names(listed.resources, 'uri').has(step.read)) return undefined;
  for (const template of names(listed.resourceTemplates, 'uriTemplate')) if (matchesTemplate(template, step.read)) return undefined;
  return `the server lists no resource ${JSON.stringify(step.read)}, and no resource template matches it`;
}

/** Play the script (see the module). */
export async function playScript(context: CheckContext, steps: readonly ScriptStep[], listed: Listed, outputs: OutputValidators, budget: ResultBudget | undefined): Promise<void> {
  for (const [index, step] of steps.entries()) {
    const request = stepRequest(step);
    const check = `step ${index + 1}: ${request.title}`;
    const started = performance.now();
    const run = context.ran(check, 'script');
    const about = { name: request.name, step: index + 1 };
    const missing = unknownEntry(step, listed);
    if (missing !== undefined) {
      context.report('unknown-entry', check, `${missing}; the step was not sent`, { call: { method: request.method, ...about } });
      continue;
    }
    if (context.gone) continue; // the early-exit finding says why
    const asked = await context.ask(request.method, request.params, check, about);
    run.ms = Math.round(performance.now() - started);
    if (asked === undefined) continue;
    const output = 'call' in step ? outputs.get(step.call) : undefined;
    checkAnswer(context, check, { method: request.method, ...about, id: asked.message.id ?? null }, asked.message, {
      ...(step.expect === undefined ? {} : { expect: step.expect }),
      ...(output === undefined ? {} : { output }),
      ...(budget === undefined ? {} : { budget }),
    });
  }
}
