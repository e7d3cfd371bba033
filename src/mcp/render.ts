/**
 * The short text rendering of a result, pure. Clients that show a tool's
 * text (and the assistant's user) get a few lines; the structured content
 * carries the data.
 *
 * @module
 */
import { capText } from './cap.js';
import { TEXT_CHARS } from './limits.js';

/**
 * `head`, then as many of `lines` as fit in {@link TEXT_CHARS} characters
 * (a line longer than 300 characters is cut), then `tail` if given; when
 * lines were left out it says how many, and that the structured content
 * has them all.
 */
export function renderText(head: string, lines: readonly string[], tail?: string): string {
  const out = [head];
  let used = head.length + (tail?.length ?? 0);
  let shown = 0;
  for (const line of lines) {
    const cut = capText(line, 300).text;
    if (used + cut.length + 1 > TEXT_CHARS - 80) break;
    out.push(cut);
    used += cut.length + 1;
    shown++;
  }
  if (shown < lines.length) out.push(`… ${lines.length - shown} more line(s) in the structured result`);
  if (tail !== undefined && tail !== '') out.push(tail);
  return out.join('\n');
}

/** "next page: call again with cursor …", or '' on the last page. */
export function nextPageLine(nextCursor: string | null): string {
  return nextCursor === null ? '' : `more: call again with cursor "${nextCursor}"`;
}

/** "rows a–b of n" for a page. */
export function rangeText(offset: number, shown: number, total: number, noun: string): string {
  if (total === 0) return `no ${noun}`;
  if (shown === 0) return `${total} ${noun}`;
  return `${noun} ${offset + 1}-${offset + shown} of ${total}`;
}
