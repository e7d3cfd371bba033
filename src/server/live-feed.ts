import type WebSocket from 'ws';
import type { RunEvent } from '../protocol/ingest.js';
import type { LiveMessage } from '../protocol/live-feed.js';

export type { LiveMessage };

/** A viewer that falls this far behind is disconnected; it reconnects and gets a fresh snapshot. */
const MAX_BUFFERED = 32 * 1024 * 1024;

/** The set of connected viewers (and other live clients). */
export class LiveFeed {
  readonly #clients = new Set<WebSocket>();

  get size(): number {
    return this.#clients.size;
  }

  add(ws: WebSocket, snapshot: LiveMessage): void {
    this.#clients.add(ws);
    ws.on('close', () => this.#clients.delete(ws));
    ws.on('error', () => ws.terminate());
    // The feed is one-way; anything a client sends is ignored.
    ws.on('message', () => {});
    ws.send(JSON.stringify(snapshot));
  }

  broadcast(message: LiveMessage): void {
    if (this.#clients.size === 0) return;
    this.#send(JSON.stringify(message));
  }

  /**
   * Broadcast `{ type: 'run.event', runId, event }`. `line` is the event as
   * JSON, if the caller has it: the message is then built around it rather
   * than stringifying the event again.
   */
  broadcastEvent(runId: string, event: RunEvent, line?: string): void {
    if (this.#clients.size === 0) return;
    // A run id is validated (letters, digits, `_` and `-`): it needs no escaping.
    this.#send(line === undefined ? JSON.stringify({ type: 'run.event', runId, event }) : `{"type":"run.event","runId":"${runId}","event":${line}}`);
  }

  #send(text: string): void {
    for (const ws of this.#clients) {
      if (ws.bufferedAmount > MAX_BUFFERED) {
        ws.terminate();
        continue;
      }
      ws.send(text);
    }
  }

  closeAll(): void {
    for (const ws of this.#clients) ws.terminate();
    this.#clients.clear();
  }
}
