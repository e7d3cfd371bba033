/**
 * Every tool of `graphmind mcp`, in the order `tools/list` gives them.
 *
 * @module
 */
import type { Tool } from '../tool.js';
import { decideHoldTool } from './decide-hold.js';
import { findProblemsTool } from './find-problems.js';
import { getCallTool } from './get-call.js';
import { getRunTool } from './get-run.js';
import { listCallsTool } from './list-calls.js';
import { listHoldsTool } from './list-holds.js';
import { listRunsTool } from './list-runs.js';
import { searchLogsTool } from './search-logs.js';
import { setBreakpointsTool } from './set-breakpoints.js';

/** All tools; those with `control` only with `--allow-control`. */
export const TOOLS: readonly Tool[] = [
  listRunsTool,
  getRunTool,
  listCallsTool,
  getCallTool,
  searchLogsTool,
  findProblemsTool,
  listHoldsTool,
  decideHoldTool,
  setBreakpointsTool,
];

/** The tools offered: the read tools, and the control tools too when `allowControl`. */
export function offeredTools(allowControl: boolean): Tool[] {
  return TOOLS.filter((tool) => allowControl || !tool.control);
}
