/**
 * graphmind-ai: a live debugger for MCP servers.
 *
 * The library is a set of Node streams that relay JSON-RPC frames byte for
 * byte and tell you what each frame is; {@link createRelay} wires them into
 * a proxy, and the `graphmind` CLI is a thin shell over it. The gate core
 * (hold policy, decision table, debugger-connected gate), the lifter, a
 * {@link DebugSession} that gates a relay of your own, the reporter and the
 * debugger server are exported too, for integrations of your own. The
 * in-process adapter is the subpath `graphmind-ai/adapter`.
 *
 * @packageDocumentation
 */
export * from './streams/index.js';
export * from './gates/index.js';
export { type TextSink } from './proxy/stderr-sink.js';
export { DebugSession, startDebugSession, type DebugSessionOptions } from './relay/debug-session.js';
export { RelayGate, WAIT_FOR_ATTACH_MS, type RelayGateOptions, type GateRecorder, type HoldingNotice } from './relay/relay-gate.js';
export { FrameHolds, cancelledBy, type FrameHoldsOptions, type HoldWire } from './relay/frame-holds.js';
export { McpHttpSession, type McpHttpSessionOptions } from './http-proxy/http-session.js';
export { HttpProxy, CLIENT_CLOSED, type HttpProxyOptions } from './http-proxy/http-proxy.js';
export { startHttpProxy, listenAddress, DEFAULT_HTTP_PROXY_PORT, type StartHttpProxyOptions, type RunningHttpProxy, type ListenAddress } from './http-proxy/start.js';
export { SseSplitter, sseEventBytes, droppedEventBytes, type SseEvent } from './http-proxy/sse.js';
export { passHeaders } from './http-proxy/headers.js';
export { RelayRecorder, RECORD_DELAY_MS, type RelayRecorderOptions, type SessionEnd } from './relay/relay-recorder.js';
export { hideSettings, type HideSettings } from './report/hide.js';
export { COMPLETED_RUN, type CompletedRun } from './report/completed-run.js';
export { runProxy, EXIT_CANNOT_RUN, type ProxyOptions, type ProxyResult, type SpawnFunction } from './proxy/run-proxy.js';
export { Reporter, newRunId, DEFAULT_BREAKPOINTS, type ReporterOptions, type OutgoingEvent, type DecisionMessage, type SendMessage } from './report/reporter.js';
export { DeferredValue } from './report/deferred.js';
export { readToken, defaultDataDir, DEFAULT_PORT } from './report/config.js';
export type * from './protocol/run-model.js';
export type * from './protocol/control.js';
export type * from './protocol/ingest.js';
export type * from './protocol/to-reporter.js';
export type * from './protocol/live-feed.js';
export { RUN_ID_PATTERN } from './protocol/run-model.js';
export { startServer, ServeError, type ServeOptions, type GraphmindServer, type LoadedRuns } from './server/serve.js';
export { OTLP_PROTOCOLS, type OtlpConfig, type OtlpProtocol } from './export/otlp-config.js';
