/**
 * The run resources: each recorded run as `graphmind://runs/<runId>`, a
 * JSON document with get_run's compact view of it (a whole run can be
 * hundreds of megabytes; the tools page through the rest).
 *
 * @module
 */
import { RUN_ID_PATTERN } from '../protocol/run-model.js';
import { pageOf, queryKey } from './paging.js';
import { runOverview } from './run-views.js';
import type { RunSource } from './source.js';
import { ToolError } from './tool-error.js';

/** The URI scheme and path of a run resource, before its id. */
export const RUN_URI_PREFIX = 'graphmind://runs/';
/** The resource template of the runs. */
export const RUN_URI_TEMPLATE = `${RUN_URI_PREFIX}{runId}`;
/** Runs in one page of `resources/list`. */
const RESOURCES_PAGE = 100;

/** A resource as `resources/list` gives it. */
export interface RunResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: 'application/json';
}

/** One page of run resources, newest first. Throws a {@link ToolError} for a bad cursor. */
export async function listRunResources(runs: RunSource, cursor: string | undefined): Promise<{ resources: RunResource[]; nextCursor: string | null }> {
  const { runs: summaries } = await runs.listRuns();
  const page = pageOf(summaries, { limit: RESOURCES_PAGE, cursor, query: queryKey('resources/list', {}), idOf: (run) => run.runId });
  return {
    resources: page.rows.map((run) => ({
      uri: `${RUN_URI_PREFIX}${run.runId}`,
      name: run.runId,
      title: run.name,
      description: `${run.source} run, ${run.status}, started ${run.startedAt}`,
      mimeType: 'application/json',
    })),
    nextCursor: page.nextCursor,
  };
}

/**
 * The JSON text of the run `uri` names; undefined for a URI that is not a
 * run's, or a run that does not exist.
 */
export async function readRunResource(runs: RunSource, uri: string): Promise<string | undefined> {
  if (!uri.startsWith(RUN_URI_PREFIX)) return undefined;
  const runId = uri.slice(RUN_URI_PREFIX.length);
  if (!RUN_ID_PATTERN.test(runId)) return undefined;
  const { from, run } = await runs.getRun(runId);
  if (run === undefined) return undefined;
  return JSON.stringify({ from, ...runOverview(run) });
}
