// The run header's Export control: "Export" saves the run's JSONL log (what
// `graphmind import` loads into another viewer), and the small menu beside
// it saves the run as a HAR file or as an OTLP/JSON trace, all through
// GET /api/runs/:runId/export?format=… (the token as a bearer header; the
// file is handed to the browser as a download).
import { button, el, setAttr, setChildren } from './dom.js';
import { refreshToken, token } from './token.js';

type Format = 'jsonl' | 'har' | 'otlp-json';

const EXTENSIONS: Record<Format, string> = { jsonl: 'jsonl', har: 'har', 'otlp-json': 'otlp.json' };

async function fetchExport(runId: string, format: Format, retried = false): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(`/api/runs/${encodeURIComponent(runId)}/export?format=${format}`, {
      headers: { authorization: `Bearer ${token()}` },
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new Error('the debugger is not reachable');
  }
  if (res.status === 401 && !retried && (await refreshToken())) return fetchExport(runId, format, true);
  if (!res.ok) {
    let message = `export failed: HTTP ${res.status}`;
    try {
      const data = (await res.json()) as { error?: unknown };
      if (typeof data.error === 'string') message = `export failed: ${data.error}`;
    } catch {
      // keep the generic message
    }
    throw new Error(message);
  }
  return res.blob();
}

/** The Export button and its menu, for the selected run. */
export class ExportMenu {
  readonly element: HTMLElement;
  #runId = '';
  readonly #status: HTMLElement;
  /** The other formats, shown by the ▾ button beside Export. */
  readonly #menu: HTMLElement;
  readonly #toggle: HTMLButtonElement;

  constructor() {
    this.#status = el('span', { class: 'muted export-status' });
    const save = button('⤓ Export', () => void this.#save('jsonl'), 'btn small export-btn', 'Save this run as its JSONL log (graphmind import loads it into another viewer)');
    setAttr(save, 'data-action', 'export-run');
    const har = button('HAR', () => void this.#save('har'), 'btn small', 'Save the calls as an HTTP Archive (HAR 1.2), for HAR viewers and browser devtools');
    setAttr(har, 'data-format', 'har');
    const otlp = button('OTLP JSON', () => void this.#save('otlp-json'), 'btn small', 'Save the run as an OpenTelemetry trace (OTLP/JSON), to send to a tracing backend');
    setAttr(otlp, 'data-format', 'otlp-json');
    this.#toggle = button('▾', () => this.#open(this.#menu.hidden), 'btn small export-more', 'Other formats: HAR, OTLP JSON');
    setAttr(this.#toggle, 'aria-expanded', 'false');
    this.#menu = el('span', { class: 'export-menu' }, ' ', har, ' ', otlp);
    this.#menu.hidden = true;
    this.element = el('span', { class: 'export-control' });
    setChildren(this.element, save, ' ', this.#toggle, this.#menu, ' ', this.#status);
  }

  /** Point the control at `runId` (the header's run). */
  render(runId: string): HTMLElement {
    if (runId !== this.#runId) {
      this.#runId = runId;
      this.#status.textContent = '';
      this.#open(false);
    }
    return this.element;
  }

  #open(open: boolean): void {
    this.#menu.hidden = !open;
    setAttr(this.#toggle, 'aria-expanded', String(open));
  }

  async #save(format: Format): Promise<void> {
    const runId = this.#runId;
    this.#open(false);
    this.#status.className = 'muted export-status';
    this.#status.textContent = 'exporting…';
    try {
      const blob = await fetchExport(runId, format);
      const url = URL.createObjectURL(blob);
      // Our own blob URL, not server data: set as properties (dom.ts's attribute list is for untrusted values).
      const link = document.createElement('a');
      link.href = url;
      link.download = `${runId}.${EXTENSIONS[format]}`;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      if (this.#runId === runId) this.#status.textContent = '';
    } catch (error) {
      if (this.#runId !== runId) return;
      this.#status.className = 'error-text export-status';
      this.#status.textContent = error instanceof Error ? error.message : String(error);
    }
  }
}
