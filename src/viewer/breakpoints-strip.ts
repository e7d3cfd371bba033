// The breakpoints in force, in the page's top bar, on every run: how many
// node breakpoints there are and where they hold (every server, or which
// server), the rules that still act, and whether failing calls pause. A breakpoint set for one
// server can stop a session started much later: this is where a person
// sees it without looking for it. Clicking it opens the breakpoints panel.
import { countByScope, serverLabel } from './breakpoint-scope.js';
import { el, setAttr, setChildren } from './dom.js';
import { plural } from './format.js';
import { rulesOf } from './rule-list.js';
import type { Store } from './store.js';

/** The strip in the top bar. */
export class BreakpointsStrip {
  readonly element: HTMLButtonElement;
  #sig = '';

  /** `reveal` shows the breakpoints panel. */
  constructor(
    private readonly store: Store,
    reveal: () => void,
  ) {
    this.element = el('button', { class: 'bp-strip', attrs: { type: 'button', 'data-testid': 'bp-strip', 'aria-label': 'breakpoints in force' }, onClick: reveal });
    this.element.title = 'The breakpoints in force, on every session they apply to. Click to see them all.';
  }

  /** Redraw if the breakpoints (or the server of the run shown) changed. */
  render(server: string | undefined): void {
    const { breakpoints } = this.store;
    const scopes = countByScope(breakpoints);
    const total = scopes.reduce((sum, scope) => sum + scope.count, 0);
    // The rules that can still act (enabled, hits left): the ones that pause, and the logpoints.
    const acting = rulesOf(breakpoints).filter((rule) => rule.enabled !== false && rule.armed !== false);
    const pausing = acting.filter((rule) => rule.action !== 'log').length;
    const logging = acting.length - pausing;
    const sig = JSON.stringify([scopes, breakpoints.pauseOnError, server ?? null, pausing, logging]);
    if (sig === this.#sig) return;
    this.#sig = sig;
    this.element.classList.toggle('armed', total > 0 || pausing > 0);
    setAttr(this.element, 'data-rules', String(acting.length));
    setAttr(this.element, 'data-count', String(total));
    const chips = scopes.map(({ server: scope, count }) => {
      // Marked when it holds calls of the run shown.
      const here = scope === undefined || scope === server;
      const chip = el('span', { class: `bp-strip-scope${here ? ' here' : ''}`, text: `${scope === undefined ? 'every server' : serverLabel(scope)} ×${count}` });
      chip.title = scope === undefined ? `${plural(count, 'breakpoint')} on every server` : `${plural(count, 'breakpoint')} on server ${serverLabel(scope)} only${here ? ' (this run’s)' : ''}`;
      setAttr(chip, 'data-scope', scope ?? '*');
      return chip;
    });
    setChildren(
      this.element,
      el('span', { class: 'bp-strip-count', text: total === 0 ? '◇ no breakpoints' : `◆ ${plural(total, 'breakpoint')}` }),
      ...chips,
      acting.length === 0 ? null : el('span', { class: 'bp-strip-rules', text: [pausing > 0 ? plural(pausing, 'rule') : '', logging > 0 ? plural(logging, 'logpoint') : ''].filter((part) => part !== '').join(' · '), title: 'Rules that hold (or log) the calls their expression matches, on every server' }),
      breakpoints.pauseOnError ? el('span', { class: 'bp-strip-error', text: 'pause on error', title: 'Failing calls hold, on every server' }) : null,
    );
  }
}
