import { processExists } from './process-tree.js';

/**
 * Watch, every `everyMs`, that the process that started us (the host) is
 * still our parent, and call `onGone` once it is not.
 *
 * While a frame is held the proxy reads nothing from the host (held means
 * stopped), so a host that dies then is never seen as the end of our stdin.
 * It is seen as the loss of our parent: we are handed to another process
 * (init, or a subreaper), or (where nobody adopts orphans, as on Windows)
 * the parent's pid no longer exists. The session then ends as if the host
 * had closed stdin, instead of a held proxy and its server living on
 * forever. Returns the interval (to clear at the end), or undefined when
 * there is nothing to watch (`everyMs` 0, or init as our parent).
 */
export function watchHost(everyMs: number, onGone: () => void): NodeJS.Timeout | undefined {
  const hostPid = process.ppid;
  if (everyMs <= 0 || hostPid <= 1) return undefined;
  const watch = setInterval(() => {
    if (process.ppid === hostPid && processExists(hostPid)) return;
    clearInterval(watch);
    onGone();
  }, everyMs);
  watch.unref();
  return watch;
}
