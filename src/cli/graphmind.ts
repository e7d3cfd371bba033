#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT_USAGE, proxyFlags, runProxyCommand, type ProxyFlags } from './mcp-proxy-command.js';
import { runServeCommand, serveFlags, type ServeFlags } from './serve-command.js';
import { splitServerCommand } from './split-command.js';

const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const argv = hideBin(process.argv);

/** Print one plain line on stderr and exit: never a stack trace. */
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(EXIT_USAGE);
}

async function main(): Promise<void> {
  if (argv[0] === 'mcp-proxy') {
    // The server's command line is everything after `--` and is never
    // handed to the parser, so its flags and numbers arrive untouched.
    const { ours, server } = splitServerCommand(argv.slice(1));
    const flags = await proxyFlags(yargs(ours))
      .scriptName('graphmind')
      .version(version)
      .help()
      .strict()
      .fail((message, error) => fail(`graphmind mcp-proxy: ${message ?? error?.message}`))
      .parseAsync();
    await runProxyCommand(flags as unknown as ProxyFlags, server);
    return;
  }
  await yargs(argv)
    .scriptName('graphmind')
    .version(version)
    .command('mcp-proxy', 'Relay an MCP server over stdio and report it to the debugger (graphmind mcp-proxy -- <command>)')
    .command(['serve', '$0'], 'Start the debugger on 127.0.0.1:4747 (the default command)', serveFlags, (flags) =>
      runServeCommand(flags as unknown as ServeFlags, version),
    )
    .help()
    .strict()
    .fail((message, error) => fail(`graphmind: ${message ?? error?.message}`))
    .parseAsync();
}

main().catch((error: unknown) => fail(`graphmind: ${error instanceof Error ? error.message : String(error)}`));
