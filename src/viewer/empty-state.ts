// What a first-time user sees before any run: how to put the proxy between
// their MCP host and their server, with what this server needs said in the
// lines themselves (its port when not 4747, its data directory when not the
// default: a proxy needs both to find it and its token). Each block can be
// copied whole. Mirrors the text recipe of `graphmind mcp-proxy` (src/cli/recipe.ts).
import { shellWord } from '../protocol/shell-word.js';
import { button, el, setAttr } from './dom.js';
import { copyText } from './json-view.js';

/** The port `graphmind serve` listens on unless told otherwise. */
const DEFAULT_PORT = '4747';

/** A recipe block: the text, wrapped, with a button that copies it exactly. */
function code(text: string, what: string): HTMLElement {
  const copy = button('Copy', () => {
    void copyText(text).then((ok) => {
      copy.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (copy.textContent = 'Copy'), 1200);
    });
  }, 'btn small copy recipe-copy', `Copy ${what}`);
  setAttr(copy, 'aria-label', `Copy ${what}`);
  return el('div', { class: 'recipe-block' }, el('pre', { class: 'recipe-code' }, el('code', { text })), copy);
}

/** A `<meta>` the server wrote into the page, or undefined. */
function meta(name: string): string | undefined {
  const value = document.querySelector(`meta[name="${name}"]`)?.getAttribute('content');
  return value === null || value === undefined || value === '' ? undefined : value;
}

/**
 * The CLI of the installation serving this page, as the server wrote it
 * into the page: the package is run from a checkout until it is published,
 * so the recipe names the file rather than `npx graphmind-ai`.
 */
function cliPath(): string {
  return meta('graphmind-cli') ?? '/abs/path/to/graphmind-ai/dist/cli/graphmind.js';
}

/** What this server needs a proxy to be told, as the server wrote it into the page. */
export interface ServerPlace {
  /** The port, when it is not 4747. */
  port?: string;
  /** The data directory, when it is not the default (`~/.graphmind`). */
  dataDir?: string;
}

/** This server's port (when not the default) and data directory (when not the default). */
export function serverPlace(): ServerPlace {
  const port = meta('graphmind-port') ?? location.port;
  const dataDir = meta('graphmind-data-dir');
  const place: ServerPlace = {};
  if (port !== '' && port !== DEFAULT_PORT) place.port = port;
  if (dataDir !== undefined) place.dataDir = dataDir;
  return place;
}

/** `--port 5000 --data-dir /tmp/gm`: the proxy's flags for this server, as argv words. */
export function proxyFlags(place: ServerPlace): string[] {
  return [...(place.port === undefined ? [] : ['--port', place.port]), ...(place.dataDir === undefined ? [] : ['--data-dir', place.dataDir])];
}

/** A host config entry that starts the proxy (with `env`, the data directory as GRAPHMIND_DATA_DIR instead of a flag). */
function configEntry(cli: string, flags: readonly string[], env?: Record<string, string>): string {
  const entry: Record<string, unknown> = { command: 'node', args: [cli, 'mcp-proxy', ...flags, '--', 'node', '/abs/path/build/server.js'] };
  if (env !== undefined) entry.env = env;
  return JSON.stringify({ mcpServers: { 'my-server': entry } }, null, 2).replace(/\[\s+([^\]]*?)\s+\]/, (_m, items: string) => `[${items.split(/,\s+/).join(', ')}]`);
}

/** The empty state, with the proxy recipe. */
export function emptyState(): HTMLElement {
  const place = serverPlace();
  const flags = proxyFlags(place);
  const shellFlags = flags.map(shellWord).join(' ');
  const flagText = shellFlags === '' ? '' : ` ${shellFlags}`;
  const cli = cliPath();
  // A path with a space in it is quoted for the shell lines.
  const proxy = `node ${shellWord(cli)} mcp-proxy${flagText}`;
  const needs: Array<HTMLElement | string> = [];
  if (place.port !== undefined) needs.push(el('code', { text: `--port ${place.port}` }));
  if (place.dataDir !== undefined) needs.push(el('code', { text: `--data-dir ${shellWord(place.dataDir)}` }));
  const envForm =
    place.dataDir === undefined
      ? []
      : [
          el('p', {}, 'Or give the data directory as ', el('code', { text: 'GRAPHMIND_DATA_DIR' }), ' in the host’s config (hosts do not pass on your shell’s environment):'),
          code(`claude mcp add my-server -e GRAPHMIND_DATA_DIR=${shellWord(place.dataDir)} -- node ${shellWord(cli)} mcp-proxy${place.port === undefined ? '' : ` --port ${place.port}`} -- node /abs/path/build/server.js`, 'the claude mcp add line with -e'),
          code(configEntry(cli, place.port === undefined ? [] : ['--port', place.port], { GRAPHMIND_DATA_DIR: place.dataDir }), 'the config entry with env'),
        ];
  return el(
    'section',
    { class: 'empty-state', attrs: { 'aria-label': 'getting started' } },
    el('h2', { text: 'No runs yet' }),
    el('p', { text: 'The debugger is running. Put the proxy in front of your MCP server, and every session shows up here live: the handshake, the listings, then a node per request.' }),
    needs.length === 0
      ? null
      : el('p', { class: 'recipe-needs' }, 'This debugger runs with ', ...needs.flatMap((part, i) => (i === 0 ? [part] : [' and ', part])), ': the lines below pass the same to the proxy, so that it finds it and its token.'),
    el('ol', { class: 'recipe' },
      el('li', {},
        el('strong', { text: 'Wrap your server command. ' }),
        'Whatever command your host runs today, put the proxy in front of it:',
        code(`# before\nnode build/server.js\n\n# after\n${proxy} -- node build/server.js`, 'the wrapped command'),
      ),
      el('li', {},
        el('strong', { text: 'Point your host at the proxy. ' }),
        'Claude Code:',
        code(`claude mcp add my-server -- ${proxy} -- node /abs/path/build/server.js`, 'the claude mcp add line'),
        'Or in a config file (use absolute paths: the host does not start it in your project directory):',
        code(configEntry(cli, flags), 'the config entry'),
        ...envForm,
      ),
      el('li', {},
        el('strong', { text: 'Ask your assistant the question that goes wrong. ' }),
        'The session appears here as it happens. Click a node to see its calls; set a breakpoint to hold the next one.',
      ),
    ),
    el('p', { class: 'muted' }, 'With ', el('code', { text: 'graphmind' }), ' on your PATH (', el('code', { text: 'npm link' }), ' in the checkout), ', el('code', { text: `graphmind mcp-proxy${flagText} -- …` }), ' does the same; once the package is on npm, so will ', el('code', { text: `npx graphmind-ai mcp-proxy${flagText} -- …` }), '.'),
    el('p', { class: 'muted' }, 'No host handy? ', el('code', { text: `${proxy} --trace -- <command>` }), ' prints one line per frame on stderr. To try it on a server you did not write:'),
    code(`claude mcp add everything-debug -- ${proxy} -- npx -y @modelcontextprotocol/server-everything`, 'the server-everything line'),
  );
}
