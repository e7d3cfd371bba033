/**
 * Log search, pure: which of a run's log lines match a pattern. The pattern
 * is plain text by default (no character is special), or a JavaScript
 * regular expression; case is ignored unless asked otherwise.
 *
 * @module
 */
import type { LogLine } from '../protocol/run-model.js';
import { MAX_PATTERN_CHARS } from './limits.js';
import { ToolError } from './tool-error.js';

/** How a pattern is read. */
export interface PatternOptions {
  /** A regular expression rather than plain text. @default false */
  regex?: boolean;
  /** Ignore case. @default true */
  ignoreCase?: boolean;
}

/** A test for one line of text. */
export type LineTest = (text: string) => boolean;

/**
 * The test `pattern` stands for. Throws a `bad-regex` {@link ToolError}
 * for a regular expression that does not compile, and a `bad-argument` one
 * for an empty or too long pattern.
 */
export function compilePattern(pattern: string, options: PatternOptions = {}): LineTest {
  if (pattern.length === 0) throw new ToolError('bad-argument', 'pattern must not be empty');
  if (pattern.length > MAX_PATTERN_CHARS) throw new ToolError('bad-argument', `pattern is longer than ${MAX_PATTERN_CHARS} characters`);
  const ignoreCase = options.ignoreCase ?? true;
  if (options.regex === true) {
    let re: RegExp;
    try {
      // No g or y flag: test() must not carry lastIndex from one line to the next.
      re = new RegExp(pattern, ignoreCase ? 'i' : '');
    } catch (error) {
      throw new ToolError('bad-regex', `bad regex: ${error instanceof Error ? error.message : String(error)}`);
    }
    return (text) => re.test(text);
  }
  if (!ignoreCase) return (text) => text.includes(pattern);
  const needle = pattern.toLowerCase();
  return (text) => text.toLowerCase().includes(needle);
}

/** A matching line: its place among the run's log lines (from 0) and the line. */
export interface LogMatch {
  index: number;
  log: LogLine;
}

/** The log lines `test` accepts, in order, with their index. */
export function searchLogs(logs: readonly LogLine[], test: LineTest): LogMatch[] {
  const matches: LogMatch[] = [];
  for (let index = 0; index < logs.length; index++) {
    const log = logs[index] as LogLine;
    if (test(log.text)) matches.push({ index, log });
  }
  return matches;
}
