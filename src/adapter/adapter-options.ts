import { switchOn } from '../report/hide.js';
import type { SdkPackage } from './sdk-shape.js';

/** How long `connect()` waits for a debugger with `waitForAttach`. */
export const CONNECT_WAIT_MS = 2000;

/** Options for {@link graphmind}. */
export interface GraphmindOptions {
  /** The application's name, shown in the viewer and used when the server's own name cannot be read. @default 'mcp-server' */
  app?: string;
  /** The `server` node's label, instead of the `{ name, version }` the SDK server was created with. @default undefined */
  server?: {
    /** The server's name (its node is `server:<name>`). */
    name: string;
    /** Its version, shown beside the name. */
    version?: string;
  };
  /**
   * `connect()` waits (at most 2000 ms) for a debugger to attach and send
   * its breakpoints, even one that is not running yet. Not needed for a
   * debugger already running: the first call waits for the first contact
   * with it anyway (see `FirstContact`); this is for one started after the
   * server, and costs the whole 2000 ms when none comes.
   * @default false
   */
  waitForAttach?: boolean;
  /** The debugger's ingest URL. @default GRAPHMIND_URL, else ws://127.0.0.1:4747/ingest */
  url?: string;
  /** Switch the adapter off (`wrapServer` is then the identity). `GRAPHMIND_DISABLED=1` always wins. @default true */
  enabled?: boolean;
  /** The SDK package to report for the session, instead of the one found installed. @default the installed one (2.x preferred) */
  sdk?: SdkPackage | string;
  /**
   * Where `GRAPHMIND_*`, `NODE_ENV` and the token are read.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
}

/** Why the adapter is off, or `on`. */
export type AdapterMode = 'on' | 'disabled-by-env' | 'disabled-by-option' | 'production';

/**
 * The kill switches, in order: `GRAPHMIND_DISABLED` set (to anything but
 * empty, `0` or `false`) always wins; then `enabled: false`; then
 * `NODE_ENV=production`, unless `GRAPHMIND` is set. Pure.
 */
export function adapterMode(options: Pick<GraphmindOptions, 'enabled'>, env: NodeJS.ProcessEnv): AdapterMode {
  if (switchOn(env.GRAPHMIND_DISABLED)) return 'disabled-by-env';
  if (options.enabled === false) return 'disabled-by-option';
  if (env.NODE_ENV === 'production' && !switchOn(env.GRAPHMIND)) return 'production';
  return 'on';
}
