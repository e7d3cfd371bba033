/**
 * A JSON value the server keeps as the text it arrived in: a call's input
 * or output, recorded for every execution and read back only when someone
 * asks for the run. Parsing each one on arrival, and keeping the parsed
 * objects alive for the life of the run, was about half of what ingesting
 * an event cost. `JSON.stringify` (the REST API, the live feed) writes it
 * as the value it holds, through {@link RawJson.toJSON}.
 *
 * Only text that `JSON.parse` accepts is ever wrapped (the ingest reader
 * checks it first).
 */
export class RawJson {
  /** The value's JSON text. */
  readonly json: string;

  constructor(json: string) {
    this.json = json;
  }

  /** Called by `JSON.stringify`: the value itself. */
  toJSON(): unknown {
    return JSON.parse(this.json);
  }
}
