// The Inject… editor: a value that parses as JSON is sent as JSON, anything
// else as a string. Ctrl/Cmd+Enter sends, Esc closes. Its dialog is a value
// editor that Send again's params editor shares (openValueEditor).
import type { Hold } from '../protocol/control.js';
import { button, el, setAttr, type Child } from './dom.js';
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

/** What a value editor reads the typed text as: `ok` false keeps its button off. */
export interface TypedValue {
  value: unknown;
  ok: boolean;
  /** The line under the text: what it will be sent as, or why it cannot be. */
  note: string;
}

/** The dialog of a value editor (the Inject… editor, Send again's params editor). */
export interface ValueEditorOptions {
  /** The dialog's accessible name. */
  label: string;
  /** Its heading. */
  title: Child[];
  /** The line that says what the value does. */
  hint: string;
  /** The text it starts with, and the placeholder while it is empty. */
  initial: string;
  placeholder: string;
  /** The textarea's accessible name. */
  areaLabel: string;
  /** The send button's text and `data-action` (the cancel button's is `<prefix>-cancel`). */
  submitLabel: string;
  actionPrefix: string;
  /** An attribute set on the overlay, naming what it edits. */
  mark: [string, string];
  /** How the typed text reads. */
  read(text: string): TypedValue;
  /** Send the value; true closes the editor. */
  onSubmit(value: unknown): Promise<boolean>;
  onClose(): void;
}

/** Open a modal editor of one JSON value (see {@link ValueEditorOptions}). Ctrl/Cmd+Enter sends, Esc closes. */
export function openValueEditor(o: ValueEditorOptions): { element: HTMLElement; close(): void } {
  const area = el('textarea', { class: 'inject-text', attrs: { spellcheck: 'false', rows: '14', 'aria-label': o.areaLabel, autocomplete: 'off' } });
  area.value = o.initial;
  area.placeholder = o.placeholder;
  const hint = el('p', { class: 'inject-kind', attrs: { 'aria-live': 'polite' } });
  const update = (): void => {
    const typed = o.read(area.value);
    hint.textContent = typed.note;
    send.disabled = !typed.ok;
  };
  // Where the focus was (the button that opened it, or the page for a key): it goes back there.
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    overlay.remove();
    o.onClose();
    if (opener !== null && opener.isConnected) opener.focus();
  };
  const submit = async (): Promise<void> => {
    const typed = o.read(area.value);
    if (!typed.ok) return;
    send.disabled = true;
    const ok = await o.onSubmit(typed.value);
    if (ok) close();
    else send.disabled = false;
  };
  const send = button(o.submitLabel, () => void submit(), 'btn primary');
  setAttr(send, 'data-action', o.actionPrefix);
  const cancel = button('Cancel', close, 'btn');
  setAttr(cancel, 'data-action', `${o.actionPrefix.replace(/-send$/, '')}-cancel`);
  area.addEventListener('input', update);
  area.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void submit();
    }
  });
  const dialog = el(
    'div',
    { class: 'dialog', attrs: { role: 'dialog', 'aria-modal': 'true', 'aria-label': o.label } },
    el('h3', {}, ...o.title),
    el('p', { class: 'hint', text: o.hint }),
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
  setAttr(overlay, o.mark[0], o.mark[1]);
  overlay.addEventListener('mousedown', (event) => {
    if (event.target === overlay) close();
  });
  document.body.appendChild(overlay);
  update();
  area.focus();
  area.setSelectionRange(area.value.length, area.value.length);
  return { element: overlay, close };
}

/** Open the editor for a hold; `onSubmit` gets the value to inject. */
export function openInjectEditor(hold: Hold, onSubmit: (value: unknown) => Promise<boolean>, onClose: () => void): EditorHandle {
  const where = hold.gate === 'before' ? 'the request is answered with it; your server never receives it' : 'the answer is rewritten to carry it';
  const editor = openValueEditor({
    label: 'Inject a value',
    title: ['Inject a value for ', el('code', { text: hold.method }), ` at the ${hold.gate} gate`],
    hint: `Type the answer, not the envelope: a bare value is lifted into the result the method returns, and ${where}. Text that parses as JSON is sent as JSON; anything else as a string.`,
    initial: initialText(hold),
    placeholder: hold.gate === 'before' ? '{ "tasks": [{ "id": "PAY-102", "status": "blocked" }] }' : '',
    areaLabel: 'value to inject',
    submitLabel: 'Inject & resume',
    actionPrefix: 'inject-send',
    mark: ['data-hold-id', hold.holdId],
    read: (text) => {
      const { value, asJson } = parseInjected(text);
      return { value, ok: text !== '', note: text === '' ? 'Type a value.' : describe(value, asJson) };
    },
    onSubmit,
    onClose,
  });
  return { holdId: hold.holdId, ...editor };
}
