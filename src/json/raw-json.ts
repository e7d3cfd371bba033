/**
 * A JSON value the server keeps as the bytes it arrived in: a call's input
 * or output, recorded for every execution and read back only when someone
 * asks for the run. Parsing each one on arrival, and keeping the parsed
 * objects alive for the life of the run, was about half of what ingesting
 * an event cost; decoding each to a string of its own, and keeping that,
 * was most of what was left for the garbage collector to walk. So it holds
 * a range of the ingest message instead, which is outside the JavaScript
 * heap. The message stays alive as long as a value in it does: about the
 * size of the strings it replaces for a reporter's batch, which is nearly
 * all values (the ingest copies a message out of a larger block first).
 * `JSON.stringify` (the REST API, the live feed) writes it as the value it
 * holds, through {@link RawJson.toJSON}.
 *
 * Only bytes that are valid UTF-8 and that `JSON.parse` accepts are ever
 * wrapped (the ingest reader checks them first).
 *
 * A run loaded from its log keeps its large values so too (a copy of
 * their bytes in the log line, see export/read-run-log.ts): a run of
 * gigabytes kept as parsed strings made the garbage collector copy and
 * walk them, pausing the server for seconds.
 */
export class RawJson {
  readonly #bytes: Buffer;
  readonly #start: number;
  readonly #end: number;

  constructor(bytes: Buffer, start: number, end: number) {
    this.#bytes = bytes;
    this.#start = start;
    this.#end = end;
  }

  /** The value's JSON text. */
  get json(): string {
    return this.#bytes.toString('utf8', this.#start, this.#end);
  }

  /** Called by `JSON.stringify`: the value itself. */
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}
