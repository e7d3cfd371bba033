// What a first-time user sees before any run: how to put the proxy between
// their MCP host and their server.
import { shellWord } from '../cli/shell-word.js';
import { el } from './dom.js';

function code(text: string): HTMLElement {
  return el('pre', { class: 'recipe-code' }, el('code', { text }));
}

/**
 * The CLI of the installation serving this page, as the server wrote it
 * into the page: the package is run from a checkout until it is published,
 * so the recipe names the file rather than `npx graphmind-ai`.
 */
function cliPath(): string {
  const meta = document.querySelector('meta[name="graphmind-cli"]')?.getAttribute('content');
  return meta !== null && meta !== undefined && meta !== '' ? meta : '/abs/path/to/graphmind-ai/dist/cli/graphmind.js';
}

/** The empty state, with the proxy recipe. */
export function emptyState(): HTMLElement {
  const port = location.port === '' || location.port === '4747' ? '' : ` --port ${location.port}`;
  const cli = cliPath();
  // A path with a space in it is quoted for the shell lines.
  const proxy = `node ${shellWord(cli)} mcp-proxy${port}`;
  const config = JSON.stringify(
    {
      mcpServers: {
        'my-server': {
          command: 'node',
          args: [cli, 'mcp-proxy', ...(port === '' ? [] : ['--port', location.port]), '--', 'node', '/abs/path/build/server.js'],
        },
      },
    },
    null,
    2,
  ).replace(/\[\s+([^\]]*?)\s+\]/, (_m, items: string) => `[${items.split(/,\s+/).join(', ')}]`);
  return el(
    'section',
    { class: 'empty-state', attrs: { 'aria-label': 'getting started' } },
    el('h2', { text: 'No runs yet' }),
    el('p', { text: 'The debugger is running. Put the proxy in front of your MCP server, and every session shows up here live: the handshake, the listings, then a node per request.' }),
    el('ol', { class: 'recipe' },
      el('li', {},
        el('strong', { text: 'Wrap your server command. ' }),
        'Whatever command your host runs today, put the proxy in front of it:',
        code(`# before\nnode build/server.js\n\n# after\n${proxy} -- node build/server.js`),
      ),
      el('li', {},
        el('strong', { text: 'Point your host at the proxy. ' }),
        'Claude Code:',
        code(`claude mcp add my-server -- ${proxy} -- node /abs/path/build/server.js`),
        'Or in a config file (use absolute paths: the host does not start it in your project directory):',
        code(config),
      ),
      el('li', {},
        el('strong', { text: 'Ask your assistant the question that goes wrong. ' }),
        'The session appears here as it happens. Click a node to see its calls; set a breakpoint to hold the next one.',
      ),
    ),
    el('p', { class: 'muted' }, 'With ', el('code', { text: 'graphmind' }), ' on your PATH (', el('code', { text: 'npm link' }), ' in the checkout), ', el('code', { text: `graphmind mcp-proxy${port} -- …` }), ' does the same; once the package is on npm, so will ', el('code', { text: `npx graphmind-ai mcp-proxy${port} -- …` }), '.'),
    el('p', { class: 'muted' }, 'No host handy? ', el('code', { text: `${proxy} --trace -- <command>` }), ' prints one line per frame on stderr. To try it on a server you did not write:'),
    code(`claude mcp add everything-debug -- ${proxy} -- npx -y @modelcontextprotocol/server-everything`),
  );
}
