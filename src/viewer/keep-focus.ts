/**
 * A list redrawn whole (the run list, on every live update) replaces the
 * element the keyboard is on. Before the redraw, note where the focus is:
 * the row (by the data attribute that names it) and the part of the row
 * (its action, or its classes); after it, put the focus on the same part
 * of the same row, if it is still drawn. A user tabbing through the list,
 * or about to press Enter, does not lose their place to a run that ended.
 */
export function redrawKeepingFocus(list: HTMLElement, rowAttributes: readonly string[], redraw: () => void): void {
  const place = focusPlace(list, rowAttributes);
  redraw();
  if (place === undefined) return;
  const target = list.querySelector<HTMLElement>(place);
  if (target !== null && document.activeElement !== target) target.focus({ preventScroll: true });
}

/** A selector for the focused element inside `list`, by its row and its part; undefined when the focus is elsewhere. */
function focusPlace(list: HTMLElement, rowAttributes: readonly string[]): string | undefined {
  const active = document.activeElement;
  if (!(active instanceof HTMLElement) || active === list || !list.contains(active)) return undefined;
  const row = active.closest<HTMLElement>(rowAttributes.map((name) => `[${name}]`).join(','));
  if (row === null || !list.contains(row)) return undefined;
  const name = rowAttributes.find((attribute) => row.hasAttribute(attribute)) as string;
  const rowSelector = `[${name}="${CSS.escape(row.getAttribute(name) ?? '')}"]`;
  if (active === row) return rowSelector;
  const action = active.getAttribute('data-action');
  const part = action !== null ? `[data-action="${CSS.escape(action)}"]` : [...active.classList].map((name) => `.${CSS.escape(name)}`).join('');
  return part === '' ? undefined : `${rowSelector} ${part}`;
}
