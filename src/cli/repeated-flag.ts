/** What {@link repeatedFlag} knows of a command's flags. */
export interface FlagSet {
  /** Each flag's other names, by its name (`{ output: ['o'] }`): both spellings count as one flag. */
  aliases?: Readonly<Record<string, readonly string[]>>;
  /** Flags documented as repeatable (array flags): given twice, they are not refused. */
  repeatable?: ReadonlySet<string>;
}

/** `dataDir` and `data-dir` are one flag to yargs: compare them as `data-dir`. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/**
 * The first flag given more than once in `args` (the command's own
 * arguments, before any `--`), as `--name`; `undefined` when none is.
 * `--x`, `--x=1`, `--no-x`, `--camelCase` and an alias are all the same
 * flag; a flag in `flags.repeatable` may come any number of times. Without
 * this, yargs turns a repeated string flag into an array (which then fails
 * far from the mistake) and lets a repeated boolean through silently.
 */
export function repeatedFlag(args: readonly string[], flags: FlagSet = {}): string | undefined {
  const canonical = new Map<string, string>();
  for (const [name, others] of Object.entries(flags.aliases ?? {})) {
    for (const other of others) canonical.set(kebab(other), kebab(name));
  }
  const seen = new Set<string>();
  for (const arg of args) {
    if (arg === '--') break;
    let name: string | undefined;
    if (arg.startsWith('--')) name = kebab(arg.slice(2).split('=', 1)[0] as string);
    else if (/^-[A-Za-z]/.test(arg)) name = arg.slice(1, 2);
    if (name === undefined || name === '') continue;
    if (!canonical.has(name) && name.startsWith('no-')) name = name.slice(3);
    name = canonical.get(name) ?? name;
    if (flags.repeatable?.has(name)) continue;
    if (seen.has(name)) return `--${name}`;
    seen.add(name);
  }
  return undefined;
}
