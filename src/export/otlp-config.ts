/**
 * Where `graphmind serve` streams its runs over OTLP: the flags
 * (`--otlp-endpoint`, `--otlp-header`, `--otlp-protocol`,
 * `--otlp-max-queue`) over OpenTelemetry's environment variables, read as
 * the OpenTelemetry specification reads them
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` is a base to which `v1/traces` is added,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is used as it is, the signal's own
 * variables win over the general ones, headers are `key=value` pairs
 * separated by commas with percent-encoded values, and
 * `http/protobuf` is the protocol unless told otherwise). Loads nothing of
 * OpenTelemetry: serve reads this before deciding whether to load it.
 *
 * @module
 */

/** The OTLP transports the exporters here speak. */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
/** One of {@link OTLP_PROTOCOLS}. */
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** Spans waiting to be sent, at most; more are dropped (and counted). */
export const DEFAULT_MAX_QUEUE = 8192;

/** How long one export may take, retries included, unless `OTEL_EXPORTER_OTLP_TIMEOUT` says (the specification's default). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Where and how to stream. */
export interface OtlpConfig {
  /** The full URL spans are POSTed to (ends in `/v1/traces` unless the signal endpoint said otherwise). */
  url: string;
  /** Headers sent with every export (an API key, a tenant). */
  headers: Record<string, string>;
  /** How spans are encoded on the wire. */
  protocol: OtlpProtocol;
  /** Spans waiting to be sent, at most. */
  maxQueue: number;
  /** How long one export may take, retries included (`OTEL_EXPORTER_OTLP_TIMEOUT`), ms. */
  timeoutMs: number;
}

/** The serve flags about OTLP. */
export interface OtlpFlags {
  endpoint?: string;
  /** `key=value` each. */
  headers?: readonly string[];
  protocol?: string;
  maxQueue?: number;
}

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** `OTEL_EXPORTER_OTLP_HEADERS`'s form: `k1=v1,k2=v2`, values percent-decoded; a malformed pair is an error. */
export function parseHeaderList(text: string, from: string): Record<string, string> | string {
  const headers: Record<string, string> = {};
  for (const part of text.split(',')) {
    if (part.trim() === '') continue;
    const at = part.indexOf('=');
    if (at <= 0) return `${from}: "${part.trim()}" is not key=value`;
    const key = part.slice(0, at).trim();
    let decoded: string;
    try {
      decoded = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      return `${from}: the value of ${key} is not valid percent-encoding`;
    }
    headers[key.toLowerCase()] = decoded;
  }
  return headers;
}

/** A header name as HTTP allows it (a token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The URL of the traces endpoint under a base (`http://host:4318` → `http://host:4318/v1/traces`). */
function underBase(base: URL): string {
  if (/\/v1\/traces\/?$/.test(base.pathname)) return base.href;
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/traces`;
  return url.href;
}

function parseUrl(text: string, from: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${from} is not a URL: ${JSON.stringify(text)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${from} must be an http:// or https:// URL (OTLP over HTTP), not ${url.protocol}`;
  return url;
}

/**
 * The OTLP settings from the flags and the environment: undefined when
 * nothing asks for streaming (no endpoint anywhere, or
 * `OTEL_SDK_DISABLED=true` / `OTEL_TRACES_EXPORTER=none` with no flag), a
 * string with what is wrong when something is.
 */
export function resolveOtlpConfig(flags: OtlpFlags, env: NodeJS.ProcessEnv): OtlpConfig | string | undefined {
  let url: string | undefined;
  if (flags.endpoint !== undefined && flags.endpoint !== '') {
    const parsed = parseUrl(flags.endpoint, '--otlp-endpoint');
    if (typeof parsed === 'string') return parsed;
    url = underBase(parsed);
  } else {
    if (value(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return undefined;
    const exporters = value(env, 'OTEL_TRACES_EXPORTER');
    if (exporters !== undefined && !exporters.split(',').some((name) => name.trim() === 'otlp')) return undefined;
    const signal = value(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    const base = value(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (signal !== undefined) {
      const parsed = parseUrl(signal, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
      if (typeof parsed === 'string') return parsed;
      url = parsed.href;
    } else if (base !== undefined) {
      const parsed = parseUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT');
      if (typeof parsed === 'string') return parsed;
      url = underBase(parsed);
    }
  }
  if (url === undefined) return undefined;

  const headers: Record<string, string> = {};
  for (const name of ['OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS']) {
    const text = value(env, name);
    if (text === undefined) continue;
    const parsed = parseHeaderList(text, name);
    if (typeof parsed === 'string') return parsed;
    Object.assign(headers, parsed);
  }
  for (const pair of flags.headers ?? []) {
    const at = pair.indexOf('=');
    const key = at <= 0 ? '' : pair.slice(0, at).trim();
    if (!HEADER_NAME.test(key)) return `--otlp-header must be key=value with a header name as key, not ${JSON.stringify(pair)}`;
    headers[key.toLowerCase()] = pair.slice(at + 1).trim();
  }

  const protocol = flags.protocol ?? value(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? value(env, 'OTEL_EXPORTER_OTLP_PROTOCOL') ?? 'http/protobuf';
  if (!(OTLP_PROTOCOLS as readonly string[]).includes(protocol)) {
    return `the OTLP protocol ${JSON.stringify(protocol)} is not supported: use http/protobuf (the default) or http/json`;
  }
  const maxQueue = flags.maxQueue ?? DEFAULT_MAX_QUEUE;
  if (!Number.isSafeInteger(maxQueue) || maxQueue < 1) return '--otlp-max-queue must be a positive whole number of spans';
  const timeoutText = value(env, 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT') ?? value(env, 'OTEL_EXPORTER_OTLP_TIMEOUT');
  const timeoutMs = timeoutText === undefined ? DEFAULT_TIMEOUT_MS : Number(timeoutText);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) return `OTEL_EXPORTER_OTLP_TIMEOUT must be a positive whole number of milliseconds, not ${JSON.stringify(timeoutText)}`;
  return { url, headers, protocol: protocol as OtlpProtocol, maxQueue, timeoutMs };
}

/** The endpoint as messages show it: no credentials, no query. */
export function endpointText(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(the OTLP endpoint)';
  }
}
