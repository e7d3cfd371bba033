// The GraphMind viewer: a live view of each MCP session with breakpoints and
// holds you can act on. Plain DOM; all server data goes in as text.
import { BreakpointsPanel } from './breakpoints-panel.js';
import { runServerName } from './breakpoint-scope.js';
import { BreakpointsStrip } from './breakpoints-strip.js';
import { el, setAttr } from './dom.js';
import { emptyState } from './empty-state.js';
import { GraphView } from './graph-view.js';
import { HoldPanel } from './hold-panel.js';
import { LiveConnection } from './live.js';
import { NodeDetail } from './node-detail.js';
import { RunHeader } from './run-header.js';
import { RunList } from './run-list.js';
import { RightPane } from './right-pane.js';
import { Store } from './store.js';
import { Dirty } from './view-state.js';
import { placeHash, readPlace } from './url-state.js';

const store = new Store();
const runList = new RunList(store);
const breakpointsPanel = new BreakpointsPanel(store);
const breakpointsStrip = new BreakpointsStrip(store, () => breakpointsPanel.reveal());
const holdPanel = new HoldPanel(store);
const runHeader = new RunHeader(store);
const graph = new GraphView(store);
const detail = new NodeDetail(store);
// A call picked in the timeline or the waterfall opens in its node's list below the graph.
const right = new RightPane(store, (nodeId, instanceId) => store.openCall(nodeId, instanceId));

const connection = el('span', { class: 'conn', text: 'connecting…' });
setAttr(connection, 'aria-live', 'polite');
const holdCount = el('span', { class: 'hold-count' });
const notice = el('div', { class: 'notice', attrs: { role: 'status' } });
const empty = emptyState();
const runView = el(
  'div',
  { class: 'run-view' },
  runHeader.element,
  el('div', { class: 'graph-wrap' }, graph.element),
  detail.element,
);
const main = el('main', { class: 'main' }, holdPanel.element, runView, empty);
const app = el(
  'div',
  { class: 'app' },
  el('header', { class: 'top' }, el('span', { class: 'brand', text: 'GraphMind' }), el('span', { class: 'tagline', text: 'MCP debugger' }), breakpointsStrip.element, holdCount, connection),
  el('aside', { class: 'side' }, runList.element, breakpointsPanel.element),
  main,
  right.element,
  notice,
);
document.getElementById('app')?.replaceWith(app);
if (!app.isConnected) document.body.appendChild(app);

let firstRunRendered = false;
/** The call last scrolled to in the right pane. */
let shownActive: string | null = null;

// The address names the chosen run and node (see url-state.ts): restored
// before the live feed's first snapshot, kept current as the user moves.
const restored = readPlace(location.hash);
if (restored.runId !== null) store.restore(restored.runId, restored.nodeId);
function writePlace(): void {
  const hash = placeHash({ runId: store.followNewest ? null : store.selectedRunId, nodeId: store.selectedNodeId });
  if (hash === location.hash) return;
  // replaceState: moving around the viewer does not fill the back button's history.
  history.replaceState(history.state, '', hash === '' ? location.pathname + location.search : hash);
}
window.addEventListener('hashchange', () => {
  const place = readPlace(location.hash);
  // No run named: follow the newest again. A run not in the list: the address goes back to where the page is.
  if (place.runId === null) store.followLatest();
  else if (!store.goTo(place.runId, place.nodeId)) writePlace();
});

store.subscribe((dirty) => {
  if (dirty & (Dirty.Runs | Dirty.Run | Dirty.Selection)) {
    const none = store.loaded && store.runs.length === 0;
    empty.hidden = !none;
    runView.hidden = none;
    app.classList.toggle('no-runs', none);
  }
  if (dirty & (Dirty.Runs | Dirty.Selection)) runList.render();
  if (dirty & Dirty.Tick) {
    runList.tick();
    holdPanel.tick();
  }
  if (dirty & (Dirty.Breakpoints | Dirty.Runs)) breakpointsPanel.render();
  if (dirty & (Dirty.Breakpoints | Dirty.Run | Dirty.Selection)) breakpointsStrip.render(store.run === null ? undefined : runServerName(store.run.summary, store.run.meta));
  if (dirty & (Dirty.Holds | Dirty.Runs)) {
    holdPanel.render();
    holdCount.textContent = store.holds.length === 0 ? '' : `${store.holds.length} held`;
    holdCount.classList.toggle('some', store.holds.length > 0);
    document.title = store.holds.length === 0 ? 'GraphMind' : `⏸ ${store.holds.length} held · GraphMind`;
  }
  if (dirty & (Dirty.Run | Dirty.Selection | Dirty.Tick)) runHeader.render();
  if (dirty & (Dirty.Run | Dirty.Selection | Dirty.Holds | Dirty.Breakpoints)) graph.render();
  if (dirty & (Dirty.Run | Dirty.Selection | Dirty.Holds | Dirty.Breakpoints | Dirty.Tick | Dirty.Find)) detail.render();
  if (dirty & (Dirty.Run | Dirty.Selection | Dirty.Holds | Dirty.Tick | Dirty.Find)) right.render();
  // A call opened from a list or a hold: shown in the pane on the right too.
  if (dirty & Dirty.Find && store.activeInstance !== null && shownActive !== store.activeInstance) {
    shownActive = store.activeInstance;
    right.showCall(store.activeInstance);
  }
  if (dirty & Dirty.Connection) {
    connection.textContent = store.connection === 'live' ? 'live' : store.connection === 'connecting' ? 'connecting…' : 'reconnecting…';
    connection.className = `conn conn-${store.connection}`;
  }
  if (dirty & Dirty.Notice) {
    notice.textContent = store.notice ?? '';
    notice.classList.toggle('shown', store.notice !== null);
  }
  // Once the first snapshot is in: before it, the restored place is not yet confirmed.
  if (dirty & (Dirty.Runs | Dirty.Selection) && store.loaded) writePlace();
  if (!firstRunRendered && store.run !== null) {
    firstRunRendered = true;
    performance.mark('graphmind:first-run-render');
  }
});

const live = new LiveConnection(
  (message) => store.receive(message),
  (state) => store.setConnection(state),
);
live.start();
document.addEventListener('visibilitychange', () => {
  if (!document.hidden) live.poke();
});
window.addEventListener('online', () => live.poke());
setInterval(() => store.mark(Dirty.Tick), 1000);

function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
}

document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && holdPanel.editing) {
    event.preventDefault();
    holdPanel.closeEditor();
    return;
  }
  if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target) || holdPanel.editing) return;
  if (event.key === 'c') {
    event.preventDefault();
    holdPanel.continueOldest();
  } else if (event.key === 'i') {
    event.preventDefault();
    holdPanel.injectOldest();
  } else if (event.key === '/' && store.run !== null) {
    event.preventDefault();
    right.focusFind();
  } else if ((event.key === 'e' || event.key === 'E') && store.run !== null) {
    event.preventDefault();
    right.nextError(event.shiftKey ? -1 : 1);
  }
});

store.flushAll();
