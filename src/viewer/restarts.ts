// Restarts of a proxy run's server under its live host session (issue 22):
// the Restart server button (POST /api/runs/:runId/restart), with a notice
// of how it went once the run records it; the run's restarts as
// `meta.restarts` lists them (when, why, the new pid, the handshake time,
// ok or the error); the session node's restart lines, marked on the
// timeline; and which server generation answered a call.
import type { Instance, LogLine, RestartRecord } from '../protocol/run-model.js';
import { ApiError, api } from './api.js';
import { button, el, setAttr } from './dom.js';
import { clock, cut, plural } from './format.js';
import type { RunModel } from './run-model.js';
import type { Store } from './store.js';

/** One restart as the page shows it: `meta.restarts[i]` (a {@link RestartRecord}), checked (it is reporter data). */
export type RestartView = RestartRecord & { changed: Array<{ kind: string; told: boolean }> };

/** The most restarts listed in the header (the newest); the rest are counted. */
const LISTED = 5;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The run's restarts, oldest first; entries that are not restart records are skipped. */
export function restartsOf(run: RunModel | null): RestartView[] {
  const list = run?.meta.restarts;
  if (!Array.isArray(list)) return [];
  const out: RestartView[] = [];
  for (const item of list) {
    if (item === null || typeof item !== 'object') continue;
    const r = item as Record<string, unknown>;
    const n = num(r.n);
    const at = str(r.at);
    if (n === undefined || at === undefined) continue;
    const changed = Array.isArray(r.changed)
      ? r.changed
          .filter((c): c is Record<string, unknown> => c !== null && typeof c === 'object' && typeof (c as Record<string, unknown>).kind === 'string')
          .map((c) => ({ kind: String(c.kind), told: c.told === true }))
      : [];
    out.push({ n, at, reason: str(r.reason) ?? 'restart', file: str(r.file), ok: r.ok === true, pid: num(r.pid), ms: num(r.ms), error: str(r.error), changed });
  }
  return out;
}

/** The last part of a path, for a line that has little room. */
function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** One restart in a line: `#2 12:03:04.120 file change (server.ts) — pid 4242, ready in 45 ms; tools changed (the host was told)`. */
export function restartText(r: RestartView): string {
  const why = r.file === undefined ? r.reason : `${r.reason} (${baseName(r.file)})`;
  if (!r.ok) return `#${r.n} ${clock(r.at)} ${why} — did not come back: ${cut(r.error ?? 'it failed', 300)}`;
  const lists = r.changed.map((c) => `${c.kind} changed (${c.told ? 'the host was told' : 'the host was not told: the server does not announce it'})`);
  return `#${r.n} ${clock(r.at)} ${why} — pid ${r.pid ?? '?'}, ready in ${r.ms ?? 0} ms${lists.length === 0 ? '' : `; ${lists.join('; ')}`}`;
}

/** Is this log line the proxy's record of a restart (on the session node, stream `graphmind`)? */
export function isRestartLine(log: LogLine): boolean {
  return log.stream === 'graphmind' && /^the MCP server (was restarted|could not be restarted)\b/.test(log.text);
}

/**
 * The server generation that answered a call: the number of restarts
 * begun before its answer (0: the first server). Undefined for a call not
 * answered yet, in a run that was never restarted, or answered by the
 * proxy itself because no server could (in flight at a restart, or while
 * none ran).
 */
export function generationOf(instance: Instance, restarts: readonly RestartView[]): number | undefined {
  if (restarts.length === 0 || instance.endedAt === null) return undefined;
  const name = instance.error?.name;
  if (name === 'ServerRestarted' || name === 'ServerNotRunning') return undefined;
  const answered = instance.deliveredAt ?? instance.endedAt;
  let n = 0;
  for (const r of restarts) if (r.at <= answered) n = r.n;
  return n;
}

/** Can the Restart server button restart this run's server: a proxy's run, still running? */
export function restartable(run: RunModel | null): boolean {
  return run !== null && run.summary.source === 'mcp-proxy' && run.summary.status === 'running';
}

