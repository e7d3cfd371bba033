/**
 * The `where` argument of `list_calls` and `find_problems`: an expression
 * of the condition language (docs/conditions.md), compiled once per tool
 * call and tested on each recorded call. A bad expression is a
 * `bad-argument` {@link ToolError} that says where it went wrong.
 *
 * @module
 */
import { compileCondition, evaluateCondition, MAX_CONDITION_LENGTH, type Condition } from '../conditions/index.js';
import { callSubject } from '../protocol/call-subject.js';
import type { GraphNode, Instance, Run } from '../protocol/run-model.js';
import type { Field } from './args.js';
import { ToolError } from './tool-error.js';

/** The optional `where` field: a compiled {@link Condition}, or undefined when absent. */
export function where(description: string): Field<Condition | undefined> {
  return {
    schema: { type: 'string', minLength: 1, maxLength: MAX_CONDITION_LENGTH, description },
    required: false,
    read(value, name) {
      if (value === undefined) return undefined;
      if (typeof value !== 'string') throw new ToolError('bad-argument', `${name} must be a string (an expression such as "tool:search and is:error")`);
      const compiled = compileCondition(value);
      if (compiled.ok) return compiled.condition;
      throw new ToolError('bad-argument', `${name} is not a valid expression: ${compiled.error} at position ${compiled.position}${near(value, compiled.position)} (docs/conditions.md has the language)`);
    },
  };
}

/** A few characters from `position`, to show where it is. */
function near(text: string, position: number): string {
  if (position >= text.length) return ' (the end)';
  const shown = text.slice(position, position + 24);
  return ` (at ${JSON.stringify(shown)}${position + 24 < text.length ? '…' : ''})`;
}

/** A test of `run`'s calls against `condition` (its nodes looked up once). */
export function callMatcher(run: Pick<Run, 'nodes' | 'source'>, condition: Condition): (instance: Instance) => boolean {
  const nodes = new Map<string, GraphNode>();
  for (const node of run.nodes) nodes.set(node.nodeId, node);
  return (instance) => evaluateCondition(condition, callSubject(instance, nodes.get(instance.nodeId), run.source));
}

/** A run with only the calls `condition` matches (the run itself is not changed). */
export function runWhere(run: Run, condition: Condition): Run {
  const matches = callMatcher(run, condition);
  return { ...run, instances: run.instances.filter(matches) };
}
