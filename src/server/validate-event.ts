/**
 * TEMPORARY: the event check moved to src/protocol/validate-event.ts. This
 * re-export keeps the files not yet moved over compiling until their
 * imports are rewritten; then it is deleted.
 *
 * @module
 */
export * from '../protocol/validate-event.js';
