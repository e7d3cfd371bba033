import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseStrictJson } from '../json/strict-json.js';
import { API_CSP, COMMON_HEADERS } from './security.js';

/** Send a JSON answer with the API's headers (and `headers`, if given). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  sendJsonText(res, status, body === undefined ? '' : JSON.stringify(body), headers);
}

/** Send JSON already encoded (`''` for no body), with the API's headers. A Buffer goes out as it is, not copied. */
export function sendJsonText(res: ServerResponse, status: number, text: string | Buffer, headers: Readonly<Record<string, string>> = {}): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'content-security-policy': API_CSP,
    ...headers,
    ...(text.length === 0 ? {} : { 'content-type': 'application/json; charset=utf-8' }),
    'content-length': typeof text === 'string' ? Buffer.byteLength(text) : text.length,
  });
  res.end(text);
}

/** A generic error: a short fixed message, never the input or a stack. */
export function sendError(res: ServerResponse, status: number, message: string, headers?: Readonly<Record<string, string>>): void {
  sendJson(res, status, { error: message }, headers);
}

/** 405, with the `Allow` header RFC 9110 requires: the methods the route does serve, e.g. `'GET, PUT'`. */
export function sendMethodNotAllowed(res: ServerResponse, allow: string): void {
  sendError(res, 405, 'method not allowed', { allow });
}

/** Why a body could not be read. */
export class BodyError extends Error {
  constructor(readonly status: 400 | 413, message: string) {
    super(message);
  }
}

/** Read a request body of at most `limit` bytes, as it came; rejects with a {@link BodyError} (413 too large, 400 unreadable). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(new BodyError(413, 'request body too large'));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(new BodyError(413, 'request body too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('error', () => {
      if (!failed) reject(new BodyError(400, 'could not read the request body'));
      failed = true;
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks, size));
    });
  });
}

/** Read and parse a JSON body of at most `limit` bytes. */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const body = await readBody(req, limit);
  // Nested deeper than 256 (JSON.parse would take it, but passing it on would throw): refused as the same 400.
  const parsed = parseStrictJson(body);
  if (parsed === undefined) throw new BodyError(400, 'the request body is not valid JSON');
  return parsed.value;
}
