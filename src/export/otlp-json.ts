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
import type { Instance } from '../protocol/run-model.js';
import { callSpan } from './call-span.js';
import { graphmindScope, readableSpan, runResource } from './otel-spans.js';
import { rootSpan } from './root-span.js';
import { decisionsReader, type RunFacts } from './run-facts.js';
import type { CallFormat, SnapshotEnd } from './run-streamer.js';
import { resourceOf, rootInstanceOf, type Attributes, type SpanRecord, type TraceRun } from './trace-model.js';

/** The OTLP/JSON request holding `spans`, all of one resource. */
export function otlpJson(spans: readonly SpanRecord[], resource: Attributes, version: string): Buffer {
  const res = runResource(resource);
  const scope = graphmindScope(version);
  const body = JsonTraceSerializer.serializeRequest(spans.map((span) => readableSpan(span, res, scope)));
  if (body === undefined) throw new Error('the OTLP JSON serializer produced nothing');
  return Buffer.from(body);
}

/** Where the spans go in a request's text: `"spans":[` then the spans, comma-separated. */
const SPANS = '"spans":[]';

/** The OTLP/JSON text of one span, as the serializer writes it inside a request. */
function spanText(record: SpanRecord, resource: ReturnType<typeof runResource>, scope: ReturnType<typeof graphmindScope>): { request: Record<string, unknown>; span: string } {
  const body = JsonTraceSerializer.serializeRequest([readableSpan(record, resource, scope)]);
  if (body === undefined) throw new Error('the OTLP JSON serializer produced nothing');
  const request = JSON.parse(Buffer.from(body).toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: unknown[] }> }> };
  const scopeSpans = request.resourceSpans[0]?.scopeSpans[0];
  if (scopeSpans === undefined) throw new Error('the OTLP JSON serializer wrote no span');
  const span = JSON.stringify(scopeSpans.spans[0]);
  scopeSpans.spans = [];
  return { request, span };
}

/**
 * The OTLP/JSON format for `RunStreamer`: the request `otlpJson` writes,
 * in pieces: its start (the resource: the run's server), each call's span,
 * then the root span (it counts the run's calls, so it comes last) and the
 * end. A run exported while live has `graphmind.run.live` on its root span.
 */
export function otlpFormat(version: string): CallFormat {
  const scope = graphmindScope(version);
  let resource = runResource({});
  let root: Instance | undefined;
  const decisionsIn = decisionsReader();
  return {
    head(run: TraceRun): string {
      resource = runResource(resourceOf(run));
      const { request } = spanText(rootSpan(run, { now: 0 }), resource, scope);
      const text = JSON.stringify(request);
      return text.slice(0, text.indexOf(SPANS) + SPANS.length - 1);
    },
    call(run: TraceRun, facts: RunFacts, instance: Instance, now: number, first: boolean): string {
      root ??= rootInstanceOf(run);
      const record = callSpan(run, facts, instance, { now, root, decisions: decisionsIn(run.meta) });
      if (record === undefined) return '';
      return `${first ? '' : ','}${spanText(record, resource, scope).span}`;
    },
    tail(run: TraceRun, _facts: RunFacts, end: SnapshotEnd, now: number, wroteAny: boolean): string {
      const record = rootSpan(run, { now, root: rootInstanceOf(run) });
      if (end.live) {
        record.attributes['graphmind.run.live'] = true;
        record.attributes['graphmind.run.snapshot_at'] = new Date(end.askedAt).toISOString();
        record.attributes['graphmind.run.last_seq'] = end.lastSeq;
      }
      const { request, span } = spanText(record, resource, scope);
      const text = JSON.stringify(request);
      return `${wroteAny ? ',' : ''}${span}${text.slice(text.indexOf(SPANS) + SPANS.length - 1)}`;
    },
  };
}
