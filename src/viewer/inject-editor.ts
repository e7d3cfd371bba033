// The Inject… editor: a value that parses as JSON is sent as JSON, anything
// else as a string. Ctrl/Cmd+Enter sends, Esc closes.
import type { Hold } from '../protocol/control.js';
import { button, el, setAttr } from './dom.js';
import { pretty } from './format.js';

/** What the typed text will be sent as. */
export function parseInjected(text: string): { value: unknown; asJson: boolean } {
  try {
    return { value: JSON.parse(text) as unknown, asJson: true };
  } catch {
    return { value: text, asJson: false };
  }
}

/** Where the editor starts: the current result for a held answer, empty for a held request. */
export function initialText(hold: Hold): string {
  if (hold.gate === 'before') return '';
  const frame = hold.frame;
  if (frame !== null && typeof frame === 'object' && 'result' in frame) return pretty((frame as { result: unknown }).result);
  return '';
}

function describe(value: unknown, asJson: boolean): string {
  if (!asJson) return 'Will be sent as a string (it is not JSON).';
  if (value === null) return 'Will be sent as JSON: null.';
  if (Array.isArray(value)) return 'Will be sent as JSON: an array.';
  return `Will be sent as JSON: ${typeof value === 'object' ? 'an object' : `a ${typeof value}`}.`;
}

/** An open editor. */
export interface EditorHandle {
  readonly holdId: string;
  readonly element: HTMLElement;
  close(): void;
}

/** Open the editor for a hold; `onSubmit` gets the value to inject. */
export function openInjectEditor(hold: Hold, onSubmit: (value: unknown) => Promise<boolean>, onClose: () => void): EditorHandle {
  const area = el('textarea', { class: 'inject-text', attrs: { spellcheck: 'false', rows: '14', 'aria-label': 'value to inject', autocomplete: 'off' } });
  area.value = initialText(hold);
  area.placeholder = hold.gate === 'before' ? '{ "tasks": [{ "id": "PAY-102", "status": "blocked" }] }' : '';
  const hint = el('p', { class: 'inject-kind', attrs: { 'aria-live': 'polite' } });
  const update = (): void => {
    const { value, asJson } = parseInjected(area.value);
    hint.textContent = area.value === '' ? 'Type a value.' : describe(value, asJson);
    send.disabled = area.value === '';
  };
  // Where the focus was (the Inject… button, or the page for the `i` key): it goes back there.
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    overlay.remove();
    onClose();
    if (opener !== null && opener.isConnected) opener.focus();
  };
  const submit = async (): Promise<void> => {
    if (area.value === '') return;
    send.disabled = true;
    const ok = await onSubmit(parseInjected(area.value).value);
    if (ok) close();
    else send.disabled = false;
  };
  const send = button('Inject & resume', () => void submit(), 'btn primary');
  setAttr(send, 'data-action', 'inject-send');
  const cancel = button('Cancel', close, 'btn');
  setAttr(cancel, 'data-action', 'inject-cancel');
  area.addEventListener('input', update);
  area.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void submit();
    }
  });
  const where = hold.gate === 'before' ? 'the request is answered with it; your server never receives it' : 'the answer is rewritten to carry it';
  const dialog = el(
    'div',
    { class: 'dialog', attrs: { role: 'dialog', 'aria-modal': 'true', 'aria-label': 'Inject a value' } },
    el('h3', {}, 'Inject a value for ', el('code', { text: hold.method }), ` at the ${hold.gate} gate`),
    el('p', { class: 'hint', text: `Type the answer, not the envelope: a bare value is lifted into the result the method returns, and ${where}. Text that parses as JSON is sent as JSON; anything else as a string.` }),
    area,
    hint,
    el('div', { class: 'dialog-actions' }, el('span', { class: 'muted keys', text: 'Ctrl+Enter sends · Esc closes' }), cancel, send),
  );
  // A modal keeps the keyboard: Tab and Shift+Tab go round its own controls.
  dialog.addEventListener('keydown', (event) => {
    if (event.key !== 'Tab') return;
    const stops = [area, cancel, send].filter((control) => !control.disabled);
    const first = stops[0];
    const last = stops[stops.length - 1];
    if (first === undefined || last === undefined) return;
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  });
  const overlay = el('div', { class: 'overlay' }, dialog);
  setAttr(overlay, 'data-hold-id', hold.holdId);
  overlay.addEventListener('mousedown', (event) => {
    if (event.target === overlay) close();
  });
  document.body.appendChild(overlay);
  update();
  area.focus();
  area.setSelectionRange(area.value.length, area.value.length);
  return { holdId: hold.holdId, element: overlay, close };
}
