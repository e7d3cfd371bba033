import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { safeUrl } from './headers.js';
import { upstreamTarget } from './routing.js';
import { HTTP_PROXY_PREFIX } from './texts.js';

/**
 * The HTTP proxy's client of the MCP server: requests over one keep-alive
 * agent (http or https, certificates verified as Node verifies them), the
 * endpoint's request options worked out once, and one stderr line per
 * outage when the server cannot be reached.
 */
export class UpstreamClient {
  /** The MCP server's endpoint. */
  readonly url: URL;
  /** Its `host` (name and port), for the `Host` header of what is sent there. */
  readonly host: string;
  /** Its path: requests for it are MCP messages. */
  readonly mcpPath: string;
  /** The endpoint as shown and recorded (no credentials, query or fragment). */
  readonly shown: string;
  readonly #request: typeof httpRequest;
  readonly #agent: HttpAgent;
  /** The request options of the endpoint, worked out once. */
  readonly #endpoint: ReturnType<typeof urlToHttpOptions>;
  readonly #say: (text: string) => void;
  /** The last request failed to reach the server: the next failure is not news. */
  #down = false;

  /** `url` must be http: or https: (anything else throws); `say` prints a diagnostic line. */
  constructor(url: URL, say: (text: string) => void) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`the upstream must be an http: or https: URL, not ${url.protocol}`);
    this.url = url;
    this.host = url.host;
    this.mcpPath = url.pathname;
    this.shown = safeUrl(url);
    this.#endpoint = urlToHttpOptions(url);
    this.#say = say;
    const https = url.protocol === 'https:';
    this.#request = https ? (httpsRequest as unknown as typeof httpRequest) : httpRequest;
    // Certificates are verified as Node verifies them (NODE_EXTRA_CA_CERTS included).
    this.#agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /** A request to the upstream (keep-alive). `target` undefined: the endpoint itself. */
  request(method: string, target: URL | undefined, headers: string[]): ClientRequest {
    const base = target === undefined ? this.#endpoint : urlToHttpOptions(target);
    return this.#request({ ...base, method, headers: headers as unknown as Record<string, string>, agent: this.#agent });
  }

  /** Where a host request goes (see {@link upstreamTarget}). */
  targetOf(req: IncomingMessage): URL | undefined {
    return upstreamTarget(req.url, this.url, this.mcpPath);
  }

  /** POST `body` to the endpoint with `headers`, on the proxy's own account: the answer is read and dropped. */
  post(headers: string[], body: Buffer): void {
    const up = this.request('POST', undefined, headers);
    up.on('response', (upRes) => upRes.resume());
    up.on('error', (error) => this.failed(error));
    up.end(body);
  }

  /** The upstream answered: a later failure is news again. */
  reached(): void {
    this.#down = false;
  }

  /** The upstream could not be reached: one line on stderr per outage. Returns the line (without its newline). */
  failed(error: Error): string {
    const line = `${HTTP_PROXY_PREFIX}cannot reach the MCP server at ${this.shown}: ${error.message}`;
    if (!this.#down) {
      this.#down = true;
      this.#say(`${line}\n`);
    }
    return line;
  }

  /** Close the idle connections. */
  close(): void {
    this.#agent.destroy();
  }
}
