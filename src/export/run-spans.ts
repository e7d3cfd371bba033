/**
 * Every span of a run, for an export (`otlp-json`): its root, then its
 * calls in start order.
 *
 * @module
 */
import type { Instance } from '../protocol/run-model.js';
import { callSpan } from './call-span.js';
import { rootSpan } from './root-span.js';
import { decisionsOf, type RunFacts } from './run-facts.js';
import { rootInstanceOf, type SpanOptions, type SpanRecord, type TraceRun } from './trace-model.js';

/** Every span of a run: its root, then its calls in start order. */
export function runSpans(run: TraceRun, facts: RunFacts, options: SpanOptions = {}): SpanRecord[] {
  const now = options.now ?? Date.now();
  const root = rootInstanceOf(run);
  const byNode = new Map<string, Instance[]>();
  for (const instance of run.instances) {
    let list = byNode.get(instance.nodeId);
    if (list === undefined) byNode.set(instance.nodeId, (list = []));
    list.push(instance);
  }
  const decisions = decisionsOf(run.meta);
  const spans = [rootSpan(run, { now, root })];
  for (const instance of run.instances) {
    const span = callSpan(run, facts, instance, { now, root, byNode, decisions });
    if (span !== undefined) spans.push(span);
  }
  return spans;
}
