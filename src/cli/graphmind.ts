#!/usr/bin/env node
// Only small modules are loaded up front. An MCP host starts `mcp-proxy` once
// per server, so that path reads its usual flags without yargs and never
// loads the debugger's server; yargs and the serve command are loaded only
// when they are needed, and the MCP SDK only by `mcp`. `replay` and `verify`
// (started by tests over and over) read their plain flags without yargs too.
import { readFileSync } from 'node:fs';
import type { HttpProxyFlags } from './http-proxy-command.js';
import type { ExportFlags } from './export-command.js';
import type { ImportFlags } from './import-command.js';
import type { McpFlags } from './mcp-command.js';
import type { ReplayFlags } from './replay-command.js';
import type { VerifyFlags } from './verify-command.js';
import type { CheckFlags } from './check-command.js';
import { EXIT_USAGE, parseProxyFlags, type ProxyFlags } from './proxy-flags.js';
import type { ServeFlags } from './serve-command.js';
import { repeatedFlag } from './repeated-flag.js';
import { splitServerCommand } from './split-command.js';

// The arguments after `node graphmind.js`: what yargs' hideBin gives under
// Node, without loading yargs to get it.
const argv = process.argv.slice(2);

function readVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** Print one plain line on stderr and exit: never a stack trace. */
function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(EXIT_USAGE);
}

/** Parse `mcp-proxy`'s own flags with yargs: help, version, unusual forms and their error messages. */
async function parseProxyFlagsWithYargs(ours: string[]): Promise<ProxyFlags> {
  const [{ default: yargs }, { proxyFlags }] = await Promise.all([import('yargs'), import('./mcp-proxy-command.js')]);
  const flags = await proxyFlags(yargs(ours))
    .scriptName('graphmind')
    .version(readVersion())
    .help()
    .strict()
    .fail((message, error) => fail(`graphmind mcp-proxy: ${message ?? error?.message}`))
    .parseAsync();
  return flags as unknown as ProxyFlags;
}

/** The flags of ours that may come more than once, and the short names of others. */
const FLAG_SET = { aliases: { output: ['o'] }, repeatable: new Set(['otlp-header', 'ignore', 'redact']) };

/** Refuse a flag given twice, naming it, before any parser turns it into an array or lets it pass. */
function refuseRepeated(command: string | undefined): void {
  const twice = repeatedFlag(command === undefined ? argv : argv.slice(1), FLAG_SET);
  const name = command === undefined || command === 'serve' ? 'graphmind' : `graphmind ${command}`;
  if (twice !== undefined) fail(`${name}: ${twice} was given more than once; give each flag once`);
}

/** The commands named by a first argument (anything else is `serve`'s flags). */
const COMMANDS = ['mcp-proxy', 'http-proxy', 'mcp', 'export', 'import', 'replay', 'verify', 'check', 'serve'];

/** `graphmind mcp`: its flags with yargs, then the command. */
async function mcp(): Promise<void> {
  const [{ default: yargs }, { mcpFlags, runMcpCommand }] = await Promise.all([import('yargs'), import('./mcp-command.js')]);
  const version = readVersion();
  const flags = await mcpFlags(yargs(argv.slice(1)))
    .scriptName('graphmind mcp')
    .version(version)
    .help()
    .strict()
    .fail((message, error) => fail(`graphmind mcp: ${message ?? error?.message}`))
    .parseAsync();
  await runMcpCommand(flags as unknown as McpFlags, version);
}

/** `graphmind replay <run>`: its flags (plain ones without yargs: a replay starts sooner), then the command. */
async function replay(): Promise<void> {
  const command = await import('./replay-command.js');
  const flags = command.plainReplayFlags(argv.slice(1)) ?? (await replayWithYargs(command.replayFlags));
  await command.runReplayCommand(flags);
}

/** `replay`'s flags with yargs: help, version, unusual forms and their error messages. */
async function replayWithYargs(replayFlags: typeof import('./replay-command.js').replayFlags): Promise<ReplayFlags> {
  const { default: yargs } = await import('yargs');
  const flags = await yargs(argv.slice(1))
    .scriptName('graphmind replay')
    .command('$0 <run>', 'Serve a recorded run as the MCP server it recorded, without that server (stdio, or --http <port>)', replayFlags)
    .version(readVersion())
    .help()
    .strict()
    .fail((message, error) => fail(`graphmind replay: ${message ?? error?.message}`))
    .parseAsync();
  return flags as unknown as ReplayFlags;
}

/** `graphmind verify <run> -- <server command…>`: its flags (plain ones without yargs; the server's command is never parsed), then the command. */
async function verify(): Promise<void> {
  const command = await import('./verify-command.js');
  const rest = argv.slice(1);
  const dashes = rest.indexOf('--');
  const ours = dashes === -1 ? rest : rest.slice(0, dashes);
  const server = dashes === -1 ? [] : rest.slice(dashes + 1);
  const flags = command.plainVerifyFlags(ours) ?? (await verifyWithYargs(ours, command.verifyFlags));
  await command.runVerifyCommand(flags, server);
}

/** `verify`'s own flags with yargs: help, version, unusual forms and their error messages. */
async function verifyWithYargs(ours: string[], verifyFlags: typeof import('./verify-command.js').verifyFlags): Promise<VerifyFlags> {
  const { default: yargs } = await import('yargs');
  const flags = await yargs(ours)
    .scriptName('graphmind verify')
    .command('$0 <run>', 'Play a recorded run against a server and compare its answers with the recorded ones (graphmind verify <run> -- <server command…>, or --url <http url>)', verifyFlags)
    .version(readVersion())
    .help()
    .strict()
    .fail((message, error) => fail(`graphmind verify: ${message ?? error?.message}`))
    .parseAsync();
  return flags as unknown as VerifyFlags;
}

