/**
 * `decide_hold` (only with `--allow-control`): continue, inject, retry or
 * abort a held frame, as the viewer does.
 *
 * @module
 */
import { RUN_ID_PATTERN } from '../../protocol/run-model.js';
import { anyValue, argsOf, oneOf, optional, text } from '../args.js';
import { boolean, object, oneOf as oneOfSchema, string } from '../schemas.js';
import { ToolError } from '../tool-error.js';
import { defineTool, UNTRUSTED } from '../tool.js';

const ACTIONS = ['continue', 'inject', 'retry', 'abort'] as const;

/** The `decide_hold` tool. */
export const decideHoldTool = defineTool({
  name: 'decide_hold',
  title: 'Decide a held frame',
  description:
    'Decide a frame the debugger holds (holdId from list_holds), exactly as the viewer does: ' +
    '"continue" lets it go unchanged; "inject" answers with value instead (a held request is not forwarded, its sender gets value lifted into a result: a string becomes a text result, an object becomes structured content, ' +
    'an object with content or structuredContent is sent as the result, a whole JSON-RPC message with a jsonrpc key is sent verbatim; a held answer is replaced); ' +
    '"retry" sends a held answer\'s request to the server again (a held request just goes on); "abort" answers the caller with JSON-RPC error -32099. ' +
    'This changes what the debugged session\'s client — possibly an agent — receives: only do it when the user asked for it. ' +
    UNTRUSTED,
  control: true,
  args: argsOf({
    holdId: text({ description: 'The holdId, from list_holds.', pattern: RUN_ID_PATTERN, patternHint: 'a hold id (1-64 letters, digits, _ or -)', maxLength: 64 }),
    action: oneOf(ACTIONS, 'What to do with the held frame.'),
    value: optional(anyValue('With "inject" (and only then): the answer to send, any JSON value.')),
  }),
  outputSchema: object({ ok: boolean, holdId: string, action: oneOfSchema(ACTIONS) }),
  async run(input, context) {
    if (input.action === 'inject' && input.value === undefined) throw new ToolError('bad-argument', 'inject needs a value: the answer to send');
    if (input.action !== 'inject' && input.value !== undefined) throw new ToolError('bad-argument', `value goes with inject only, not with ${input.action}`);
    await context.control.decideHold(input.holdId, input.action === 'inject' ? { action: 'inject', value: input.value } : { action: input.action });
    return { structured: { ok: true, holdId: input.holdId, action: input.action }, text: `hold ${input.holdId}: ${input.action} sent` };
  },
});
