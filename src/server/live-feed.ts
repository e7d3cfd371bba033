import type WebSocket from 'ws';
import type { RunEvent } from '../protocol/ingest.js';
import type { LiveMessage } from '../protocol/live-feed.js';

export type { LiveMessage };

/** A viewer that falls this far behind is disconnected; it reconnects and gets a fresh snapshot. */
const MAX_BUFFERED = 32 * 1024 * 1024;

/**
 * The set of connected viewers (and other live clients). Every client of
 * the feed counts as somebody watching: the viewer page, and any script
 * that follows the feed (it may decide holds through the API).
 */
export class LiveFeed {
  readonly #clients = new Set<WebSocket>();
  /**
   * Called when the feed gains its first client (true) or loses its last
   * (false): the reporters are told, so that a hold with nobody watching
   * is said where its host looks.
   */
  onWatching: ((watching: boolean) => void) | undefined;

  /** How many clients are connected. */
  get size(): number {
    return this.#clients.size;
  }

  /** A client connected: it is sent `snapshot`, then every message broadcast. */
  add(ws: WebSocket, snapshot: LiveMessage): void {
    this.#clients.add(ws);
    if (this.#clients.size === 1) this.#tellWatching(true);
    ws.on('close', () => {
      if (this.#clients.delete(ws) && this.#clients.size === 0) this.#tellWatching(false);
    });
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

  /** Disconnect every client (the server is closing). */
  closeAll(): void {
    for (const ws of this.#clients) ws.terminate();
    const had = this.#clients.size > 0;
    this.#clients.clear();
    if (had) this.#tellWatching(false);
  }

  #tellWatching(watching: boolean): void {
    try {
      this.onWatching?.(watching);
    } catch {
      // Telling the reporters is best-effort: the feed goes on.
    }
  }
}
