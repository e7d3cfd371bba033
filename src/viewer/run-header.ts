// The selected run's header: name, status, source, start time, duration, and
// what the reporter told us about it (command, server, protocol version; for
// the adapter's runs, the server, connection, HTTP session and transport), and
// the `graphmind replay` / `graphmind verify` lines that make the run a test.
import { el, safeLink, setAttr, setChildren } from './dom.js';
import { ExportMenu } from './export-menu.js';
import { cut, duration, plural, span, when } from './format.js';
import { jsonBlock } from './json-view.js';
import { replayLinesBlock } from './replay-lines.js';
import { RestartControl } from './restarts.js';
import type { RunModel } from './run-model.js';
import type { Store } from './store.js';

const URLISH = /^[a-z][a-z0-9+.-]*:\S+$/i;

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function info(value: unknown): { name?: string; version?: string } {
  if (value === null || typeof value !== 'object') return {};
  const v = value as Record<string, unknown>;
  return { name: str(v.name), version: str(v.version) };
}

/** URL-looking strings in the run's meta (two levels deep); only http(s) ones become links. */
function urls(meta: Record<string, unknown>): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const visit = (value: unknown, path: string, depth: number): void => {
    if (out.length >= 6) return;
    if (typeof value === 'string') {
      if (URLISH.test(value) && value.length < 2000 && !/^[a-z]:[\\/]/i.test(value)) out.push([path, value]);
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < 2) {
      for (const [key, child] of Object.entries(value as Record<string, unknown>)) visit(child, path === '' ? key : `${path}.${key}`, depth + 1);
    }
  };
  visit(meta, '', 0);
  return out;
}

/** `3 tools, 1 resource, 1 prompt`: the hinted nodes by kind. */
function hintCounts(run: RunModel): string {
  const counts = new Map<string, number>();
  for (const nodeId of run.hinted) {
    const kind = run.node(nodeId)?.node.kind ?? 'custom';
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts].map(([kind, count]) => `${count} ${kind === 'custom' ? 'node' : kind}${count === 1 ? '' : 's'}`).join(', ');
}

/**
 * The notice of a run whose log stopped being written (a full disk): what
 * the page shows from then on is in memory only, and a restart loses it.
 */
function recordingNotice(reason: string | undefined): HTMLElement | null {
  if (reason === undefined) return null;
  return el(
    'p',
    { class: 'recording-stopped', attrs: { role: 'status' } },
    el('strong', { text: 'Recording stopped: ' }),
    el('span', { class: 'recording-reason', text: cut(reason, 500) }),
    el('span', { text: '. What happens next is shown here but not saved: after the debugger restarts, this run ends where its recording stopped.' }),
  );
}

/** The header of the selected run. */
export class RunHeader {
  readonly element: HTMLElement;
  #sig = '';
  #duration: HTMLElement | null = null;
  /** The Export button and its menu (JSONL, HAR, OTLP JSON, cassette; redaction). */
  readonly #export = new ExportMenu();
  /** The Restart server button and the run's restarts. */
  readonly #restarts: RestartControl;

  constructor(private readonly store: Store) {
    this.element = el('section', { class: 'run-header' });
    this.#restarts = new RestartControl(store);
  }

  render(): void {
    const { run, runLoading, runError } = this.store;
    if (run === null) {
      const sig = `none|${runLoading}|${runError ?? ''}`;
      if (sig !== this.#sig) {
        this.#sig = sig;
        setChildren(this.element, runLoading ? el('p', { class: 'muted', text: 'Loading the run…' }) : runError !== null ? el('p', { class: 'error-text', text: runError }) : null);
      }
      return;
    }
    const { summary, meta } = run;
    const sig = `${summary.runId}|${summary.status}|${summary.endedAt}|${summary.name}|${run.droppedEvents}|${run.hinted.size}|${JSON.stringify(meta).length}|${summary.recordingStopped ?? ''}`;
    if (sig === this.#sig) {
      this.tick();
      return;
    }
    this.#sig = sig;
    const server = info(meta.serverInfo);
    const client = info(meta.clientInfo);
    const facts: Array<HTMLElement | null> = [
      el('span', { text: summary.source }),
      el('span', { text: `started ${when(summary.startedAt)}` }),
    ];
    this.#duration = el('span', { class: 'run-took', text: duration(span(summary.startedAt, summary.endedAt)) });
    facts.push(this.#duration);
    const command = str(meta.command);
    if (command !== undefined) {
      const args = Array.isArray(meta.args) ? meta.args.filter((a): a is string => typeof a === 'string') : [];
      facts.push(el('code', { class: 'run-command', text: cut([command, ...args].join(' '), 200) }));
    }
    if (server.name !== undefined) facts.push(el('span', { text: `server ${server.name}${server.version !== undefined ? ` ${server.version}` : ''}` }));
    if (client.name !== undefined) facts.push(el('span', { text: `client ${client.name}${client.version !== undefined ? ` ${client.version}` : ''}` }));
    const protocol = str(meta.protocolVersion);
    if (protocol !== undefined) facts.push(el('span', { text: `protocol ${protocol}` }));
    // The adapter's meta: the server by name (its node carries the version), the connection and session it came over.
    const adapterServer = str(meta.server);
    if (server.name === undefined && adapterServer !== undefined) facts.push(el('span', { class: 'run-server', text: `server ${cut(adapterServer, 120)}` }));
    const connection = str(meta.connection);
    if (connection !== undefined) facts.push(el('span', { class: 'run-connection', text: `connection ${cut(connection, 60)}` }));
    const sessionId = str(meta.sessionId);
    if (sessionId !== undefined) facts.push(el('span', { class: 'run-session', text: `session ${cut(sessionId, 60)}`, title: sessionId }));
    const transport = str(meta.transport);
    if (transport !== undefined) facts.push(el('span', { text: `transport ${cut(transport, 80)}` }));
    const links = urls(meta).map(([key, url]) => el('span', { class: 'meta-link' }, `${key}: `, safeLink(cut(url, 80), url)));
    // Named by its server when the run knows it (serverInfo.name), the run's own name beside it.
    const named = summary.server?.name ?? server.name;
    const title = el(
      'div',
      { class: 'run-title' },
      el('h2', { text: named ?? summary.name, title: named === undefined ? summary.name : `${named} · ${summary.name}` }),
      named === undefined || named === summary.name ? null : el('span', { class: 'run-subtitle', text: summary.name, title: summary.name }),
      el('span', { class: `pill status-${summary.status}`, text: summary.status }),
      this.#export.render(summary.runId),
    );
    setAttr(title, 'data-run-id', summary.runId);
    setChildren(
      this.element,
      title,
      el('div', { class: 'run-facts muted' }, ...facts, ...links, jsonBlock('meta', meta, false, 'meta')),
      replayLinesBlock(summary.runId, meta),
      recordingNotice(summary.recordingStopped),
      this.#restarts.render(run),
      run.droppedEvents > 0 ? el('p', { class: 'warn-text', text: `${plural(run.droppedEvents, 'event was', 'events were')} dropped by the reporter while the debugger was away or behind.` }) : null,
      run.hinted.size > 0
        ? el('p', { class: 'hint hint-summary', text: `What the server registered (${hintCounts(run)}) is drawn grey: nothing has called it in this run. Each call is a run of its own, listed with this connection.` })
        : null,
    );
  }

  tick(): void {
    const run = this.store.run;
    if (run !== null && this.#duration !== null && run.summary.endedAt === null) {
      this.#duration.textContent = duration(span(run.summary.startedAt, null));
    }
  }
}
