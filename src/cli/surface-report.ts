/**
 * How `graphmind surface diff` writes the changes it found: `text` (a line
 * each, then the counts), `json` (an object whose `changes` array holds
 * each change with its `class`), `markdown` (a table, for a pull request
 * comment or a job summary).
 *
 * @module
 */
import { CHANGE_CLASSES, reaches, type SurfaceChange, type SurfaceChangeClass } from '../surface/index.js';

/** The reporters `surface diff` has. */
export type SurfaceReporter = 'text' | 'json' | 'markdown';

/** What `--fail-on` takes: a class, or `any` (every change, benign ones too). */
export type FailOn = SurfaceChangeClass | 'any';

/** The class `--fail-on` starts failing at. */
export function failThreshold(failOn: FailOn): SurfaceChangeClass {
  return failOn === 'any' ? 'benign' : failOn;
}

/** Does any change reach `--fail-on`? */
export function failsOn(changes: readonly SurfaceChange[], failOn: FailOn): boolean {
  return changes.some((change) => reaches(change.class, failThreshold(failOn)));
}

/** How many changes of each class. */
export function countChanges(changes: readonly SurfaceChange[]): Record<SurfaceChangeClass, number> {
  const counts: Record<SurfaceChangeClass, number> = { breaking: 0, risky: 0, benign: 0 };
  for (const change of changes) counts[change.class]++;
  return counts;
}

/** The changes, the most severe first (a stable sort keeps the diff's order within a class). */
function bySeverity(changes: readonly SurfaceChange[]): SurfaceChange[] {
  return [...changes].sort((a, b) => CHANGE_CLASSES.indexOf(b.class) - CHANGE_CLASSES.indexOf(a.class));
}

function summary(changes: readonly SurfaceChange[]): string {
  if (changes.length === 0) return 'no changes';
  const counts = countChanges(changes);
  const parts = [...CHANGE_CLASSES].reverse().map((klass) => `${counts[klass]} ${klass}`);
  return `${changes.length} change${changes.length === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

function cell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** The changes from side `a` to side `b`, written by `reporter`. */
export function formatChanges(changes: readonly SurfaceChange[], reporter: SurfaceReporter, sides: { a: string; b: string; failOn: FailOn }): string {
  const sorted = bySeverity(changes);
  const failed = failsOn(changes, sides.failOn);
  if (reporter === 'json') {
    return `${JSON.stringify({ a: sides.a, b: sides.b, failOn: sides.failOn, failed, counts: countChanges(changes), changes: sorted }, null, 2)}\n`;
  }
  if (reporter === 'markdown') {
    const lines = [`### Tool surface: ${summary(changes)}`, '', `\`${cell(sides.a)}\` → \`${cell(sides.b)}\``];
    if (sorted.length > 0) {
      lines.push('', '| class | change | entry | what |', '| --- | --- | --- | --- |');
      for (const change of sorted) lines.push(`| ${change.class} | ${change.kind} | \`${cell(change.entry)}\` | ${cell(change.message)} |`);
    }
    return `${lines.join('\n')}\n`;
  }
  const width = Math.max(0, ...sorted.map((change) => change.kind.length));
  const lines = sorted.map((change) => `${change.class.padEnd(8)}  ${change.kind.padEnd(width)}  ${change.message}`);
  lines.push(`${summary(changes)} (${sides.a} -> ${sides.b}; --fail-on ${sides.failOn}: ${failed ? 'fail' : 'pass'})`);
  return `${lines.join('\n')}\n`;
}
