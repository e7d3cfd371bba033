// The live feed (`/api/live`): one JSON message per change. Reconnects with a
// growing delay when the connection drops (the server restarted, the laptop
// slept); a failed attempt re-reads the token in case the server has a new one.
import type { LiveMessage } from '../protocol/live-feed.js';

export type { LiveMessage };
import { refreshToken, token } from './token.js';
import type { Connection } from './view-state.js';

const DELAYS = [250, 500, 1000, 2000, 4000, 5000];

/** Keep a live-feed connection open; call `onMessage` for each message. */
export class LiveConnection {
  #ws: WebSocket | undefined;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    private readonly onMessage: (message: LiveMessage) => void,
    private readonly onState: (state: Connection) => void,
  ) {}

  start(): void {
    this.#stopped = false;
    this.#open();
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#ws?.close();
  }

  /** Try again now (the page became visible, the network came back). */
  poke(): void {
    if (this.#ws === undefined && this.#timer !== undefined && !this.#stopped) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#open();
    }
  }

  #open(): void {
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/api/live?token=${encodeURIComponent(token())}`;
    let opened = false;
    let ws: WebSocket;
    try {
      ws = new WebSocket(url);
    } catch {
      this.#retry(false);
      return;
    }
    this.#ws = ws;
    ws.addEventListener('open', () => {
      opened = true;
      this.#attempt = 0;
      this.onState('live');
    });
    ws.addEventListener('message', (event: MessageEvent) => {
      if (typeof event.data !== 'string') return;
      let message: unknown;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message !== null && typeof message === 'object' && typeof (message as { type?: unknown }).type === 'string') {
        this.onMessage(message as LiveMessage);
      }
    });
    ws.addEventListener('close', () => {
      if (this.#ws === ws) this.#ws = undefined;
      if (!this.#stopped) this.#retry(opened);
    });
  }

  #retry(wasOpen: boolean): void {
    this.onState('reconnecting');
    const delay = DELAYS[Math.min(this.#attempt, DELAYS.length - 1)] as number;
    this.#attempt++;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      // A refused upgrade looks like any other failure from here; the token may be stale.
      void (wasOpen ? Promise.resolve(false) : refreshToken()).finally(() => {
        if (!this.#stopped) this.#open();
      });
    }, delay);
  }
}
