// Helpers for the viewer tests: wait for conditions in a page, feed runs
// through a fake reporter that answers decisions like a proxy would, and
// start `graphmind serve` on a chosen port (to restart it in place).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { Breakpoints } from '../../src/protocol/control.js';
import type { NodeDeclaration } from '../../src/protocol/ingest.js';
import { CLI, waitFor } from './cli.js';
import { fakeReporter, freshDataDir, startServe, type FakeReporter, type ServeProcess } from './serve.js';

/** Node declarations as the proxy makes them. */
export const NODES = {
  session: (label = 'node server.js'): NodeDeclaration => ({ nodeId: 'mcp:session', kind: 'server', parent: null, label }),
  protocol: { nodeId: 'mcp:protocol', kind: 'custom', parent: 'mcp:session', label: 'protocol' } as NodeDeclaration,
  proto: (method: string): NodeDeclaration => ({ nodeId: `mcp:${method}`, kind: 'custom', parent: 'mcp:protocol', label: method }),
  noise: { nodeId: 'mcp:stdout-noise', kind: 'custom', parent: 'mcp:protocol', label: 'stdout noise' } as NodeDeclaration,
  tool: (name: string): NodeDeclaration => ({ nodeId: `tool:${name}`, kind: 'tool', parent: 'mcp:session', label: name }),
};

/**
 * Poll an expression (JavaScript text, run in the page) until it is truthy.
 * Polled from here: Playwright's own waitForFunction evaluates text with
 * eval inside the page, which the viewer's CSP rightly forbids.
 */
