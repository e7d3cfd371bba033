/**
 * A command's flags read without yargs, from the same table of options the
 * command gives yargs. Loading yargs is a good part of a command's start
 * (its modules, then building the parser), and `graphmind replay` and
 * `graphmind verify` are started by tests and hosts over and over with a
 * few plain flags. This reads only the plain forms and answers "not mine"
 * for everything else, so yargs still handles help, version, odd forms and
 * every error message, word for word.
 *
 * @module
 */

/** One flag, as the command declares it to yargs (`.option(name, option)`) and as it is read here. */
export interface FlagOption {
  /** Absent with `choices`: a string among them. */
  readonly type?: 'string' | 'number' | 'boolean';
  readonly choices?: readonly string[];
  readonly default?: string | number | boolean | readonly string[];
  readonly describe: string;
  /** A one-letter name (`-o`). */
  readonly alias?: string;
  /** Repeatable: each value is added to a list. */
  readonly array?: boolean;
  readonly requiresArg?: boolean;
}

/** A command's flags, by name, in the order its help lists them. */
export type FlagOptions = Readonly<Record<string, FlagOption>>;

/** A whole number as yargs reads one the same way (no sign, no leading zero, no exponent, safe). */
const WHOLE = /^(0|[1-9][0-9]{0,14})$/;
/** A positional that yargs reads as a number (yargs-parser's test): left to yargs. */
const NUMBERISH = /^0x[0-9a-f]+$|^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/i;

/** The value of `--name value` or `--name=value`, or undefined when it is missing or unusual (yargs strips quotes after `=`). */
function valueAt(args: readonly string[], i: number, equals: number): string | undefined {
  const arg = args[i] as string;
  const value = equals === -1 ? args[i + 1] : arg.slice(equals + 1);
  if (value === undefined || value === '' || value.startsWith('-')) return undefined;
  if (equals !== -1 && (value.startsWith('"') || value.startsWith("'"))) return undefined;
  return value;
}

/** The value `option` takes from `text`, or undefined when it is not one yargs would take as is. */
function typed(option: FlagOption, text: string): string | number | undefined {
  if (option.choices !== undefined) return option.choices.includes(text) ? text : undefined;
  if (option.type === 'number') return WHOLE.test(text) ? Number(text) : undefined;
  return text;
}

/** The flag an argument names (`--name`, `--name=…`, `--no-name` for a boolean, `-o`), with whether it is negated. */
function named(arg: string, options: FlagOptions): { name: string; negated: boolean; equals: number } | undefined {
  if (!arg.startsWith('--')) {
    const alias = Object.keys(options).find((name) => options[name]?.alias !== undefined && arg === `-${options[name]?.alias}`);
    return alias === undefined ? undefined : { name: alias, negated: false, equals: -1 };
  }
  const equals = arg.indexOf('=');
  const name = arg.slice(2, equals === -1 ? undefined : equals);
  if (Object.hasOwn(options, name)) return { name, negated: false, equals };
  const positive = name.startsWith('no-') ? name.slice(3) : '';
  if (equals === -1 && Object.hasOwn(options, positive) && options[positive]?.type === 'boolean') return { name: positive, negated: true, equals };
  return undefined;
}

/**
 * `args` read as `<positional> --flag value …` when every argument is in a
 * plain form: one positional (not number-like), `--name value`,
 * `--name=value` (a value neither empty nor starting with `-`; a number in
 * digits only; one of the choices), `--flag` / `--no-flag` for a boolean,
 * the one-letter alias, each flag once unless it is an array (whose value
 * must be followed by another flag or nothing: yargs would take more).
 * Defaults are filled in. Anything else, including `true` / `false`
 * anywhere (yargs may read them as a boolean's value), gives undefined:
 * the caller then parses with yargs.
 */
export function plainFlags(args: readonly string[], positional: string, options: FlagOptions): Record<string, unknown> | undefined {
  const flags: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === 'true' || arg === 'false') return undefined;
    if (!arg.startsWith('-')) {
      if (Object.hasOwn(flags, positional) || NUMBERISH.test(arg)) return undefined;
      flags[positional] = arg;
      continue;
    }
    const flag = named(arg, options);
    const option = flag === undefined ? undefined : options[flag.name];
    if (flag === undefined || option === undefined || (Object.hasOwn(flags, flag.name) && option.array !== true)) return undefined;
    if (option.type === 'boolean') {
      if (flag.equals !== -1) return undefined;
      flags[flag.name] = !flag.negated;
      continue;
    }
    const text = valueAt(args, i, flag.equals);
    const value = text === undefined ? undefined : typed(option, text);
    if (value === undefined) return undefined;
    if (flag.equals === -1) i++;
    if (option.array !== true) {
      flags[flag.name] = value;
      continue;
    }
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('-')) return undefined;
    flags[flag.name] = [...((flags[flag.name] as unknown[] | undefined) ?? []), value];
  }
  if (!Object.hasOwn(flags, positional)) return undefined;
  for (const [name, option] of Object.entries(options)) {
    if (Object.hasOwn(flags, name) || option.default === undefined) continue;
    flags[name] = Array.isArray(option.default) ? [...(option.default as readonly string[])] : option.default;
  }
  return flags;
}
