/** Options for the `Reporter`. */
export interface ReporterOptions {
  /** Port of `graphmind serve` (on 127.0.0.1, else ::1). @default 4747 */
  port?: number;
  /**
   * The debugger's ingest URL, e.g. `ws://127.0.0.1:4747/ingest`: its host,
   * port and path are used as they are (and `port` is ignored).
   * @default GRAPHMIND_URL, else built from `port`
   */
  url?: string;
  /** Where to find the token file. @default GRAPHMIND_DATA_DIR or ~/.graphmind */
  dataDir?: string;
  /** Environment to read `GRAPHMIND_TOKEN`, `GRAPHMIND_DATA_DIR` and `GRAPHMIND_URL` from. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Events kept while detached or behind; beyond it the oldest are dropped (and counted). @default 1000 */
  maxBufferedEvents?: number;
  /**
   * Approximate bytes those events may hold on to (frames behind deferred
   * values, log text); beyond it the oldest are dropped. @default 16777216
   */
  maxBufferedBytes?: number;
  /** Socket bytes in flight before the reporter stops sending and buffers instead. @default 4194304 */
  maxInFlightBytes?: number;
  /** First reconnect delay, doubled up to 5 s. @default 250 */
  reconnectMs?: number;
  /** Try to connect at all. @default true */
  connect?: boolean;
}

