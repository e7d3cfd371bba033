// The run header's Export control: "Export" saves the run's JSONL log (what
// `graphmind import` loads into another viewer), and the small menu beside
// it saves the run as a HAR file, an OTLP/JSON trace or an mcp-recorder
// cassette, all through GET /api/runs/:runId/export?format=… (the token as a
// bearer header; the file is handed to the browser as a download). The
// menu's Redact field takes JSONPaths, one a line (`graphmind export
// --redact`): what they select is saved as "[redacted]", in any format.
import { button, el, setAttr, setChildren } from './dom.js';
import { refreshToken, token } from './token.js';

type Format = 'jsonl' | 'har' | 'otlp-json' | 'cassette';

const EXTENSIONS: Record<Format, string> = { jsonl: 'jsonl', har: 'har', 'otlp-json': 'otlp.json', cassette: 'cassette.json' };

/** The Redact field's paths: one a line, blank lines left out. */
export function redactPaths(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The export's query: the format, then each path to redact. */
export function exportQuery(format: Format, redact: readonly string[]): string {
  return [`format=${format}`, ...redact.map((path) => `redact=${encodeURIComponent(path)}`)].join('&');
}

async function fetchExport(runId: string, format: Format, redact: readonly string[], retried = false): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(`/api/runs/${encodeURIComponent(runId)}/export?${exportQuery(format, redact)}`, {
      headers: { authorization: `Bearer ${token()}` },
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    throw new Error('the debugger is not reachable');
  }
  if (res.status === 401 && !retried && (await refreshToken())) return fetchExport(runId, format, redact, true);
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
  /** The paths to redact, one a line (kept from run to run: a secret's path is usually the same). */
  readonly #redact: HTMLTextAreaElement;

  constructor() {
    this.#status = el('span', { class: 'muted export-status' });
    const save = button('⤓ Export', () => void this.#save('jsonl'), 'btn small export-btn', 'Save this run as its JSONL log (graphmind import loads it into another viewer)');
    setAttr(save, 'data-action', 'export-run');
    const har = button('HAR', () => void this.#save('har'), 'btn small', 'Save the calls as an HTTP Archive (HAR 1.2), for HAR viewers and browser devtools');
    setAttr(har, 'data-format', 'har');
    const otlp = button('OTLP JSON', () => void this.#save('otlp-json'), 'btn small', 'Save the run as an OpenTelemetry trace (OTLP/JSON), to send to a tracing backend');
    setAttr(otlp, 'data-format', 'otlp-json');
    const cassette = button('Cassette', () => void this.#save('cassette'), 'btn small', 'Save the calls as an mcp-recorder cassette, for graphmind replay and verify or mcp-recorder');
    setAttr(cassette, 'data-format', 'cassette');
    this.#toggle = button('▾', () => this.#open(this.#menu.hidden), 'btn small export-more', 'Other formats (HAR, OTLP JSON, cassette) and redaction');
    setAttr(this.#toggle, 'aria-expanded', 'false');
    this.#redact = el('textarea', { class: 'export-redact-paths', attrs: { rows: '2', spellcheck: 'false', 'aria-label': 'JSONPaths to redact, one a line', placeholder: '$.params.arguments.apiKey' } });
    const redact = el('label', { class: 'export-redact', title: 'What these JSONPaths select in each message is saved as "[redacted]", in any format (as graphmind export --redact). Scope one to a tool: tools/call:login $.params.arguments.password' }, el('span', { text: 'Redact (JSONPath, one a line):' }), this.#redact);
    this.#menu = el('span', { class: 'export-menu' }, ' ', har, ' ', otlp, ' ', cassette, ' ', redact);
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
      const blob = await fetchExport(runId, format, redactPaths(this.#redact.value));
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
