// Every breakpoint in one place: pause-on-error, and each node's before /
// after gates, each clearable.
import { button, el, setAttr, setChildren } from './dom.js';
import type { Store } from './store.js';

/** The breakpoints panel in the sidebar. */
export class BreakpointsPanel {
  readonly element: HTMLElement;
  readonly #toggle: HTMLInputElement;
  readonly #list: HTMLElement;
  readonly #clearAll: HTMLButtonElement;

  constructor(private readonly store: Store) {
    this.#toggle = el('input', { attrs: { type: 'checkbox', id: 'pause-on-error', 'data-testid': 'pause-on-error' } });
    this.#toggle.addEventListener('change', () => void this.store.setPauseOnError(this.#toggle.checked));
    const label = el('label', { class: 'switch', attrs: { for: 'pause-on-error' } }, this.#toggle, el('span', { text: 'Pause on error' }));
    this.#list = el('ul', { class: 'bp-list', attrs: { 'aria-label': 'breakpoints' } });
    this.#clearAll = button('Clear all', () => void this.store.clearBreakpoints(), 'btn small ghost');
    setAttr(this.#clearAll, 'data-action', 'clear-all-breakpoints');
    this.element = el(
      'section',
      { class: 'breakpoints' },
      el('div', { class: 'pane-head' }, el('h3', { text: 'Breakpoints' }), this.#clearAll),
      label,
      el('p', { class: 'hint', text: 'Failing calls (JSON-RPC errors, isError results) hold when this is on.' }),
      this.#list,
    );
  }

  render(): void {
    const { breakpoints } = this.store;
    this.#toggle.checked = breakpoints.pauseOnError;
    const entries = Object.entries(breakpoints.nodes).filter(([, gates]) => gates.before === true || gates.after === true);
    this.#clearAll.disabled = entries.length === 0;
    if (entries.length === 0) {
      setChildren(this.#list, el('li', { class: 'muted none', text: 'No node breakpoints. Select a node and click Break before / Break after.' }));
      return;
    }
    setChildren(
      this.#list,
      ...entries.map(([nodeId, gates]) => {
        const gateButton = (gate: 'before' | 'after'): HTMLElement | null => {
          if (gates[gate] !== true) return null;
          const b = button(`${gate} ×`, () => void this.store.setBreakpoint(nodeId, gate, false), 'chip on', `Clear the ${gate} breakpoint`);
          setAttr(b, 'data-gate', gate);
          return b;
        };
        const clear = button('Clear', () => void this.store.clearBreakpoints(nodeId), 'btn small ghost', 'Clear both gates');
        setAttr(clear, 'data-action', 'clear');
        const li = el(
          'li',
          { class: 'bp' },
          el('code', { class: 'bp-node', text: nodeId, title: nodeId }),
          el('span', { class: 'bp-gates' }, gateButton('before'), gateButton('after')),
          clear,
        );
        li.addEventListener('dblclick', () => this.store.selectNode(nodeId));
        setAttr(li, 'data-node-id', nodeId);
        return li;
      }),
    );
  }
}
