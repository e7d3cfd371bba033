/**
 * graphmind-ai: a live debugger for MCP servers.
 *
 * The library is a set of Node streams that relay JSON-RPC frames byte for
 * byte and tell you what each frame is; {@link createRelay} wires them into
 * a proxy, and the `graphmind` CLI is a thin shell over it.
 *
 * @packageDocumentation
 */
export * from './streams/index.js';
export { runProxy, type ProxyOptions, type ProxyResult } from './proxy/run-proxy.js';
