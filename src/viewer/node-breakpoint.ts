// A node's breakpoint controls in its detail: Break before / Break after,
// and where they hold: on this run's server (by its serverInfo.name) or on
// every server. A new breakpoint holds on this server when the run's server
// is known (a breakpoint set while debugging one server should not stop a
// session of another), else on every server.
import type { NodeBreakpoint } from '../protocol/control.js';
import { appliesTo, serverLabel } from './breakpoint-scope.js';
import { button, el, setAttr } from './dom.js';
import type { Store } from './store.js';

/** Where a new breakpoint goes: this run's server, or every server. */
export type ScopeChoice = 'this' | 'every';

/** What the controls are drawn from. */
export interface NodeBreakpointView {
  nodeId: string;
  /** The node's breakpoint (empty when it has none). */
  bp: NodeBreakpoint;
  /** The run's server name, when known. */
  server: string | undefined;
  /** The scope picked for a new breakpoint on this node. */
  choice: ScopeChoice;
}

/** The scope a new breakpoint takes on a run of `server`, unless the user picks another. */
export function defaultChoice(server: string | undefined): ScopeChoice {
  return server === undefined ? 'every' : 'this';
}

/** The controls (toggles, scope, and a note when the breakpoint is another server's), in order. */
export function nodeBreakpointControls(store: Store, view: NodeBreakpointView, pick: (choice: ScopeChoice) => void): HTMLElement[] {
  const { nodeId, bp, server } = view;
  const armed = bp.before === true || bp.after === true;
  const toggle = (gate: 'before' | 'after', label: string, help: string): HTMLButtonElement => {
    const on = bp[gate] === true;
    // Turning the first gate on scopes the new breakpoint as chosen; otherwise its scope stays.
    const scope = !armed && !on ? (view.choice === 'this' && server !== undefined ? server : null) : undefined;
    const b = button(`${on ? '◆' : '◇'} ${label}`, () => void store.setBreakpoint(nodeId, gate, !on, scope), on ? 'btn toggle on' : 'btn toggle', help);
    setAttr(b, 'aria-pressed', String(on));
    setAttr(b, 'data-gate', gate);
    return b;
  };
  const controls: HTMLElement[] = [
    toggle('before', 'Break before', 'Hold the request before it reaches the server'),
    toggle('after', 'Break after', 'Hold the answer before it reaches the client'),
    scopeSelect(store, view, pick),
  ];
  if (armed && !appliesTo(bp, server)) {
    const here = server === undefined ? 'this run’s server is not known yet' : `this run’s is ${serverLabel(server)}`;
    controls.push(el('span', { class: 'bp-elsewhere', text: `Set for server ${serverLabel(bp.server as string)}: ${here}, so its calls do not hold here.` }));
  }
  return controls;
}

/** The scope select: this server (by name), every server, and the breakpoint's own server when it is another. */
function scopeSelect(store: Store, view: NodeBreakpointView, pick: (choice: ScopeChoice) => void): HTMLElement {
  const { nodeId, bp, server } = view;
  const armed = bp.before === true || bp.after === true;
  const option = (value: string, text: string, disabled = false): HTMLOptionElement => {
    const o = el('option', { text, attrs: { value } });
    o.disabled = disabled;
    return o;
  };
  const select = el(
    'select',
    { class: 'bp-scope', attrs: { 'aria-label': 'where the breakpoint holds', 'data-testid': 'bp-scope' } },
    server === undefined ? option('this', 'this server (name not known yet)', true) : option('this', `this server (${serverLabel(server)})`),
    option('every', 'every server'),
  );
  const other = armed && bp.server !== undefined && bp.server !== server;
  if (other) select.appendChild(option('other', `server ${serverLabel(bp.server as string)}`));
  select.value = !armed ? view.choice : bp.server === undefined ? 'every' : other ? 'other' : 'this';
  select.title = 'Where this node’s breakpoint holds: sessions of this run’s server only (its serverInfo.name), or every session';
  select.addEventListener('change', () => {
    const value = select.value;
    if (value === 'other') return;
    if (armed) void store.setBreakpointScope(nodeId, value === 'every' || server === undefined ? null : server);
    else pick(value === 'this' ? 'this' : 'every');
  });
  return el('label', { class: 'bp-scope-field' }, el('span', { class: 'muted', text: 'on' }), select);
}
