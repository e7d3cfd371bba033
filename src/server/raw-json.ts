/**
 * {@link RawJson}, where the server's ingest has always found it; the class
 * lives in json/ so that a run read back from its log (export/) keeps its
 * large values the same way.
 *
 * @module
 */
export { RawJson } from '../json/raw-json.js';
