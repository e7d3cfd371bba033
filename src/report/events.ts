/**
 * TEMPORARY: the protocol types moved to src/protocol/ (one protocol per
 * file). This re-export keeps the files not yet moved over compiling until
 * their imports are rewritten; then it is deleted.
 *
 * @module
 */
export * from '../protocol/run-model.js';
export * from '../protocol/control.js';
export * from '../protocol/ingest.js';
export * from '../protocol/to-reporter.js';
export * from '../protocol/live-feed.js';
