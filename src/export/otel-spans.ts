/**
 * {@link SpanRecord}s as the OpenTelemetry SDK's `ReadableSpan`s, the
 * shape its exporters and serializers take. This module, and only the
 * modules that import it, load OpenTelemetry: nothing on a command's
 * start-up path does.
 *
 * @module
 */
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes as OtelAttributes, type Link, type SpanContext } from '@opentelemetry/api';
import { millisToHrTime, TraceState, type InstrumentationScope } from '@opentelemetry/core';
import { defaultResource, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import type { Attributes, SpanRecord } from './trace-model.js';

const KINDS = { internal: SpanKind.INTERNAL, server: SpanKind.SERVER, client: SpanKind.CLIENT } as const;

/** The instrumentation scope of every span GraphMind exports. */
export function graphmindScope(version: string): InstrumentationScope {
  return { name: 'graphmind-ai', version };
}

/** A run's resource: the SDK's default (`telemetry.sdk.*`) with the run's service over it. */
export function runResource(attributes: Attributes): Resource {
  return defaultResource().merge(resourceFromAttributes(attributes));
}

function context(traceId: string, spanId: string, remote: boolean, traceState?: string): SpanContext {
  const ctx: SpanContext = { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: remote };
  if (traceState !== undefined) ctx.traceState = new TraceState(traceState);
  return ctx;
}

/** One span record as a finished SDK span. */
export function readableSpan(record: SpanRecord, resource: Resource, scope: InstrumentationScope): ReadableSpan {
  const own = context(record.traceId, record.spanId, false, record.traceState);
  const startTime = millisToHrTime(record.startMs);
  const endTime = millisToHrTime(record.endMs);
  const durationMs = Math.max(0, record.endMs - record.startMs);
  const events: TimedEvent[] = record.events.map((event) => ({ name: event.name, time: millisToHrTime(event.timeMs), attributes: event.attributes as OtelAttributes }));
  const links: Link[] = record.links.map((link) => ({ context: context(link.traceId, link.spanId, false), attributes: link.attributes as OtelAttributes }));
  const span: ReadableSpan = {
    name: record.name,
    kind: KINDS[record.kind],
    spanContext: () => own,
    parentSpanContext: record.parentSpanId === undefined ? undefined : context(record.traceId, record.parentSpanId, record.parentIsRemote === true, record.traceState),
    startTime,
    endTime,
    status: record.status.code === 'error' ? { code: SpanStatusCode.ERROR, message: record.status.message } : { code: SpanStatusCode.UNSET },
    attributes: record.attributes as OtelAttributes,
    links,
    events,
    duration: millisToHrTime(durationMs),
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
  return span;
}
