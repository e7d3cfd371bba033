/**
 * `graphmind-ai/test`: recorded runs in a test runner. {@link replayServer}
 * serves a run (a run log that `graphmind export --format jsonl` wrote, or
 * an mcp-recorder cassette) as an MCP server for a client under test, and
 * {@link verifyRun} plays a run against a server and compares its answers
 * with the recorded ones, as `graphmind replay` and `graphmind verify` do.
 * docs/testing.md shows a test each in node:test, tap and vitest.
 *
 * @packageDocumentation
 */
export { replayServer, type ReplayCommand, type ReplayServerOptions, type ReplayUrl } from './replay-server.js';
export { verifyRun, type VerifiedCall, type VerifiedDifference, type VerifyRecordTo, type VerifyRulesFile, type VerifyRunOptions, type VerifyRunResult } from './verify-run.js';
export { CannotRunError } from './run-file.js';
