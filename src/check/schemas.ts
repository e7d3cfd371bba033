/**
 * Tool schemas checked with a real validator (ajv): each `inputSchema` and
 * `outputSchema` must be a JSON Schema that compiles against its dialect's
 * meta-schema and whose `type` is `"object"` (what MCP requires, and what
 * strict hosts enforce); each `structuredContent` must match its tool's
 * `outputSchema`. The dialect is the schema's `$schema` (draft-07,
 * 2019-09, 2020-12); without one, 2020-12, MCP's default. Formats are not
 * checked (`format` is an annotation here), and unknown keywords are
 * allowed, as hosts allow them.
 *
 * @module
 */
import { Ajv, type ValidateFunction, type ErrorObject } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { isObject } from '../json/is-object.js';

type AnyAjv = Ajv | Ajv2019 | Ajv2020;

const OPTIONS = { strict: false, validateFormats: false, allErrors: false, addUsedSchema: false } as const;

/** One validator per dialect, made when first needed (making one costs milliseconds). */
const validators: { draft7?: Ajv; draft2019?: Ajv2019; draft2020?: Ajv2020 } = {};

function ajvFor(dialect: unknown): AnyAjv {
  const text = typeof dialect === 'string' ? dialect : '';
  if (/draft-0[67]\/schema/.test(text)) return (validators.draft7 ??= new Ajv(OPTIONS));
  if (text.includes('2019-09')) return (validators.draft2019 ??= new Ajv2019(OPTIONS));
  return (validators.draft2020 ??= new Ajv2020(OPTIONS));
}

/** Known dialects are left to ajv; an unknown `$schema` (draft-04…) is checked as 2020-12 without it. */
function knownDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const dialect = schema.$schema;
  if (dialect === undefined || (typeof dialect === 'string' && /draft-0[67]\/schema|2019-09|2020-12/.test(dialect))) return schema;
  const { $schema: _dropped, ...rest } = schema;
  return rest;
}

/** ajv's errors as one short phrase. */
export function errorsText(errors: readonly ErrorObject[] | null | undefined): string {
  if (errors === null || errors === undefined || errors.length === 0) return 'rejected';
  return errors
    .slice(0, 3)
    .map((error) => `${error.instancePath === '' ? '(root)' : error.instancePath} ${error.message ?? 'is invalid'}${error.params !== undefined && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`)
    .join('; ');
}

/** A schema compiled, or why it is not a valid object schema. */
export type CompiledSchema = { ok: true; validate: ValidateFunction } | { ok: false; reason: string };

/** Why `schema` is not a valid object schema, or undefined: checked against its dialect's meta-schema (cheap), and compiled only when it has a `$ref` to resolve (compiling costs milliseconds a schema). */
export function schemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return `it is ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : `a ${typeof schema}`}, not a JSON Schema object`;
  if (schema.type !== 'object') return `its "type" is ${schema.type === undefined ? 'missing' : JSON.stringify(schema.type)}, not "object"`;
  const ajv = ajvFor(schema.$schema);
  const known = knownDialect(schema);
  try {
    if (ajv.validateSchema(known) !== true) return `schema is invalid: ${errorsText(ajv.errors)}`;
    if (JSON.stringify(known).includes('"$ref"')) ajv.compile(known);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.length > 300 ? `${message.slice(0, 299)}…` : message;
  }
  return undefined;
}

/** Compile one tool schema (see the module). */
export function compileToolSchema(schema: unknown): CompiledSchema {
  const problem = schemaProblem(schema);
  if (problem !== undefined) return { ok: false, reason: problem };
  const object = schema as Record<string, unknown>;
  try {
    return { ok: true, validate: ajvFor(object.$schema).compile(knownDialect(object)) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: message.length > 300 ? `${message.slice(0, 299)}…` : message };
  }
}

/** Why a tool result does not match its output schema, or undefined when it does (or is an error, which is exempt). */
export function outputMismatch(result: unknown, validate: ValidateFunction): string | undefined {
  if (!isObject(result) || result.isError === true) return undefined;
  if (!('structuredContent' in result)) return 'the result has no structuredContent, and the tool declares an outputSchema';
  if (validate(result.structuredContent)) return undefined;
  return `structuredContent does not match the outputSchema: ${errorsText(validate.errors)}`;
}
