// The run header's "as a test" lines: `graphmind replay <run>` (the recorded
// server without the server) and `graphmind verify <run> -- <server command>`
// (the same calls against a changed server), each with a Copy button. The
// server command is the run's own when its reporter told it (mcp-proxy's
// `command` and `args`), else a placeholder to fill in; a debugger on
// another port than the CLI's default is named with --port.
import { shellWord } from '../protocol/shell-word.js';
import { button, el, setAttr } from './dom.js';

/** The CLI's default debugger port: a viewer served on another needs `--port`. */
const DEFAULT_PORT = '4747';

/** The server command a run was recorded from, as shell words; undefined when the run does not say. */
export function serverCommand(meta: Record<string, unknown>): string | undefined {
  const command = meta.command;
  if (typeof command !== 'string' || command === '') return undefined;
  const args = Array.isArray(meta.args) ? meta.args.filter((arg): arg is string => typeof arg === 'string') : [];
  return [command, ...args].map(shellWord).join(' ');
}

/** The two lines for run `runId`, as text; `port` is the page's (the debugger's). */
export function replayLines(runId: string, meta: Record<string, unknown>, port: string): { replay: string; verify: string } {
  const portFlag = port === '' || port === DEFAULT_PORT ? '' : ` --port ${port}`;
  const run = shellWord(runId);
  return {
    replay: `graphmind replay ${run}${portFlag}`,
    verify: `graphmind verify ${run}${portFlag} -- ${serverCommand(meta) ?? '<server command>'}`,
  };
}

/** Put `text` on the clipboard; false when the page may not (an insecure origin, a denied permission). */
async function copy(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** One line and its Copy button; when the clipboard is refused, the line is selected for the user to copy. */
function line(kind: 'replay' | 'verify', text: string, title: string): HTMLElement {
  const code = el('code', { class: 'replay-line-text', text, title });
  const copied = el('span', { class: 'muted replay-line-status', attrs: { role: 'status' } });
  const copyButton = button(
    'Copy',
    () =>
      void copy(text).then((done) => {
        copied.textContent = done ? 'copied' : 'select and copy';
        if (!done) window.getSelection()?.selectAllChildren(code);
        setTimeout(() => (copied.textContent = ''), 2000);
      }),
    'btn small replay-line-copy',
    `Copy: ${text}`,
  );
  const row = el('div', { class: 'replay-line' }, code, ' ', copyButton, ' ', copied);
  setAttr(row, 'data-line', kind);
  return row;
}

/** The lines of run `runId` (see the module). */
export function replayLinesBlock(runId: string, meta: Record<string, unknown>): HTMLElement {
  const { replay, verify } = replayLines(runId, meta, location.port);
  return el(
    'div',
    { class: 'replay-lines' },
    el('span', { class: 'replay-lines-label muted', text: 'As a test:' }),
    line('replay', replay, 'Serve this run as a mock MCP server, without the real one'),
    line('verify', verify, 'Play the calls of this run against a (changed) server and show what answers differently'),
  );
}
