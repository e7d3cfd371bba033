/**
 * Server-sent events as the HTTP proxy reads them: a byte stream cut into
 * whole events, each with its exact bytes (what is relayed) and its fields
 * (what is classified). Lines may end in CRLF, LF or CR, as the format
 * allows; an event ends at an empty line.
 *
 * @module
 */

/** One server-sent event: its exact bytes and its fields. */
export interface SseEvent {
  /** The event's bytes as they came, its closing empty line included. */
  raw: Buffer;
  /** Its `data` lines joined with `\n` (no trailing newline); undefined when it has none (a comment, a lone `id`). */
  data: string | undefined;
  /** Its `id` field, if any. */
  id: string | undefined;
  /** Its `event` field, if any. */
  event: string | undefined;
  /**
   * Its lines other than `data` (`id`, `event`, `retry`, comments), each
   * with its line ending: kept when the event's data is replaced.
   */
  head: string;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Cuts a server-sent-event stream into events. Feed it chunks with
 * {@link SseSplitter.push}; it returns the events they completed. Bytes
 * after the last complete event wait for the next chunk; {@link
 * SseSplitter.rest} gives them back at the end of the stream (a stream cut
 * short in the middle of an event).
 */
export class SseSplitter {
  #pending: Buffer | undefined;

  /** The events `chunk` completed, in order. */
  push(chunk: Buffer): SseEvent[] {
    const buffer = this.#pending === undefined ? chunk : Buffer.concat([this.#pending, chunk]);
    const events: SseEvent[] = [];
    let eventStart = 0;
    let lineStart = 0;
    let i = 0;
    const n = buffer.length;
    while (i < n) {
      const byte = buffer[i] as number;
      if (byte !== LF && byte !== CR) {
        i++;
        continue;
      }
      // A CR at the end of what we have may be the first half of a CRLF: wait.
      if (byte === CR && i + 1 === n) break;
      const lineEnd = i;
      i += byte === CR && buffer[i + 1] === LF ? 2 : 1;
      if (lineEnd === lineStart) {
        // An empty line: the event ends here (empty lines between events are an event of nothing).
        events.push(parseEvent(buffer.subarray(eventStart, i)));
        eventStart = i;
      }
      lineStart = i;
    }
    this.#pending = eventStart < n ? Buffer.from(buffer.subarray(eventStart)) : undefined;
    return events;
  }

  /** The bytes of an event the stream left unfinished, if any. */
  rest(): Buffer | undefined {
    const rest = this.#pending;
    this.#pending = undefined;
    return rest;
  }
}

/** The fields of one event's bytes. */
function parseEvent(raw: Buffer): SseEvent {
  const text = raw.toString('utf8');
  let data: string | undefined;
  let id: string | undefined;
  let event: string | undefined;
  let head = '';
  const lines = /([^\r\n]*)(\r\n|\r|\n)/g;
  for (let match = lines.exec(text); match !== null; match = lines.exec(text)) {
    const line = match[1] as string;
    if (line === '') continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      data = data === undefined ? value : `${data}\n${value}`;
      continue;
    }
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    head += match[0];
  }
  return { raw: Buffer.from(raw), data, id, event, head };
}

/**
 * An event that carries `json` (one JSON-RPC message, without a newline
 * inside) in place of `like`'s data, with `like`'s other lines (`id`,
 * `event`, `retry`): what a decision writes instead of a held event. Without
 * `like`, a plain `event: message` event, as the MCP SDKs write them.
 */
export function sseEventBytes(json: string, like?: SseEvent): Buffer {
  const head = like === undefined ? 'event: message\n' : like.head;
  return Buffer.from(`${head}data: ${json}\n\n`);
}

/**
 * What stands for a held event that a decision dropped: nothing, or, when
 * it had an `id`, its `id` (and other lines) with empty data, so that the
 * client's last event id still moves past it (an event with empty data is
 * not delivered as a message).
 */
export function droppedEventBytes(like: SseEvent): Buffer | undefined {
  if (like.id === undefined) return undefined;
  return Buffer.from(`${like.head}data: \n\n`);
}
