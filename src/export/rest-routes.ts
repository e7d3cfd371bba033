/**
 * TEMPORARY: the export and import routes are the server's, and moved to
 * src/server/export-routes.ts. This re-export keeps server/rest-api.ts
 * compiling until its import is rewritten; then it is deleted.
 *
 * @module
 */
export * from '../server/export-routes.js';
