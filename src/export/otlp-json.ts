/**
 * A run as an OTLP/JSON trace request (`ExportTraceServiceRequest`), the
 * body an OTLP/HTTP receiver takes with `Content-Type: application/json`:
 * written by OpenTelemetry's own JSON serializer, so a collector (or a
 * backend's OTLP endpoint) takes the file as it is
 * (`curl -H 'Content-Type: application/json' --data-binary @run.otlp.json http://localhost:4318/v1/traces`).
 *
 * @module
 */
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { graphmindScope, readableSpan, runResource } from './otel-spans.js';
import type { Attributes, SpanRecord } from './trace-model.js';

/** The OTLP/JSON request holding `spans`, all of one resource. */
export function otlpJson(spans: readonly SpanRecord[], resource: Attributes, version: string): Buffer {
  const res = runResource(resource);
  const scope = graphmindScope(version);
  const body = JsonTraceSerializer.serializeRequest(spans.map((span) => readableSpan(span, res, scope)));
  if (body === undefined) throw new Error('the OTLP JSON serializer produced nothing');
  return Buffer.from(body);
}
