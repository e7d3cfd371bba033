// A value shown as collapsible pretty JSON, with a button that copies the raw
// value. The text goes in through textContent only.
import { button, el } from './dom.js';
import { pretty } from './format.js';

/** Characters shown before "Show all" (a huge result would make the row unwieldy). */
const SHOWN = 20_000;

/** Copy text to the clipboard, with a fallback for pages where the API is missing. */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = el('textarea');
    area.value = text;
    area.className = 'offscreen';
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

/** The raw value for the clipboard: a string as itself, anything else as JSON. */
export function rawText(value: unknown): string {
  return typeof value === 'string' ? value : pretty(value);
}

/** A `<details>` block titled `label` with the value as pretty JSON. */
export function jsonBlock(label: string, value: unknown, open = true, className = ''): HTMLDetailsElement {
  const text = pretty(value);
  const pre = el('pre', { class: 'json', text: text.length > SHOWN ? text.slice(0, SHOWN) : text });
  const copy = button('Copy', (event) => {
    event.preventDefault();
    event.stopPropagation();
    void copyText(rawText(value)).then((ok) => {
      copy.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (copy.textContent = 'Copy'), 1200);
    });
  }, 'btn small copy', `Copy the ${label}`);
  const summary = el('summary', {}, el('span', { class: 'json-label', text: label }), copy);
  const details = el('details', { class: `json-block ${className}`.trim() }, summary, pre);
  details.open = open;
  if (text.length > SHOWN) {
    const more = button(`Show all (${text.length.toLocaleString()} characters)`, () => {
      pre.textContent = text;
      more.remove();
    }, 'btn small');
    details.appendChild(more);
  }
  return details;
}
