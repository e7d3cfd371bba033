// Every breakpoint in one place: pause-on-error, and each node's before /
// after gates, each clearable; and a breakpoint by node id, for a node no
// run has shown yet (`mcp:initialize`, the first call of a tool).
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
    const add = this.#addForm();
    this.element = el(
      'section',
      { class: 'breakpoints' },
      el('div', { class: 'pane-head' }, el('h3', { text: 'Breakpoints' }), this.#clearAll),
      label,
      el('p', { class: 'hint', text: 'Failing calls (JSON-RPC errors, isError results) hold when this is on.' }),
      this.#list,
      add,
    );
  }

  /** Node id, gate, Add: node ids are stable, so this arms the next run (and every live one) before the node appears. */
  #addForm(): HTMLFormElement {
    const nodeId = el('input', { class: 'bp-add-node', attrs: { type: 'text', name: 'nodeId', placeholder: 'tool:search, mcp:initialize…', 'aria-label': 'node id', spellcheck: 'false', autocomplete: 'off' } });
    const gate = el(
      'select',
      { class: 'bp-add-gate', attrs: { name: 'gate', 'aria-label': 'gate' } },
      el('option', { text: 'before', attrs: { value: 'before' } }),
      el('option', { text: 'after', attrs: { value: 'after' } }),
    );
    const submit = el('button', { class: 'btn small', text: 'Add breakpoint', attrs: { type: 'submit', 'data-action': 'add-breakpoint' } });
    const form = el('form', { class: 'bp-add', attrs: { 'aria-label': 'add a breakpoint by node id' } }, nodeId, gate, submit);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const id = nodeId.value.trim();
      if (id === '') {
        nodeId.focus();
        return;
      }
      void this.store.setBreakpoint(id, gate.value === 'after' ? 'after' : 'before', true).then((saved) => {
        // Refused (the notice says why): the id stays, to be mended.
        if (saved) nodeId.value = '';
      });
    });
    return form;
  }

  render(): void {
    const { breakpoints } = this.store;
    this.#toggle.checked = breakpoints.pauseOnError;
    const entries = Object.entries(breakpoints.nodes).filter(([, gates]) => gates.before === true || gates.after === true);
    this.#clearAll.disabled = entries.length === 0;
    if (entries.length === 0) {
      setChildren(this.#list, el('li', { class: 'muted none', text: 'No node breakpoints. Select a node and click Break before / Break after, or add one by its id below.' }));
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
