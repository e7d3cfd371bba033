import { recordable } from '../json/depth.js';
import { trailingContext, type HandlerContext } from './sdk-shape.js';
import type { CallSite } from './server-state.js';

/**
 * Read what a handler was called with: its context, and its input (the
 * arguments before the context), as it is recorded and shown at a hold (an
 * input nested deeper than a recorded value may is the too-deep note; the
 * handler still gets its arguments as they came). Pure.
 */
export function callShape(site: CallSite, args: readonly unknown[]): { context: HandlerContext | undefined; input: unknown; uri: string | undefined } {
  const context = trailingContext(args);
  const own = context === undefined ? args : args.slice(0, -1);
  if (site.method === 'resources/read') {
    const uri = own[0] === undefined ? undefined : String(own[0]);
    return { context, input: site.template === true ? recordable(own[1] ?? {}) : { uri }, uri };
  }
  // A tool or prompt without an input schema is called with its context alone: an empty input.
  return { context, input: own.length > 0 ? recordable(own[0]) : {}, uri: undefined };
}
