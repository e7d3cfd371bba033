/**
 * Runs from the running debugger when there is one, else from the data
 * directory: each call asks the debugger first, so starting or stopping
 * `graphmind serve` while an assistant works changes where the next answer
 * comes from, never whether there is one.
 *
 * @module
 */
import { DebuggerUnavailable } from '../client/loopback-client.js';
import type { RunList, RunRead, RunSource } from './source.js';

/** Options for {@link FallbackRuns}. */
export interface FallbackRunsOptions {
  /** Asked first. */
  primary: RunSource;
  /** Asked when the first throws {@link DebuggerUnavailable}. */
  fallback: RunSource;
  /** Told, in one line, whenever the reader in use changes (and at the first call). @default nothing */
  onSwitch?: (line: string) => void;
  /** Where the fallback reads from, for that line. */
  fallbackName: string;
}

/** A {@link RunSource} that prefers the debugger and falls back to the data directory. */
export class FallbackRuns implements RunSource {
  readonly #options: FallbackRunsOptions;
  /** The reason of the last fallback, or '' when the debugger answered last; undefined before the first call. */
  #state: string | undefined;

  constructor(options: FallbackRunsOptions) {
    this.#options = options;
  }

  listRuns(): Promise<RunList> {
    return this.#either((source) => source.listRuns());
  }

  getRun(runId: string): Promise<RunRead> {
    return this.#either((source) => source.getRun(runId));
  }

  async #either<T>(ask: (source: RunSource) => Promise<T>): Promise<T> {
    try {
      const answer = await ask(this.#options.primary);
      this.#note('', 'reading runs from the running debugger');
      return answer;
    } catch (error) {
      if (!(error instanceof DebuggerUnavailable)) throw error;
      this.#note(error.message, `reading runs from ${this.#options.fallbackName} (${error.message})`);
      return ask(this.#options.fallback);
    }
  }

  #note(state: string, line: string): void {
    if (this.#state === state) return;
    this.#state = state;
    this.#options.onSwitch?.(line);
  }
}
