import type { ChildProcess } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';

/**
 * What the relay reads of each server. With `--watch` (`staysUp`), a server
 * that exits on its own leaves the session up: the relay must not see its
 * output end (which ends the host's side), so it reads a stream of ours that
 * the server's output is piped into, and that ends only when the session
 * ends with that server ({@link ServerOutputs.end}). Without `--watch`, the
 * server's stdout itself.
 */
export class ServerOutputs {
  readonly #staysUp: boolean;
  readonly #endOutput = new WeakMap<ChildProcess, () => void>();

  constructor(staysUp: boolean) {
    this.#staysUp = staysUp;
  }

  /** The stream the relay reads for `server`. */
  of(server: ChildProcess): Readable {
    const stdout = server.stdout as Readable;
    if (!this.#staysUp) return stdout;
    const out = new PassThrough();
    stdout.pipe(out, { end: false });
    let ended = false;
    stdout.once('end', () => (ended = true));
    this.#endOutput.set(server, () => (ended ? out.end() : stdout.once('end', () => out.end())));
    return out;
  }

  /** The session ends with `server`: its last output, then the end of it, reaches the relay. */
  end(server: ChildProcess): void {
    this.#endOutput.get(server)?.();
  }
}
