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
import { compileToolSchema, schemaProblem } from './schemas.js';

/** Output validators by tool name, each compiled when a call first needs it (compiling 50 up front cost more than the rest of a check). */
export class OutputValidators {
  readonly #schemas = new Map<string, unknown>();
  readonly #compiled = new Map<string, ValidateFunction | undefined>();

  /** Keep `schema` for `tool`. */
  set(tool: string, schema: unknown): void {
    this.#schemas.set(tool, schema);
  }

  /** The validator of `tool`'s output schema, if it declares a valid one. */
  get(tool: string): ValidateFunction | undefined {
    if (this.#compiled.has(tool)) return this.#compiled.get(tool);
    const schema = this.#schemas.get(tool);
    const compiled = schema === undefined ? undefined : compileToolSchema(schema);
    const validate = compiled?.ok === true ? compiled.validate : undefined;
    this.#compiled.set(tool, validate);
    return validate;
  }
}

/** A tool's name as listed (or a placeholder for one without). */
export function toolName(tool: unknown, index: number): string {
  return isObject(tool) && typeof tool.name === 'string' ? tool.name : `#${index + 1}`;
}

/** Check every tool's schemas; the output validators by tool name. */
export function checkToolSchemas(context: CheckContext, tools: readonly unknown[]): OutputValidators {
  const outputs = new OutputValidators();
  tools.forEach((tool, index) => {
    const name = toolName(tool, index);
    const check = `schema ${name}`;
    const started = performance.now();
    const run = context.ran(check, 'schemas');
    const definition = isObject(tool) ? tool : {};
    const input = schemaProblem(definition.inputSchema);
    if (input !== undefined) context.report('schema-invalid', check, `tool ${JSON.stringify(name)}: inputSchema is not a valid object schema: ${input}`, { call: { method: 'tools/list', name } });
    if ('outputSchema' in definition) {
      const output = schemaProblem(definition.outputSchema);
      if (output !== undefined) context.report('schema-invalid', check, `tool ${JSON.stringify(name)}: outputSchema is not a valid object schema: ${output}`, { call: { method: 'tools/list', name } });
      else outputs.set(name, definition.outputSchema);
    }
    run.ms = Math.round(performance.now() - started);
  });
  return outputs;
}