/**
 * The header's restart part: the button (for a live proxy run) and the
 * run's restarts. Kept by the header across its redraws: it remembers a
 * restart it asked for until the run records how it went, and says so.
 */
export class RestartControl {
  readonly #store: Store;
  /** A restart asked for and not recorded yet: the run, and how many restarts it had then. */
  #asked: { runId: string; count: number } | undefined;
  #busy = false;
  readonly #button: HTMLButtonElement;

  constructor(store: Store) {
    this.#store = store;
    this.#button = button('⟳ Restart server', () => void this.#restart(), 'btn small restart-btn', 'Stop the MCP server and start it again under the live host session (the host keeps its session)');
    setAttr(this.#button, 'data-action', 'restart-server');
  }

  /** What the header shows of restarts for `run` (null: nothing to show); tells the outcome of a restart it asked for. */
  render(run: RunModel): HTMLElement | null {
    const restarts = restartsOf(run);
    this.#outcome(run, restarts);
    const live = restartable(run);
    if (!live && restarts.length === 0) return null;
    this.#button.disabled = this.#busy || this.#asked?.runId === run.summary.runId;
    this.#button.textContent = this.#button.disabled ? '⟳ Restarting…' : '⟳ Restart server';
    const shown = restarts.slice(-LISTED).reverse();
    const list = el('ol', { class: 'restart-list', attrs: { 'aria-label': 'restarts' } });
    for (const r of shown) {
      const item = el('li', { class: `restart ${r.ok ? 'restart-ok' : 'restart-failed'}`, text: restartText(r), title: r.error ?? r.file ?? '' });
      setAttr(item, 'data-restart', String(r.n));
      list.appendChild(item);
    }
    const head = el(
      'div',
      { class: 'restart-head' },
      live ? this.#button : null,
      el('span', { class: 'muted restart-count', text: restarts.length === 0 ? 'not restarted' : `restarted ${plural(restarts.length, 'time')}` }),
      restarts.length > LISTED ? el('span', { class: 'muted', text: `(the last ${LISTED} shown; all in meta.restarts)` }) : null,
    );
    return el('div', { class: 'run-restarts', attrs: { 'aria-label': 'server restarts' } }, head, restarts.length === 0 ? null : list);
  }

  async #restart(): Promise<void> {
    const run = this.#store.run;
    if (run === null || this.#busy) return;
    const runId = run.summary.runId;
    this.#busy = true;
    this.#redraw();
    try {
      const count = restartsOf(run).length;
      await api.restartServer(runId);
      // Unless the run recorded it while we waited for the answer.
      if (restartsOf(this.#store.run).length === count || this.#store.run?.summary.runId !== runId) this.#asked = { runId, count };
      this.#store.notify('Restarting the server…');
    } catch (error) {
      const message = error instanceof ApiError || error instanceof Error ? error.message : 'error';
      this.#store.notify(`Could not restart the server: ${message}`);
    } finally {
      this.#busy = false;
      this.#redraw();
    }
  }

  /** A restart this page asked for has been recorded: say how it went. */
  #outcome(run: RunModel, restarts: readonly RestartView[]): void {
    const asked = this.#asked;
    if (asked === undefined || asked.runId !== run.summary.runId) return;
    if (run.summary.status !== 'running' && restarts.length === asked.count) {
      this.#asked = undefined;
      this.#store.notify('The run ended before the server was restarted.');
      return;
    }
    if (restarts.length <= asked.count) return;
    this.#asked = undefined;
    const r = restarts[restarts.length - 1] as RestartView;
    this.#store.notify(r.ok ? `Server restarted: pid ${r.pid ?? '?'}, ready in ${r.ms ?? 0} ms.` : `The server did not come back: ${cut(r.error ?? 'it failed', 200)}`);
  }

  /** Redraw the header (its signature does not see the button's state). */
  #redraw(): void {
    this.#button.disabled = this.#busy || this.#asked !== undefined;
    this.#button.textContent = this.#button.disabled ? '⟳ Restarting…' : '⟳ Restart server';
  }
}
