import { realpathSync } from 'node:fs';
import { DEFAULT_PORT } from '../report/config.js';
import { shellWord } from './shell-word.js';

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
 * the debugger's port when one other than the default (4747) was given
 * (`--port`).
 */
export function proxyRecipe(port = DEFAULT_PORT): string {
  const cli = cliPath();
  const flags = port === DEFAULT_PORT ? [] : ['--port', String(port)];
  const proxy = ['mcp-proxy', ...flags].join(' ');
  const config = {
    mcpServers: {
      'my-server-debug': {
        command: 'node',
        args: [cli, 'mcp-proxy', ...flags, '--', 'node', '/abs/path/to/your/server.js'],
      },
    },
  };
  const serve = port === DEFAULT_PORT ? '`graphmind`' : `\`graphmind serve --port ${port}\``;
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
    'With graphmind on your PATH (npm link in a checkout), "command": "graphmind" and drop the first path.',
    `Then run ${serve} in another terminal to watch and steer the session at http://127.0.0.1:${port}.`,
    'Check the wiring without a host: graphmind mcp-proxy --trace -- <command> prints one line per frame on stderr.',
    '',
  ].join('\n');
}
