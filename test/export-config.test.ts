// Where serve streams to, from its flags and OpenTelemetry's environment
// variables, read as the OpenTelemetry specification reads them; and the
// W3C traceparent a client may pass in params._meta. A table of "this is
// set → that comes out".
import t from 'tap';
import { remoteParentOf } from '../src/export/call-shape.js';
import { resolveOtlpConfig, type OtlpFlags } from '../src/export/otlp-config.js';

const cases: Array<{ name: string; flags?: OtlpFlags; env?: Record<string, string>; expect: unknown }> = [
  { name: 'nothing set: no streaming', expect: undefined },
  {
    name: 'the flag is a base URL',
    flags: { endpoint: 'http://localhost:4318' },
    expect: { url: 'http://localhost:4318/v1/traces', headers: {}, protocol: 'http/protobuf', maxQueue: 8192, timeoutMs: 10000 },
  },
  { name: 'a base with a path', flags: { endpoint: 'https://otlp.example.com/otlp/' }, expect: { url: 'https://otlp.example.com/otlp/v1/traces' } },
  { name: 'a flag that names /v1/traces already', flags: { endpoint: 'http://h:4318/v1/traces' }, expect: { url: 'http://h:4318/v1/traces' } },
  { name: 'OTEL_EXPORTER_OTLP_ENDPOINT is a base', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, expect: { url: 'http://c:4318/v1/traces' } },
  {
    name: 'the signal endpoint is used as it is, and wins',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9999/custom' },
    expect: { url: 'http://t:9999/custom' },
  },
  { name: 'the flag wins over the environment', flags: { endpoint: 'http://flag:1' }, env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:2/x' }, expect: { url: 'http://flag:1/v1/traces' } },
  {
    name: 'headers: percent-decoded, the signal variable and then the flags win key by key',
    flags: { endpoint: 'http://h', headers: ['X-Team=from flag'] },
    env: { OTEL_EXPORTER_OTLP_HEADERS: 'x-team=general,api-key=a%20b%3D', OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=traces' },
    expect: { headers: { 'x-team': 'from flag', 'api-key': 'traces' } },
  },
  {
    name: 'protocol: the signal variable, then the general one',
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' },
    expect: { protocol: 'http/json' },
  },
  { name: 'the flag\'s protocol wins', flags: { endpoint: 'http://h', protocol: 'http/json' }, env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, expect: { protocol: 'http/json' } },
  { name: 'the timeout', flags: { endpoint: 'http://h' }, env: { OTEL_EXPORTER_OTLP_TIMEOUT: '2500' }, expect: { timeoutMs: 2500 } },
  { name: 'OTEL_SDK_DISABLED turns the variables off', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_SDK_DISABLED: 'true' }, expect: undefined },
  { name: 'OTEL_TRACES_EXPORTER=none too', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_TRACES_EXPORTER: 'none' }, expect: undefined },
  { name: 'but not an explicit flag', flags: { endpoint: 'http://h' }, env: { OTEL_SDK_DISABLED: 'true' }, expect: { url: 'http://h/v1/traces' } },
  { name: 'grpc is refused', flags: { endpoint: 'http://h' }, env: { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, expect: 'the OTLP protocol "grpc" is not supported: use http/protobuf (the default) or http/json' },
  { name: 'not a URL', flags: { endpoint: 'localhost:4318' }, expect: '--otlp-endpoint must be an http:// or https:// URL (OTLP over HTTP), not localhost:' },
  { name: 'a malformed header variable', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }, expect: 'OTEL_EXPORTER_OTLP_HEADERS: "novalue" is not key=value' },
  { name: 'a bad queue size', flags: { endpoint: 'http://h', maxQueue: 0 }, expect: '--otlp-max-queue must be a positive whole number of spans' },
];

for (const { name, flags, env, expect } of cases) {
  t.test(name, async (t) => {
    const got = resolveOtlpConfig(flags ?? {}, env ?? {});
    if (expect === undefined || typeof expect === 'string') t.same(got, expect);
    else t.match(got, expect);
  });
}

t.test('traceparent in params._meta', async (t) => {
  const meta = (traceparent: string, tracestate?: string): unknown => ({ name: 'x', _meta: tracestate === undefined ? { traceparent } : { traceparent, tracestate } });
  t.same(remoteParentOf(meta('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'rojo=1')), {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    sampled: true,
    traceState: 'rojo=1',
  });
  t.equal(remoteParentOf(meta('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00'))?.sampled, false);
  for (const bad of [
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
    'garbage',
  ]) {
    t.equal(remoteParentOf(meta(bad)), undefined, bad);
  }
  t.equal(remoteParentOf({ name: 'x' }), undefined);
  t.equal(remoteParentOf('[hidden]'), undefined, 'hidden params carry no context');
  t.equal(remoteParentOf(undefined), undefined);
});
