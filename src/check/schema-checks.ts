/**
 * `schema-invalid`: each listed tool's `inputSchema` (required) and
 * `outputSchema` (when declared) compiled with ajv (schemas.ts); the
 * output validators are kept for the calls that follow.
 *
 * @module
 */
import type { ValidateFunction } from 'ajv';
import { isObject } from '../json/is-object.js';
import type { CheckContext } from './check-context.js';
import { compileToolSchema } from './schemas.js';

/** A tool's name as listed (or a placeholder for one without). */
export function toolName(tool: unknown, index: number): string {
  return isObject(tool) && typeof tool.name === 'string' ? tool.name : `#${index + 1}`;
}

/** Check every tool's schemas; the output validators by tool name. */
export function checkToolSchemas(context: CheckContext, tools: readonly unknown[]): Map<string, ValidateFunction> {
  const outputs = new Map<string, ValidateFunction>();
  tools.forEach((tool, index) => {
    const name = toolName(tool, index);
    const check = `schema ${name}`;
    const started = performance.now();
    const run = context.ran(check, 'schemas');
    const definition = isObject(tool) ? tool : {};
    const input = compileToolSchema(definition.inputSchema);
    if (!input.ok) context.report('schema-invalid', check, `tool ${JSON.stringify(name)}: inputSchema is not a valid object schema: ${input.reason}`, { call: { method: 'tools/list', name } });
    if ('outputSchema' in definition) {
      const output = compileToolSchema(definition.outputSchema);
      if (!output.ok) context.report('schema-invalid', check, `tool ${JSON.stringify(name)}: outputSchema is not a valid object schema: ${output.reason}`, { call: { method: 'tools/list', name } });
      else outputs.set(name, output.validate);
    }
    run.ms = Math.round(performance.now() - started);
  });
  return outputs;
}
