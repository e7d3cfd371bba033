// The only way the viewer builds DOM: elements from tag names, text through
// text nodes, attributes through setAttribute on a short list of safe names.
// Nothing here ever parses a string as HTML.

/** What a child can be: a node, text (made into a text node), or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** Properties for {@link el}. */
export interface Props {
  class?: string;
  /** Set as textContent. */
  text?: string;
  title?: string;
  /** Extra attributes; only names in SAFE_ATTRIBUTES or data-* / aria-* are accepted. */
  attrs?: Record<string, string>;
  onClick?: (event: MouseEvent) => void;
}

const SAFE_ATTRIBUTES = new Set(['role', 'tabindex', 'type', 'placeholder', 'spellcheck', 'disabled', 'id', 'for', 'name', 'value', 'rows', 'open', 'autocomplete']);

/** Set an attribute if its name is safe for untrusted values; throws otherwise (a programming error). */
export function setAttr(element: Element, name: string, value: string): void {
  if (!SAFE_ATTRIBUTES.has(name) && !name.startsWith('data-') && !name.startsWith('aria-')) {
    throw new Error(`refusing to set attribute ${name}`);
  }
  element.setAttribute(name, value);
}

/** Create an element. Strings become text nodes, never markup. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class !== undefined) element.className = props.class;
  if (props.title !== undefined) element.title = props.title;
  if (props.attrs !== undefined) for (const [name, value] of Object.entries(props.attrs)) setAttr(element, name, value);
  if (props.text !== undefined) element.textContent = props.text;
  if (props.onClick !== undefined) (element as HTMLElement).addEventListener('click', props.onClick);
  append(element, children);
  return element;
}

/** Append children to a parent, text as text nodes. */
export function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Replace all children of a parent. */
export function setChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A button with a text label. */
export function button(label: string, onClick: (event: MouseEvent) => void, className = 'btn', title?: string): HTMLButtonElement {
  const b = el('button', { class: className, text: label, attrs: { type: 'button' }, onClick });
  if (title !== undefined) b.title = title;
  return b;
}

/**
 * A link built from server data: only http: and https: URLs become links
 * (opened in a new tab, without a referrer or opener); anything else is text.
 */
export function safeLink(text: string, url: string): HTMLElement {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) return el('span', { text });
  const a = el('a', { text });
  a.href = parsed.href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  return a;
}

/** Make a non-button element act like one: focusable, Enter and Space click it. */
export function clickable(element: HTMLElement, onActivate: (event: Event) => void): void {
  setAttr(element, 'role', 'button');
  setAttr(element, 'tabindex', '0');
  element.addEventListener('click', onActivate);
  element.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      onActivate(event);
    }
  });
}

/**
 * Times that run on (a run's duration, how long a frame has been held, an
 * open call's): every element under `root` with `attribute` (an ISO start)
 * gets `text(ms since then)`, in place, so nothing around it is redrawn.
 */
export function tickTimes(root: ParentNode, attribute: string, text: (ms: number) => string): void {
  for (const node of root.querySelectorAll<HTMLElement>(`[${attribute}]`)) {
    const start = Date.parse(node.getAttribute(attribute) ?? '');
    const next = text(Date.now() - start);
    if (node.textContent !== next) node.textContent = next;
  }
}
