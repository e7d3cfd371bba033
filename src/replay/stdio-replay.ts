/**
 * A replay on stdio: newline-delimited JSON-RPC in on `input`, only
 * JSON-RPC out on `output` (the wire; nothing else is ever written there).
 * The answers to one input chunk go out in one write, and reading pauses
 * while the output is full. It ends when the input does (or the output
 * breaks: the client is gone). A run still being read ({@link RunReading})
 * is answered from as far as it is read: a request that needs more waits.
 *
 * @module
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { RecordedRun, RunReading } from './recorded-run.js';
import { ReplaySession, type ReplayOptions } from './replay-session.js';

const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"graphmind replay: a line that is not JSON"}}';

/** Replay `run` (or the run `reading` reads) over `input`/`output` until the input ends. */
export function replayOverStdio(run: RecordedRun, options: ReplayOptions, input: Readable, output: Writable, reading?: RunReading): Promise<void> {
  return new Promise((resolve) => {
    let batch: string[] | undefined;
    let ended = false;
    const write = (text: string): void => {
      if (ended) return;
      if (!output.write(text) && !input.isPaused()) {
        input.pause();
        output.once('drain', () => input.resume());
      }
    };
    const session = new ReplaySession(
      run,
      options,
      {
        send(text) {
          if (batch !== undefined) batch.push(text);
          else write(`${text}\n`);
        },
      },
      reading === undefined,
    );
    /** What `act` answers goes out in one write. */
    const batched = (act: () => void): void => {
      batch = [];
      act();
      const out = batch;
      batch = undefined;
      if (out.length > 0) write(`${out.join('\n')}\n`);
    };
    // What a slice of the run answers goes out in one write, as a chunk's answers do.
    reading?.readRest((complete) => batched(() => session.grow(complete)));
    const finish = (): void => {
      if (ended) return;
      ended = true;
      session.close();
      input.pause();
      resolve();
    };
    const decoder = new StringDecoder('utf8');
    let rest = '';
    const lines = (text: string): void => {
      let start = 0;
      let end = text.indexOf('\n');
      while (end !== -1) {
        let line = text.slice(start, end);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line.trim() !== '') {
          let message: unknown;
          try {
            message = JSON.parse(line);
          } catch {
            (batch as string[]).push(PARSE_ERROR);
            message = undefined;
          }
          if (message !== undefined) session.receive(message);
        }
        start = end + 1;
        end = text.indexOf('\n', start);
      }
      rest = text.slice(start);
    };
    input.on('data', (chunk: Buffer) => batched(() => lines(rest + decoder.write(chunk))));
    input.on('end', () => {
      const last = rest + decoder.end();
      if (last.trim() !== '') batched(() => lines(`${last}\n`));
      // Requests waiting for the run to be read are answered, and what is written goes out, before the end is told.
      void session.settled().then(() => output.write('', () => finish()));
    });
    input.on('error', finish);
    output.on('error', finish);
  });
}
