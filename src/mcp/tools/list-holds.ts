/**
 * `list_holds`: the frames the running debugger holds right now, each with
 * the held frame, capped.
 *
 * @module
 */
import { argsOf } from '../args.js';
import { capValue, preview } from '../cap.js';
import { FRAME_CHARS, RESULT_CHARS } from '../limits.js';
import { renderText } from '../render.js';
import { anything, arrayOf, boolean, integer, numberOrNull, object, oneOf, string, stringOrNull } from '../schemas.js';
import { defineTool, UNTRUSTED } from '../tool.js';

/** Holds listed at most (the rest are counted). */
const MAX_HOLDS = 20;

/** The `list_holds` tool. */
export const listHoldsTool = defineTool({
  name: 'list_holds',
  title: 'List held frames',
  description:
    'List the frames the running GraphMind debugger is holding right now, oldest first: a request stopped before it reached its receiver (gate "before"), an answer stopped before it reached the requester ("after"), ' +
    'or a failing answer stopped by pause-on-error ("error"). While a frame is held, that direction of its MCP session is stopped, so the agent waits. ' +
    `Each hold gives holdId, runId, nodeId, instanceId, the method, why it holds, how long, and the held JSON-RPC frame (capped at ${FRAME_CHARS} characters). ` +
    'Needs a running graphmind serve. A hold is decided in the viewer, or with decide_hold when graphmind mcp runs with --allow-control. ' +
    UNTRUSTED,
  args: argsOf({}),
  outputSchema: object({
    total: integer,
    holds: arrayOf(
      object({
        holdId: string,
        runId: string,
        nodeId: string,
        instanceId: string,
        gate: oneOf(['before', 'after', 'error']),
        method: string,
        reason: stringOrNull,
        since: string,
        heldMs: numberOrNull,
        frame: anything,
        frameTruncated: boolean,
      }),
    ),
  }),
  async run(_input, context) {
    const holds = await context.control.listHolds();
    const now = context.now();
    const rows = [];
    let used = 0;
    for (const hold of holds.slice(0, MAX_HOLDS)) {
      const frame = capValue(hold.frame, FRAME_CHARS);
      const since = Date.parse(hold.since);
      const row = {
        holdId: hold.holdId,
        runId: hold.runId,
        nodeId: hold.nodeId,
        instanceId: hold.instanceId,
        gate: hold.gate,
        method: hold.method,
        reason: hold.reason ?? null,
        since: hold.since,
        heldMs: Number.isFinite(since) ? Math.max(0, now - since) : null,
        frame: frame.value,
        frameTruncated: frame.more > 0,
      };
      used += JSON.stringify(row).length;
      if (used > RESULT_CHARS && rows.length > 0) break;
      rows.push(row);
    }
    const left = holds.length - rows.length;
    return {
      structured: { total: holds.length, holds: rows },
      text: renderText(
        holds.length === 0 ? 'nothing is held right now' : `${holds.length} frame(s) held${left > 0 ? ` (the oldest ${rows.length} shown)` : ''}:`,
        rows.map((row) => `${row.holdId} ${row.method} at the ${row.gate} gate (${row.reason ?? 'breakpoint'}) on ${row.nodeId} ${row.instanceId} of run ${row.runId}: ${preview(row.frame, 200)}`),
      ),
    };
  },
});
