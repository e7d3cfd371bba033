// Context cost in a call's detail: what the result the model reads costs,
// and on a tools/list call what each tool costs on every turn and their
// total. The viewer cannot carry the tokenizer (megabytes of vocabulary):
// serve counts, on GET /api/runs/:runId/instances/:instanceId/cost, and
// the answer is kept here per call. Every token figure is an estimate, and
// says so.
import { methodOf } from '../protocol/call-method.js';
import type { Instance } from '../protocol/run-model.js';
import { api } from './api.js';
import { el, setAttr, setChildren } from './dom.js';
import type { RunModel } from './run-model.js';

/** Bytes (exact) and tokens (an estimate). */
interface Cost {
  bytes: number;
  tokens: number;
}

/** What the cost route answers. */
export interface CostAnswer {
  method: string;
  tokenizer: { package: string; encoding: string; note: string };
  result?: Cost;
  surface?: Cost & { perTool: Array<{ name: string } & Cost> };
}

/** The methods whose answer a model reads, or that offer it tools. */
const COUNTED = new Set(['tools/list', 'tools/call', 'resources/read', 'prompts/get']);
/** Answers kept, the oldest dropped first. */
const KEPT = 500;
const answers = new Map<string, CostAnswer | 'failed'>();
/** Requests under way, by call. */
const asking = new Map<string, Promise<void>>();

const number = (n: number): string => n.toLocaleString('en-US');

/** `≈ 1,234 tokens (est.) · 5,678 bytes`. */
function figures(cost: Cost): HTMLElement {
  return el(
    'span',
    { class: 'cost-figures' },
    el('strong', { text: `≈ ${number(cost.tokens)} tokens` }),
    el('span', { class: 'cost-est', text: ' (est.)' }),
    ` · ${number(cost.bytes)} bytes`,
  );
}

/** The tool list's costs: the total as a sentence, then each tool, the costliest first. */
function surfaceView(surface: NonNullable<CostAnswer['surface']>): HTMLElement[] {
  const head = el('p', { class: 'cost-total' }, `The tool surface costs `, figures(surface), ` on every turn (${surface.perTool.length} tools).`);
  const rows = [...surface.perTool].sort((a, b) => b.tokens - a.tokens);
  const table = el(
    'table',
    { class: 'cost-tools', attrs: { 'aria-label': 'cost per tool' } },
    el('thead', {}, el('tr', {}, el('th', { text: 'tool' }), el('th', { class: 'num', text: 'tokens (est.)' }), el('th', { class: 'num', text: 'bytes' }), el('th', { text: 'share' }))),
    el(
      'tbody',
      {},
      ...rows.map((tool) => {
        const share = surface.tokens === 0 ? 0 : Math.round((100 * tool.tokens) / surface.tokens);
        const bar = el('span', { class: 'cost-bar' });
        // Through the CSSOM: the page's CSP allows no inline style attribute.
        bar.style.width = `${share}%`;
        const row = el('tr', {}, el('td', { class: 'cost-tool-name', text: tool.name }), el('td', { class: 'num', text: `≈ ${number(tool.tokens)}` }), el('td', { class: 'num', text: number(tool.bytes) }), el('td', { class: 'cost-share' }, bar, ` ${share}%`));
        setAttr(row, 'data-tool', tool.name);
        return row;
      }),
    ),
  );
  return [head, table];
}

function fill(block: HTMLElement, answer: CostAnswer | 'failed' | undefined): void {
  if (answer === undefined) return setChildren(block, el('span', { class: 'muted', text: 'Context cost: counting…' }));
  if (answer === 'failed') return setChildren(block, el('span', { class: 'muted', text: 'Context cost: not available from this debugger.' }));
  const title = el('div', { class: 'cost-title', text: 'Context cost', title: `Bytes are exact. Tokens are an estimate from ${answer.tokenizer.package} (${answer.tokenizer.encoding}): ${answer.tokenizer.note}.` });
  const parts: HTMLElement[] = [title];
  if (answer.result !== undefined) parts.push(el('p', { class: 'cost-result' }, 'The model reads ', figures(answer.result), ' of this answer.'));
  if (answer.surface !== undefined) parts.push(...surfaceView(answer.surface));
  if (parts.length === 1) parts.push(el('span', { class: 'muted', text: 'Nothing a model reads.' }));
  setChildren(block, ...parts);
  setAttr(block, 'data-state', 'counted');
}

/** Would a model read this call's answer (or be offered its tools)? Only then is there a cost to show. */
function counted(run: RunModel, instance: Instance): boolean {
  const entry = run.node(instance.nodeId);
  if (entry === undefined || instance.output === undefined || typeof instance.output !== 'object' || instance.output === null) return false;
  return COUNTED.has(methodOf(entry.node)) && !('[graphmind]' in instance.output);
}

/** The cost block of a call's detail, filled in when serve has counted; null when a model reads nothing of the call. */
export function costBlock(run: RunModel | null, instance: Instance): HTMLElement | null {
  if (run === null || !counted(run, instance)) return null;
  const { runId } = run.summary;
  // An answer replaced (a Retry, an injection) ends the call again: count the new one.
  const key = `${runId}\u0000${instance.instanceId}\u0000${instance.endedAt ?? ''}`;
  const block = el('div', { class: 'cost-block', attrs: { 'aria-label': 'context cost' } });
  fill(block, answers.get(key));
  if (!answers.has(key)) {
    // One request per call however often its row is drawn while it is counted; each drawing is filled in.
    let asked = asking.get(key);
    if (asked === undefined) {
      asked = api.cost<CostAnswer>(runId, instance.instanceId).then(
        (answer) => remember(key, answer),
        () => remember(key, 'failed'),
      );
      asking.set(key, asked);
    }
    void asked.then(() => fill(block, answers.get(key)));
  }
  return block;
}

function remember(key: string, answer: CostAnswer | 'failed'): void {
  asking.delete(key);
  answers.set(key, answer);
  if (answers.size > KEPT) answers.delete(answers.keys().next().value as string);
}
