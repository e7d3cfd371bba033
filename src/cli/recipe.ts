import { realpathSync } from 'node:fs';
import { DEFAULT_PORT } from '../report/config.js';
import { shellWord } from '../protocol/shell-word.js';

function cliPath(): string {
  const script = process.argv[1] ?? 'graphmind';
  try {
    return realpathSync(script);
  } catch {
    return script;
  }
}

/**
 * What `graphmind mcp-proxy` prints when it is given no server command: a
 * recipe that works as pasted, with this installation's own path in it, and
 * the debugger's port and data directory when others than the defaults
 * were given (`--port`, `--data-dir`), as flags and, for host configs, as
 * the environment form too.
 */
export function proxyRecipe(port = DEFAULT_PORT, dataDir?: string): string {
  const cli = cliPath();
  const flags = [...(port === DEFAULT_PORT ? [] : ['--port', String(port)]), ...(dataDir === undefined ? [] : ['--data-dir', dataDir])];
  const proxy = ['mcp-proxy', ...flags.map(shellWord)].join(' ');
  const config = {
    mcpServers: {
      'my-server-debug': {
        command: 'node',
        args: [cli, 'mcp-proxy', ...flags, '--', 'node', '/abs/path/to/your/server.js'],
      },
    },
  };
  const serveFlags = flags.map(shellWord).join(' ');
  const serve = flags.length === 0 ? '`graphmind`' : `\`graphmind serve ${serveFlags}\``;
  const envForm =
    dataDir === undefined
      ? []
      : [
          'The data directory can be given as GRAPHMIND_DATA_DIR instead (hosts do not pass on your shell\'s environment: set it in the config):',
          '',
          `  claude mcp add my-server-debug -e GRAPHMIND_DATA_DIR=${shellWord(dataDir)} -- node ${shellWord(cli)} mcp-proxy${port === DEFAULT_PORT ? '' : ` --port ${port}`} -- node /abs/path/to/your/server.js`,
          `  "env": { "GRAPHMIND_DATA_DIR": ${JSON.stringify(dataDir)} }`,
          '',
        ];
  return [
    'graphmind mcp-proxy: no server command given. Put your MCP server\'s command after "--":',
    '',
    `  graphmind ${proxy} -- node /abs/path/to/your/server.js`,
    `  graphmind ${proxy} -- python3 -m your_server`,
    '',
    'Claude Code:',
    '',
    `  claude mcp add my-server-debug -- node ${shellWord(cli)} ${proxy} -- node /abs/path/to/your/server.js`,
    '',
    'Any MCP client config file (absolute paths: the host does not start it in your project directory):',
    '',
    ...JSON.stringify(config, null, 2).split('\n').map((line) => `  ${line}`),
    '',
    ...envForm,
    'With graphmind on your PATH (npm link in a checkout), "command": "graphmind" and drop the first path.',
    `Then run ${serve} in another terminal to watch and steer the session at http://127.0.0.1:${port}.`,
    'Check the wiring without a host: graphmind mcp-proxy --trace -- <command> prints one line per frame on stderr.',
    '',
  ].join('\n');
}
