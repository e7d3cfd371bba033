import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultDataDir } from '../report/config.js';
import { sendError } from './http-util.js';
import { COMMON_HEADERS, viewerCsp } from './security.js';

/** Where the built viewer lives (`dist/viewer`). */
export const VIEWER_DIR = fileURLToPath(new URL('../viewer/', import.meta.url));
/** This installation's CLI (`dist/cli/graphmind.js`), for the recipe on the viewer's empty state. */
const CLI_PATH = fileURLToPath(new URL('../cli/graphmind.js', import.meta.url));

/** `text` made safe inside a double-quoted HTML attribute. */
function attribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.map': 'application/json; charset=utf-8',
};

const TOKEN_SLOT = '<meta name="graphmind-token" content="">';

const PLACEHOLDER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${TOKEN_SLOT}<title>GraphMind</title></head>
<body><h1>GraphMind</h1><p>The debugger is running. The control API is under <code>/api</code>;
see docs/control-api.md. Point your MCP host at <code>graphmind mcp-proxy -- &lt;your server command&gt;</code>.</p></body></html>
`;

function indexHtml(): string {
  try {
    return readFileSync(join(VIEWER_DIR, 'index.html'), 'utf8');
  } catch {
    return PLACEHOLDER;
  }
}

/**
 * What the page is told about this server beside its token, for the
 * recipe on its empty state: this installation's CLI, the port, and the
 * data directory when it is not the default one (`~/.graphmind`), which a
 * proxy then needs to be given (`--data-dir`, or `GRAPHMIND_DATA_DIR` in
 * the host's config) to find the token.
 */
export function pageMeta(token: string, port: number, dataDir?: string): string {
  const tags = [
    `<meta name="graphmind-token" content="${attribute(token)}">`,
    `<meta name="graphmind-cli" content="${attribute(CLI_PATH)}">`,
    `<meta name="graphmind-port" content="${attribute(String(port))}">`,
  ];
  if (dataDir !== undefined && resolve(dataDir) !== resolve(defaultDataDir({}))) tags.push(`<meta name="graphmind-data-dir" content="${attribute(resolve(dataDir))}">`);
  return tags.join('');
}

/**
 * Serve the viewer's page with the token written into it, so the bare URL
 * opens a working viewer, and what its recipe needs (see {@link pageMeta}).
 * Only ever sent behind the Host check, never cached, and escaped for the
 * attribute it sits in.
 */
export function sendIndex(res: ServerResponse, token: string, port: number, dataDir?: string): void {
  const meta = pageMeta(token, port, dataDir);
  // A function, so that a `$` in the path or the token is not read as a replacement pattern.
  const html = indexHtml().replace(TOKEN_SLOT, () => meta);
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': viewerCsp(port),
    'content-length': Buffer.byteLength(html),
  });
  res.end(html);
}

/** Serve a static asset of the viewer (never one that carries the token). */
export function sendAsset(res: ServerResponse, path: string): void {
  const relative = normalize(path).replace(/^[/\\]+/, '');
  const type = TYPES[extname(relative)];
  if (type === undefined || relative.startsWith('..') || relative.includes('\0') || relative === 'index.html') {
    return sendError(res, 404, 'not found');
  }
  let body: Buffer;
  try {
    body = readFileSync(join(VIEWER_DIR, relative));
  } catch {
    return sendError(res, 404, 'not found');
  }
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'content-type': type,
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'content-length': body.length,
  });
  res.end(body);
}
