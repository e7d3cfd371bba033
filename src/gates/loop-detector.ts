import { isObject } from '../json/is-object.js';

/** Options for {@link LoopDetector}. */
export interface LoopDetectorOptions {
  /** Tools polled on purpose, never held (`GRAPHMIND_LOOP_ALLOW`, comma-separated). @default [] */
  allow?: readonly string[];
  /** Identical calls in a row that trigger the hold. @default 3 */
  threshold?: number;
}

/** A JSON rendering with sorted keys, so `{a,b}` and `{b,a}` compare equal. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** The `GRAPHMIND_LOOP_ALLOW` list from the environment. */
export function loopAllowList(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.GRAPHMIND_LOOP_ALLOW ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/**
 * Spots an agent stuck in a loop: the same tool called with the same
 * arguments several times back to back, with no other tool call between.
 * MCP's per-request `_meta` (where clients put a fresh progress token) is
 * not part of the comparison. A tool called now and then across a long
 * session is never a loop, because any other call in between breaks the
 * streak.
 */
export class LoopDetector {
  readonly #allow: Set<string>;
  readonly #threshold: number;
  #last = '';
  #streak = 0;

  constructor(options: LoopDetectorOptions = {}) {
    this.#allow = new Set(options.allow ?? []);
    this.#threshold = options.threshold ?? 3;
  }

  /** True for a tool polled on purpose: its calls are never held, and its arguments are not needed. */
  allows(name: string): boolean {
    return this.#allow.has(name);
  }

  /** Record a tool call; true if it completes a loop and should be held. */
  observe(name: string, args: unknown): boolean {
    if (this.#allow.has(name)) {
      // Never held itself; it only breaks the streak of whatever came before.
      this.#last = '';
      this.#streak = 0;
      return false;
    }
    let key = name;
    if (isObject(args)) {
      const { _meta: _ignored, ...rest } = args;
      key = `${name}\0${canonical(rest)}`;
    } else {
      key = `${name}\0${canonical(args)}`;
    }
    if (key === this.#last) this.#streak++;
    else {
      this.#last = key;
      this.#streak = 1;
    }
    if (this.#streak < this.#threshold) return false;
    // Held once per streak: after a decision, it takes another full streak.
    this.#streak = 0;
    this.#last = '';
    return true;
  }
}
