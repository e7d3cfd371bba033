/**
 * A replay on stdio: newline-delimited JSON-RPC in on `input`, only
 * JSON-RPC out on `output` (the wire; nothing else is ever written there).
 * The answers to one input chunk go out in one write, and reading pauses
 * while the output is full. It ends when the input does (or the output
 * breaks: the client is gone).
 *
 * @module
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { RecordedRun } from './recorded-run.js';
import { ReplaySession, type ReplayOptions } from './replay-session.js';

const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"graphmind replay: a line that is not JSON"}}';

/** Replay `run` over `input`/`output` until the input ends. */
export function replayOverStdio(run: RecordedRun, options: ReplayOptions, input: Readable, output: Writable): Promise<void> {
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
    const session = new ReplaySession(run, options, {
      send(text) {
        if (batch !== undefined) batch.push(text);
        else write(`${text}\n`);
      },
    });
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
    input.on('data', (chunk: Buffer) => {
      batch = [];
      lines(rest + decoder.write(chunk));
      const out = batch;
      batch = undefined;
      if (out.length > 0) write(`${out.join('\n')}\n`);
    });
    input.on('end', () => {
      const last = rest + decoder.end();
      if (last.trim() !== '') {
        batch = [];
        lines(`${last}\n`);
        const out = batch;
        batch = undefined;
        if (out.length > 0) write(`${out.join('\n')}\n`);
      }
      // What is written goes out before the end is told.
      output.write('', () => finish());
    });
    input.on('error', finish);
    output.on('error', finish);
  });
}
