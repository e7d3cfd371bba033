import { JsonSlice } from './deferred.js';
import type { RunEvent } from './events.js';

/** The JSON of the node declarations met before: one object per node, met once per call. */
const nodeJson = new WeakMap<object, string>();

// The strings and times that repeat from one event to the next (an event's
// type, its run's id, a millisecond shared by a burst of events), with their
// JSON: converting them again for every event was a tenth of the encoding.
let typeText = '';
let typeJson = '""';
let runText = '';
let runJson = '""';
let lastTime = NaN;
let lastTimeJson = '';

/** One field's JSON, as `JSON.stringify` would write it inside the event; undefined to leave it out. */
function fieldJson(key: string, value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      if (key === 'type') {
        if (value !== typeText) {
          typeText = value;
          typeJson = JSON.stringify(value);
        }
        return typeJson;
      }
      if (key === 'runId') {
        if (value !== runText) {
          runText = value;
          runJson = JSON.stringify(value);
        }
        return runJson;
      }
      return JSON.stringify(value);
    case 'number':
      if (key === 't') {
        if (value !== lastTime) {
          lastTime = value;
          lastTimeJson = Number.isFinite(value) ? `${value}` : 'null';
        }
        return lastTimeJson;
      }
      return Number.isFinite(value) ? `${value}` : 'null';
    case 'undefined':
      return undefined;
    case 'object': {
      if (value === null) return 'null';
      if (value instanceof JsonSlice) return value.text() ?? JSON.stringify(value);
      // The naming table's nodes are frozen, and hold strings only: their JSON cannot change.
      if (key !== 'node' || !Object.isFrozen(value)) break;
      let json = nodeJson.get(value);
      if (json === undefined) {
        json = JSON.stringify(value);
        nodeJson.set(value, json);
      }
      return json;
    }
  }
  return JSON.stringify(value);
}

/**
 * The JSON of one event, as `JSON.stringify` would write it, except that a
 * {@link JsonSlice} among its own fields is written as the bytes it points
 * at (when they pass its check) rather than parsed and serialised again.
 */
export function encodeEvent(event: RunEvent): string {
  const fields = event as unknown as Record<string, unknown>;
  if (!(fields.input instanceof JsonSlice) && !(fields.output instanceof JsonSlice)) return JSON.stringify(event);
  let text = '{';
  for (const key in fields) {
    const json = fieldJson(key, fields[key]);
    // Left out, as JSON.stringify leaves out an undefined field.
    if (json === undefined) continue;
    // Event field names are our own identifiers: nothing in them needs escaping.
    text += text.length === 1 ? `"${key}":${json}` : `,"${key}":${json}`;
  }
  return `${text}}`;
}

/** A batch of events as one JSON array: what a reporter sends to `/ingest`. */
export function encodeBatch(events: readonly RunEvent[]): string {
  let text = '[';
  for (let i = 0; i < events.length; i++) text += i === 0 ? encodeEvent(events[i] as RunEvent) : `,${encodeEvent(events[i] as RunEvent)}`;
  return `${text}]`;
}
