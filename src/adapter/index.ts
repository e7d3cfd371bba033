/**
 * `graphmind-ai/adapter`: the in-process adapter for MCP servers written
 * with the TypeScript SDK, 1.x and 2.x. `graphmind({...}).wrapServer(server)`
 * gates every handler through the same hold-and-decide core as
 * `graphmind mcp-proxy`.
 *
 * @packageDocumentation
 */
export { graphmind, type Graphmind, type GraphmindSession } from './graphmind.js';
export { adapterMode, type AdapterMode, type GraphmindOptions } from './adapter-options.js';
export type { AdapterStats } from './adapter-stats.js';
export type { SdkPackage } from './sdk-shape.js';
