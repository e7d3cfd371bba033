/** The signals passed on to the server. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Catch SIGINT, SIGTERM and SIGHUP for `onSignal` (they are passed on to the
 * server, not left to kill the proxy). Returns what lets them go again.
 */
export function catchSignals(onSignal: (signal: NodeJS.Signals) => void): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  for (const signal of FORWARDED_SIGNALS) {
    const handler = (): void => onSignal(signal);
    handlers.set(signal, handler);
    process.on(signal, handler);
  }
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}