/** `graphmind check [options] -- <server command…>`: its flags with yargs (the server's command is never parsed), then the command. */
async function check(): Promise<void> {
  const rest = argv.slice(1);
  const dashes = rest.indexOf('--');
  const ours = dashes === -1 ? rest : rest.slice(0, dashes);
  const server = dashes === -1 ? [] : rest.slice(dashes + 1);
  const [{ default: yargs }, command] = await Promise.all([import('yargs'), import('./check-command.js')]);
  const version = readVersion();
  const flags = await command
    .checkFlags(yargs(ours).scriptName('graphmind check').usage('$0 [options] -- <server command…>   (or --url <http url>)'))
    .version(version)
    .help()
    .strict()
    .fail((message, error) => fail(`graphmind check: ${message ?? error?.message}`))
    .parseAsync();
  await command.runCheckCommand(flags as unknown as CheckFlags, server, version);
}

async function main(): Promise<void> {
  refuseRepeated(COMMANDS.includes(argv[0] ?? '') ? argv[0] : undefined);
  if (argv[0] === 'mcp-proxy') {
    // The server's command line is everything after `--` and is never
    // handed to the parser, so its flags and numbers arrive untouched.
    const { ours, server } = splitServerCommand(argv.slice(1));
    // The flags a host config passes are read here; anything else goes to yargs.
    const fast = parseProxyFlags(ours);
    if (fast?.problem !== undefined) fail(`graphmind mcp-proxy: ${fast.problem}`);
    const flags = fast?.flags ?? (await parseProxyFlagsWithYargs(ours));
    const { runProxyCommand } = await import('./mcp-proxy-command.js');
    await runProxyCommand(flags, server);
    return;
  }
  if (argv[0] === 'http-proxy') {
    const [{ default: yargs }, { httpProxyFlags, runHttpProxyCommand }] = await Promise.all([import('yargs'), import('./http-proxy-command.js')]);
    const flags = await httpProxyFlags(yargs(argv.slice(1)))
      .scriptName('graphmind')
      .version(readVersion())
      .help()
      .strict()
      .fail((message, error) => fail(`graphmind http-proxy: ${message ?? error?.message}`))
      .parseAsync();
    await runHttpProxyCommand(flags as unknown as HttpProxyFlags);
    return;
  }
  if (argv[0] === 'mcp') return mcp();
  if (argv[0] === 'replay') return replay();
  if (argv[0] === 'verify') return verify();
  if (argv[0] === 'check') return check();
  if (argv[0] === 'surface') return (await import('./surface-command.js')).runSurfaceCommand(argv.slice(1), readVersion());
  if (argv[0] === 'export' || argv[0] === 'import') {
    const name = argv[0];
    const [{ default: yargs }, exporting, importing] = await Promise.all([
      import('yargs'),
      name === 'export' ? import('./export-command.js') : undefined,
      name === 'import' ? import('./import-command.js') : undefined,
    ]);
    const version = readVersion();
    const parser = yargs(importing?.importArguments(argv.slice(1)) ?? argv.slice(1)).scriptName(`graphmind ${name}`);
    const commanded =
      exporting !== undefined
        ? parser.command('$0 <runId>', 'Write a recorded run as its JSONL log (what graphmind import loads), a HAR file, an OTLP/JSON trace or an mcp-recorder cassette', exporting.exportFlags)
        : parser.command('$0 <file>', 'Load a run log (graphmind export --format jsonl) into the viewer', (importing as typeof import('./import-command.js')).importFlags);
    const flags = await commanded
      .version(version)
      .help()
      .strict()
      .fail((message, error) => fail(`graphmind ${name}: ${message ?? error?.message}`))
      .parseAsync();
    if (exporting !== undefined) await exporting.runExportCommand(flags as unknown as ExportFlags, version);
    else await (importing as typeof import('./import-command.js')).runImportCommand(flags as unknown as ImportFlags);
    return;
  }
  const [{ default: yargs }, { runServeCommand, serveFlags }] = await Promise.all([import('yargs'), import('./serve-command.js')]);
  const version = readVersion();
  await yargs(argv)
    .scriptName('graphmind')
    .version(version)
    .command('mcp-proxy', 'Relay an MCP server over stdio and report it to the debugger (graphmind mcp-proxy -- <command>)')
    .command('http-proxy', 'Relay a Streamable HTTP MCP server and report it to the debugger (graphmind http-proxy --upstream <url>)')
    .command('mcp', 'Serve the recorded runs to an assistant as an MCP server over stdio (graphmind mcp --help)')
    .command('export', 'Write a recorded run to a file: JSONL, HAR, OTLP/JSON or an mcp-recorder cassette (graphmind export --help)')
    .command('import', 'Load a run log someone sent you into the viewer (graphmind import --help)')
    .command('replay', 'Serve a recorded run as a mock MCP server, without the real one (graphmind replay --help)')
    .command('verify', 'Play a recorded run against a new version of the server and show what answers differently (graphmind verify --help)')
    .command('check', 'Check an MCP server for what breaks hosts: stdout noise, bad frames, schemas, drift from a lock, token budgets (graphmind check --help)')
    .command('surface', "Write a server's tool surface as a lock file, or class the changes between two (graphmind surface --help)")
    .command(['serve', '$0'], 'Start the debugger on 127.0.0.1:4747 (the default command)', serveFlags, (flags) =>
      runServeCommand(flags as unknown as ServeFlags, version),
    )
    .help()
    .strict()
    .fail((message, error) => fail(`graphmind: ${message ?? error?.message}`))
    .parseAsync();
}

main().catch((error: unknown) => fail(`graphmind: ${error instanceof Error ? error.message : String(error)}`));