export async function until(page: Page, expression: string, what: string, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await page.evaluate(expression).catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Evaluate an expression (JavaScript text) in the page. */
export function inPage<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/**
 * A function for the page, from its source text. Playwright sends a
 * function's text to the page and calls it there with the arguments.
 */
function inPageFunction<F>(params: string[], body: string): F {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function(...params, body) as unknown as F;
}

/** A computed style property of the first element a locator matches. */
export function computed(locator: Locator, property: string): Promise<string> {
  const fn = inPageFunction<(node: unknown, property: string) => string>(['node', 'property'], 'return getComputedStyle(node).getPropertyValue(property);');
  return locator.evaluate(fn, property);
}

/** The texts of a virtual list's rows, top to bottom as laid out. */
export function rowTexts(locator: Locator): Promise<string[]> {
  const fn = inPageFunction<(nodes: unknown[]) => string[]>(
    ['nodes'],
    `return nodes
      .map((n) => ({ y: new DOMMatrixReadOnly(getComputedStyle(n.closest('.vrow') || n).transform).m42, text: n.textContent || '' }))
      .sort((a, b) => a.y - b.y)
      .map((r) => r.text);`,
  );
  return locator.evaluateAll(fn);
}

/** Scroll an element (a virtual list) to its top or bottom. */
export async function scrollTo(locator: Locator, where: 'top' | 'bottom'): Promise<void> {
  const fn = inPageFunction<(node: unknown, where: string) => void>(['node', 'where'], "node.scrollTop = where === 'top' ? 0 : node.scrollHeight;");
  await locator.evaluate(fn, where);
}

/** Poll a Node-side condition. */
export function eventuallyTrue(predicate: () => boolean, what: string, timeout = 10_000): Promise<void> {
  return waitFor(predicate, timeout, what);
}

/**
 * A fake reporter for runs with holds, terminated in `t.teardown`. Tests
 * send `hold.released` themselves after a decision, as the proxy would.
 */
export async function holdingReporter(port: number, token: string, t: { teardown(fn: () => void): void }): Promise<FakeReporter> {
  const reporter = await fakeReporter(port, token);
  t.teardown(() => reporter.ws.terminate());
  return reporter;
}

/** A decision message as the reporter receives it. */
export interface Decision {
  type: 'decision';
  holdId: string;
  action: string;
  value?: unknown;
}

/** Wait for the decision about `holdId`. */
export async function decisionFor(reporter: FakeReporter, holdId: string, timeout = 10_000): Promise<Decision> {
  const message = await reporter.next((m) => m.type === 'decision' && m.holdId === holdId, timeout, `the decision about ${holdId}`);
  return message as unknown as Decision;
}

/**
 * A `graphmind serve` whose data directory outlives it, so that it can be
 * restarted in place with {@link serveOnPort}; both go at teardown.
 */
export async function restartableServe(t: { teardown(fn: () => unknown): void }): Promise<{ server: ServeProcess; dataDir: string; port: number }> {
  const { root, dataDir } = freshDataDir();
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const server = await startServe([], {}, { dataDir });
  t.teardown(() => server.stop('SIGKILL'));
  return { server, dataDir, port: server.port };
}

/** A `graphmind serve` on a given port and data dir (kept), for restarts. */
export interface ServeOnPort {
  port: number;
  token: string;
  stop(): Promise<void>;
}

/** Start `graphmind serve --port <port> --data-dir <dataDir>` and wait for its listening line. */
export async function serveOnPort(port: number, dataDir: string): Promise<ServeOnPort> {
  const env = { ...process.env };
  delete env.GRAPHMIND_TOKEN;
  delete env.GRAPHMIND_DATA_DIR;
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--data-dir', dataDir], { stdio: 'pipe', env });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = once(child, 'close');
  let gone = false;
  void exited.then(() => (gone = true));
  try {
    await waitFor(() => gone || /debugger listening on/.test(out), 15_000, 'the listening line');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (gone) throw new Error(`graphmind serve exited: ${err}`);
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  return {
    port,
    token,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

/** An attribute of every element a locator matches, in document order (null where it is missing). */
export function attributes(locator: Locator, name: string): Promise<Array<string | null>> {
  const fn = inPageFunction<(nodes: unknown[], name: string) => Array<string | null>>(['nodes', 'name'], 'return nodes.map((n) => n.getAttribute(name));');
  return locator.evaluateAll(fn, name);
}

/** A call whose rejection is marked handled now (awaiting it later still throws): for calls a hold keeps waiting. */
export function pending<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

/** The JSON-RPC id of a held frame (the `#id` of the proxy's HOLDING line). */
export function heldFrameId(hold: { frame: unknown }): string | number {
  return (hold.frame as { id: string | number }).id;
}

/**
 * Scroll an element `step` pixels (back up when negative) once per
 * animation frame for `frames` frames, and return the time each frame took
 * (from one frame to the next), in milliseconds: what a user scrolling
 * would see as smooth or not.
 */
export function frameTimes(page: Page, selector: string, step: number, frames: number): Promise<number[]> {
  return page.evaluate(`(async () => {
    const element = document.querySelector(${JSON.stringify(selector)});
    if (element === null) return [];
    const times = [];
    await new Promise((resolve) => requestAnimationFrame(resolve));
    let last = performance.now();
    for (let i = 0; i < ${frames}; i++) {
      element.scrollTop += ${step};
      // Wrap round at either end, so every frame scrolls.
      if (element.scrollTop <= 0 || element.scrollTop + element.clientHeight >= element.scrollHeight - 1) element.scrollTop = ${step} > 0 ? 0 : element.scrollHeight;
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const now = performance.now();
      times.push(now - last);
      last = now;
    }
    return times;
  })()`) as Promise<number[]>;
}

/**
 * Save a screenshot of the page as `<GRAPHMIND_TEST_SHOTS>/<name>.png` when
 * that variable names a folder (to look at what a test saw); nothing otherwise.
 */
export async function shot(page: Page, name: string): Promise<void> {
  const dir = process.env.GRAPHMIND_TEST_SHOTS;
  if (dir !== undefined && dir !== '') await page.screenshot({ path: join(dir, `${name}.png`) });
}

/**
 * Breakpoints as GET /api/breakpoints gives them, with an empty `rules`
 * left out: GET lists the rules (issue 33), and tests about nodes and
 * pause-on-error compare the rest.
 */
export function noRules(breakpoints: unknown): Breakpoints {
  const { rules, ...rest } = breakpoints as Breakpoints;
  return rules === undefined || rules.length === 0 ? rest : (breakpoints as Breakpoints);
}
