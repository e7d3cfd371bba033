/**
 * Tool arguments, declared once: each field gives both its JSON Schema (for
 * `tools/list`) and the check that reads it from a call, so the schema a
 * client sees and the rules the server applies cannot drift apart. A bad
 * argument is a `bad-argument` {@link ToolError} naming it.
 *
 * @module
 */
import { isObject } from '../json/is-object.js';
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import { ToolError } from './tool-error.js';

/** A JSON Schema, as a plain object. */
export type JsonSchema = { [key: string]: unknown };

/** One argument: its schema, whether it must be given, and how it is read. */
export interface Field<T> {
  readonly schema: JsonSchema;
  readonly required: boolean;
  /** Read the argument (undefined when absent); throws a {@link ToolError}. */
  read(value: unknown, name: string): T;
}

/** The values a set of fields reads. */
export type ArgsOf<F> = { [K in keyof F]: F[K] extends Field<infer T> ? T : never };

/** A tool's arguments: their JSON Schema and their parser. */
export interface ArgsSpec<A> {
  /** `{ type: 'object', properties, required?, additionalProperties: false }`. */
  readonly schema: JsonSchema;
  /** Read a call's `arguments`; throws a `bad-argument` {@link ToolError}. */
  parse(raw: unknown): A;
}

function bad(message: string): ToolError {
  return new ToolError('bad-argument', message);
}

/** Declare a tool's arguments. Unknown arguments are refused, by name. */
export function argsOf<F extends Record<string, Field<unknown>>>(fields: F): ArgsSpec<ArgsOf<F>> {
  const names = Object.keys(fields);
  const required = names.filter((name) => (fields[name] as Field<unknown>).required);
  const schema: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(names.map((name) => [name, (fields[name] as Field<unknown>).schema])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
  return {
    schema,
    parse(raw) {
      const given = raw === undefined || raw === null ? {} : raw;
      if (!isObject(given)) throw bad('arguments must be an object');
      const record = given;
      for (const key of Object.keys(record)) {
        if (!Object.hasOwn(fields, key)) {
          throw bad(`unknown argument "${key.slice(0, 64)}"; this tool takes ${names.length === 0 ? 'none' : names.join(', ')}`);
        }
      }
      const out: Record<string, unknown> = {};
      for (const name of names) {
        const value = record[name];
        if (value === undefined && (fields[name] as Field<unknown>).required) throw bad(`${name} is required`);
        out[name] = (fields[name] as Field<unknown>).read(value, name);
      }
      return out as ArgsOf<F>;
    },
  };
}

/** Options of a text field. */
export interface TextOptions {
  description: string;
  /** The text must match (checked before anything is looked up). */
  pattern?: RegExp;
  /** What the pattern means, for the error. */
  patternHint?: string;
  /** @default 1000 */
  maxLength?: number;
  /** Must not be empty. @default true */
  nonEmpty?: boolean;
}

/** A required text. */
export function text(options: TextOptions): Field<string> {
  const maxLength = options.maxLength ?? 1_000;
  const schema: JsonSchema = { type: 'string', description: options.description, maxLength };
  if (options.nonEmpty ?? true) schema.minLength = 1;
  if (options.pattern !== undefined) schema.pattern = options.pattern.source;
  return {
    schema,
    required: true,
    read(value, name) {
      if (typeof value !== 'string') throw bad(`${name} must be a string`);
      if ((options.nonEmpty ?? true) && value.length === 0) throw bad(`${name} must not be empty`);
      if (value.length > maxLength) throw bad(`${name} is longer than ${maxLength} characters`);
      if (options.pattern !== undefined && !options.pattern.test(value)) {
        throw bad(`${name} "${value.slice(0, 80)}" is not ${options.patternHint ?? `of the form ${options.pattern.source}`}`);
      }
      return value;
    },
  };
}

/**
 * A run id: checked against `^[A-Za-z0-9_-]{1,64}$` before any file is
 * touched. Any malformed id (empty, too long, of other characters, not a
 * string) is a `bad-run-id` {@link ToolError}.
 */
export function runId(description = 'The run id (runId), as list_runs or find_problems gives it.'): Field<string> {
  return {
    schema: { type: 'string', description, pattern: RUN_ID_PATTERN.source, minLength: 1, maxLength: 64 },
    required: true,
    read(value, name) {
      if (typeof value === 'string' && RUN_ID_PATTERN.test(value)) return value;
      const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 80)) : `of type ${value === null ? 'null' : typeof value}`;
      throw new ToolError('bad-run-id', `${name} ${shown} is not a run id (1 to 64 letters, digits, _ or -)`);
    },
  };
}

/** A required choice among `values`. */
export function oneOf<const V extends string>(values: readonly V[], description: string): Field<V> {
  return {
    schema: { type: 'string', enum: [...values], description },
    required: true,
    read(value, name) {
      if (typeof value !== 'string' || !(values as readonly string[]).includes(value)) throw bad(`${name} must be one of ${values.join(', ')}`);
      return value as V;
    },
  };
}

/** Options of an integer field. */
export interface IntegerOptions {
  description: string;
  minimum: number;
  maximum: number;
  /** Used when the argument is absent. */
  default: number;
}

/** An optional whole number in a range, with a default. */
export function integer(options: IntegerOptions): Field<number> {
  return {
    schema: { type: 'integer', minimum: options.minimum, maximum: options.maximum, default: options.default, description: options.description },
    required: false,
    read(value, name) {
      if (value === undefined) return options.default;
      if (typeof value !== 'number' || !Number.isInteger(value)) throw bad(`${name} must be a whole number`);
      if (value < options.minimum || value > options.maximum) throw bad(`${name} must be between ${options.minimum} and ${options.maximum}`);
      return value;
    },
  };
}

/** A required true or false. */
export function flag(description: string): Field<boolean> {
  return {
    schema: { type: 'boolean', description },
    required: true,
    read(value, name) {
      if (typeof value !== 'boolean') throw bad(`${name} must be true or false`);
      return value;
    },
  };
}

/** Any JSON value (absent stays undefined). */
export function anyValue(description: string): Field<unknown> {
  return {
    schema: { description },
    required: true,
    read: (value) => value,
  };
}

/** The field made optional: absent reads as undefined. */
export function optional<T>(field: Field<T>): Field<T | undefined> {
  return {
    schema: field.schema,
    required: false,
    read: (value, name) => (value === undefined ? undefined : field.read(value, name)),
  };
}

/** A page size: 1 to `maxRows`, `defaultRows` when absent. */
export function limit(defaultRows: number, maxRows: number, what = 'rows'): Field<number> {
  return integer({ description: `How many ${what} to return at most (default ${defaultRows}).`, minimum: 1, maximum: maxRows, default: defaultRows });
}

/** A cursor: the nextCursor of an earlier page, passed back as it came. */
export function cursor(): Field<string | undefined> {
  return optional(text({ description: 'The nextCursor of the previous page, exactly as given; leave it out for the first page. The other arguments must be the same.', maxLength: 1_000 }));
}
