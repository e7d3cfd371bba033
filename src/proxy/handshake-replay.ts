import { isObject } from '../json/is-object.js';
import type { Readable, Writable } from 'node:stream';
import { LISTS, listNames, withId, type ListKind, type SessionMemory } from './session-memory.js';

/** How long a restarted server may take to answer each replayed request. */
export const REPLAY_ANSWER_MS = 15_000;

/** What replaying the handshake to a new server came to. */
export type ReplayResult =
  | {
      ok: true;
      /** Lines (and a partial line) the server wrote that were not answers to the replay: the relay reads them first. */
      rest: Buffer;
      /** The lists whose names differ from those the host fetched, and whether the server says it announces changes. */
      changed: Array<{ kind: ListKind; announced: boolean }>;
      /** How long the replay took, in ms. */
      ms: number;
    }
  | { ok: false; reason: string };

/** A running child's pipes, as the replay needs them. */
export interface ReplayPeer {
  stdin: Writable;
  stdout: Readable;
  /** Settles when the process exits, with how (`exited with code 1`, `was killed by SIGKILL`). */
  exited: Promise<string>;
}

/**
 * Reads a child's stdout line by line while the replay talks to it: answers
 * to the replay's own ids are taken, everything else is kept, in order, for
 * the relay.
 */
class LineTap {
  readonly #stdout: Readable;
  #partial: Buffer[] = [];
  readonly #kept: Buffer[] = [];
  readonly #answers = new Map<string, (message: Record<string, unknown>) => void>();
  readonly #onData = (chunk: Buffer): void => this.#take(chunk);

  constructor(stdout: Readable) {
    this.#stdout = stdout;
    stdout.on('data', this.#onData);
  }

  /** The answer to our request `id`, when it comes. */
  answer(id: string): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.#answers.set(JSON.stringify(id), resolve));
  }

  #take(chunk: Buffer): void {
    let from = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, from)) {
      const piece = chunk.subarray(from, nl + 1);
      from = nl + 1;
      const line = this.#partial.length === 0 ? piece : Buffer.concat([...this.#partial, piece]);
      this.#partial = [];
      if (!this.#isOurAnswer(line)) this.#kept.push(Buffer.from(line));
    }
    if (from < chunk.length) this.#partial.push(Buffer.from(chunk.subarray(from)));
  }

  #isOurAnswer(line: Buffer): boolean {
    if (this.#answers.size === 0) return false;
    let message: unknown;
    try {
      message = JSON.parse(line.toString('utf8'));
    } catch {
      return false;
    }
    if (!isObject(message) || !('id' in message) || ('method' in message)) return false;
    const key = JSON.stringify(message.id);
    const resolve = this.#answers.get(key);
    if (resolve === undefined) return false;
    this.#answers.delete(key);
    resolve(message);
    return true;
  }

  /** Stop reading; what was kept (and a partial line) goes back to the front of stdout for the next reader. */
  detach(): Buffer {
    this.#stdout.off('data', this.#onData);
    this.#stdout.pause();
    const rest = Buffer.concat([...this.#kept, ...this.#partial]);
    if (rest.length > 0) this.#stdout.unshift(rest);
    return rest;
  }
}

/**
 * Bring a freshly started server to where the host's session with the old
 * one was, without the host seeing any of it: the host's own `initialize`
 * request (its bytes, with an id of ours), its answer swallowed, then
 * `notifications/initialized`, the logging level and the resource
 * subscriptions the host had set, each answer swallowed. Then the lists the
 * host had fetched are fetched again (ids of ours) and compared by name.
 *
 * A session that never sent `initialize` (the 2026-07-28 era, where each
 * request carries its own protocol version) needs no handshake: its lists
 * are fetched again with the host's own requests (which name the version),
 * and a change is not announced (that era delivers it on a
 * `subscriptions/listen` stream, which the restart ended).
 */
export async function replayHandshake(peer: ReplayPeer, memory: SessionMemory, generation: number, answerMs = REPLAY_ANSWER_MS): Promise<ReplayResult> {
  const started = Date.now();
  // A server that dies before it reads: the write fails (EPIPE), which its exit already reports.
  peer.stdin.on('error', () => {});
  const tap = new LineTap(peer.stdout);
  let count = 0;
  const ask = async (line: Buffer | undefined, what: string): Promise<Record<string, unknown> | undefined> => {
    if (line === undefined) return undefined;
    const id = `graphmind-restart-${generation}-${++count}`;
    const request = withId(line, JSON.stringify(id));
    if (request === undefined) return undefined;
    const answered = tap.answer(id);
    peer.stdin.write(request);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not answer the replayed ${what} within ${answerMs / 1000} s`)), answerMs);
    });
    const gone = peer.exited.then((how) => Promise.reject(new Error(`${how} before answering the replayed ${what}`)));
    try {
      return await Promise.race([answered, late, gone]);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    const init = await ask(memory.initialize, 'initialize');
    if (init !== undefined && isObject(init.error)) throw new Error(`answered the replayed initialize with an error: ${String(init.error.message ?? '')}`);
    if (memory.initialized !== undefined) peer.stdin.write(memory.initialized);
    await ask(memory.logLevel, 'logging/setLevel');
    for (const subscribe of memory.subscriptions.values()) await ask(subscribe, 'resources/subscribe');
    const capabilities = init !== undefined && isObject(init.result) && isObject(init.result.capabilities) ? init.result.capabilities : memory.capabilities;
    const changed: Array<{ kind: ListKind; announced: boolean }> = [];
    for (const kind of LISTS) {
      const known = memory.lists.get(kind);
      if (known === undefined) continue;
      // The host's own request (an id of ours): a bare one would not say which protocol version it speaks.
      const request = memory.listRequests.get(kind) ?? Buffer.from(`{"jsonrpc":"2.0","id":0,"method":"${kind}/list"}\n`);
      const answer = await ask(request, `${kind}/list`);
      const names = listNames(kind, answer?.result) ?? [];
      if (names.join('\u0000') === known.join('\u0000')) continue;
      memory.lists.set(kind, names);
      const declared = isObject(capabilities) ? capabilities[kind] : undefined;
      // The 2026-07-28 era (no initialize) delivers list changes only on a subscriptions/listen stream, which a restart ends: not announced.
      changed.push({ kind, announced: memory.initialize !== undefined && isObject(declared) && declared.listChanged === true });
    }
    const rest = tap.detach();
    return { ok: true, rest, changed, ms: Date.now() - started };
  } catch (error) {
    tap.detach();
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
