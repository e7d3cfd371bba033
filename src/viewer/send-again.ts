// Send again and Copy as command, in a call's detail: the recorded request
// sent to the live run's server once more (as recorded, or with params
// edited in the value editor the Inject… dialog uses), recorded as a new
// call marked sent by the debugger, whose answer the client never gets;
// and the shell lines that make the same call with the MCP Inspector's CLI.
import { callCommands, type CallCommands } from '../protocol/call-command.js';
import type { Instance } from '../protocol/run-model.js';
import { callToSend, hostRequestMethod, isRefusal } from '../protocol/send-call.js';
import { api } from './api.js';
import { button, el, setAttr } from './dom.js';
import { pretty } from './format.js';
import { openValueEditor, type TypedValue } from './inject-editor.js';
import { copyText } from './json-view.js';
import type { RunModel } from './run-model.js';
import type { Store } from './store.js';

/** The badge on a call the debugger sent, not the client; null on the client's own. */
export function sentByBadge(instance: Instance): HTMLElement | null {
  if (instance.sentBy === undefined) return null;
  const badge = el('span', { class: 'sent-badge', text: 'sent again', title: `Sent by the debugger (${instance.sentBy}), not the client: its answer never reached the client.` });
  setAttr(badge, 'data-sent-by', instance.sentBy);
  return badge;
}

/** The params editor's reading of the typed text: JSON structured, or nothing for no params. */
export function readParams(text: string): TypedValue {
  if (text.trim() === '') return { value: undefined, ok: true, note: 'Sent with no params.' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { value: undefined, ok: false, note: 'Not JSON: the params must be a JSON object (or an array), or empty for none.' };
  }
  if (value === null || typeof value !== 'object') return { value, ok: false, note: 'The params must be a JSON object (or an array), or empty for none.' };
  return { value, ok: true, note: `Will be sent as the request's params: ${Array.isArray(value) ? 'an array' : 'an object'}.` };
}

/** The server's command line as the run recorded it (`meta.command`, `meta.args`, `meta.cwd`). */
function serverOf(run: RunModel): { command: string; args: string[]; cwd?: string } | undefined {
  const { command, args, cwd } = run.meta;
  if (typeof command !== 'string' || !Array.isArray(args) || !args.every((arg) => typeof arg === 'string')) return undefined;
  return { command, args: args as string[], ...(typeof cwd === 'string' ? { cwd } : {}) };
}

/** The lines of Copy as command, each with what it does. */
function commandList(commands: CallCommands): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  if (commands.inspector !== undefined) list.push(['The call, made by the MCP Inspector against your server (started afresh):', commands.inspector]);
  if (commands.replayCall !== undefined) list.push(['The same call, answered from this recording:', commands.replayCall]);
  list.push(['The recorded server, for any client:', commands.replay]);
  return list;
}

/** Send the call; say how it went. True when the debugger took it. */
async function send(store: Store, runId: string, instanceId: string, edited: { params: unknown } | undefined): Promise<boolean> {
  try {
    await api.sendAgain(runId, instanceId, edited);
    store.notify('Sent again: the new call is marked “sent again”; its answer is recorded and never reaches the client.');
    return true;
  } catch (error) {
    store.notify(`Could not send again: ${error instanceof Error ? error.message : 'error'}`);
    return false;
  }
}

/**
 * The Send again bar of a call the client made (null for anything else):
 * Send again and Edit & send… while its run is a live proxy run (the
 * buttons say why not otherwise), and Copy as command.
 */
export function sendAgainBar(store: Store, instance: Instance): HTMLElement | null {
  const run = store.run;
  const entry = run?.node(instance.nodeId);
  if (run === null || entry === undefined) return null;
  const method = hostRequestMethod(entry.node);
  if (method === undefined) return null;
  const { runId } = run.summary;
  const { instanceId } = instance;
  const asRecorded = callToSend({ summary: run.summary, instance, node: entry.node });
  const editable = callToSend({ summary: run.summary, instance, node: entry.node, edited: { params: undefined } });
  const again = button('▶ Send again', () => void send(store, runId, instanceId, undefined), 'btn small', isRefusal(asRecorded) ? asRecorded.error : 'Send this request to the server as recorded; the answer is recorded, never given to the client');
  again.disabled = isRefusal(asRecorded);
  setAttr(again, 'data-action', 'send-again');
  const edit = button('Edit & send…', () => {
    openValueEditor({
      label: 'Send again with edited params',
      title: ['Send ', el('code', { text: method }), ' again'],
      hint: 'Edit the request’s params (JSON). It goes to the server running now, under an id of the debugger’s own; the answer is recorded as a new call and never reaches the client.',
      initial: instance.input === undefined || typeof instance.input === 'string' ? '' : pretty(instance.input),
      placeholder: '{ "name": "…", "arguments": {} }',
      areaLabel: 'params to send',
      submitLabel: 'Send',
      actionPrefix: 'send-again-send',
      mark: ['data-send-instance', instanceId],
      read: readParams,
      onSubmit: (params) => send(store, runId, instanceId, { params }),
      onClose: () => {},
    });
  }, 'btn small', isRefusal(editable) ? editable.error : 'Edit the params, then send the request to the server');
  edit.disabled = isRefusal(editable);
  setAttr(edit, 'data-action', 'send-again-edit');
  const lines = el('div', { class: 'send-commands' });
  lines.hidden = true;
  const copy = button('Copy as command', () => {
    const commands = callCommands({ runId, method, params: instance.input, server: serverOf(run) });
    const list = commandList(commands);
    void copyText(list[0]?.[1] ?? commands.replay).then((ok) => {
      copy.textContent = ok ? 'Copied' : 'Copy failed';
      setTimeout(() => (copy.textContent = 'Copy as command'), 1200);
    });
    lines.replaceChildren(...list.map(([what, line]) => el('div', { class: 'send-command' }, el('span', { class: 'muted', text: what }), el('code', { text: line }))), commands.why === undefined ? '' : el('p', { class: 'muted', text: `No Inspector line against the server: ${commands.why}.` }));
    lines.hidden = false;
  }, 'btn small', 'Copy the shell line that makes this call with the MCP Inspector CLI');
  setAttr(copy, 'data-action', 'copy-command');
  return el('div', { class: 'send-again' }, el('div', { class: 'send-again-buttons' }, again, edit, copy), lines);
}
