// A relay of your own, gated by the debugger: MCP clients connect over TCP,
// each gets its own copy of a stdio server, and `graphmind serve` can hold,
// inject, retry and abort their frames exactly as with `graphmind mcp-proxy`.
//
//   node example/debug-relay.mjs 7000 node server.js
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createRelay, startDebugSession } from 'graphmind-ai';

const [port, command, ...args] = process.argv.slice(2);

createServer({ allowHalfOpen: true }, (socket) => {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  // One run per client. undefined when GRAPHMIND_DISABLED is set: a plain relay.
  const session = startDebugSession({ name: `tcp client ${socket.remotePort}`, command, args });
  const relay = createRelay({
    client: { readable: socket, writable: socket },
    server: { readable: child.stdout, writable: child.stdin },
    gate: session?.gate, // holds at breakpoints, the error gate and loops
    onFrame: session?.onFrame, // records the run
  });
  session?.attach(relay); // answers made by a decision go out through the relay
  socket.on('error', () => child.kill());
  child.on('exit', (exitCode, signal) => {
    void session?.finish({ exitCode, signal });
    socket.end();
  });
}).listen(Number(port), '127.0.0.1', () => console.error(`relaying MCP on 127.0.0.1:${port}`));
