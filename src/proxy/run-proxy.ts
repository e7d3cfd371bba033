import type { ProxyOptions, ProxyResult } from './proxy-options.js';
import { ProxySession } from './proxy-session.js';

export { EXIT_CANNOT_RUN } from './exit-diagnosis.js';
export { SPAWN_FAILURE_ATTACH_MS } from './lifecycle.js';
export type { ProxyOptions, ProxyResult, SpawnFunction } from './proxy-options.js';

/**
 * Run one proxy session: start the server, relay both directions byte for
 * byte until the server exits, and report what went wrong in plain lines on
 * stderr. Resolves with the exit code the proxy should use; never writes
 * anything but relayed frames to `stdout`.
 *
 * The session's life (spawn, signals, the host leaving, restarts, the end)
 * is decided by a pure state machine (lifecycle.ts) that a shell
 * (proxy-session.ts) drives; how it ended is told by pure functions
 * (exit-diagnosis.ts).
 */
export function runProxy(options: ProxyOptions): Promise<ProxyResult> {
  return new ProxySession(options).run();
}
