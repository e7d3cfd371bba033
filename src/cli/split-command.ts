/** Flags of `mcp-proxy` that take a value, for finding where the server's command starts. */
const VALUE_FLAGS = new Set(['--port', '--max-frame-bytes', '--data-dir', '--watch', '--lock']);

/**
 * Split `mcp-proxy`'s arguments into the proxy's own flags and the server's
 * command line. The command starts after `--` or, without one, at the first
 * argument that is not one of our flags; from there every argument is the
 * server's, untouched (never parsed, never converted to a number).
 */
export function splitServerCommand(args: readonly string[]): { ours: string[]; server: string[] } {
  const dashes = args.indexOf('--');
  if (dashes !== -1) return { ours: args.slice(0, dashes), server: args.slice(dashes + 1) };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) return { ours: args.slice(0, i), server: args.slice(i) };
    if (VALUE_FLAGS.has(arg)) i++;
  }
  return { ours: [...args], server: [] };
}
