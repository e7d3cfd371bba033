// A minimal MCP-ish echo server over newline-delimited JSON-RPC on stdio.
// It is deliberately cheap (no MCP library, one write per input chunk) so
// the bench measures the relay in front of it, not the server.
//
//   tools/call {name:"echo", arguments:{text}}  -> content [{type:"text", text}]
//   tools/call {name:"echo", arguments:{bytes}} -> a text of `bytes` 'x's
//
// It exits when its stdin ends.

const HEAD = (id) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"text","text":"`;
const TAIL = Buffer.from('"}]}}\n');

// Large bodies are built once per size and reused: the server should not
// spend time (or memory churn) re-creating megabytes for every call.
const bodies = new Map();
function body(bytes) {
  let buf = bodies.get(bytes);
  if (!buf) {
    buf = Buffer.alloc(bytes, 'x');
    bodies.set(bytes, buf);
  }
  return buf;
}

function answer(msg, out) {
  if (msg.id === undefined) return; // a notification: nothing to say
  const reply = (result) => out.push(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\n');
  switch (msg.method) {
    case 'initialize':
      return reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'bench-echo', version: '1.0.0' } });
    case 'tools/list':
      return reply({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] });
    case 'tools/call': {
      const args = msg.params?.arguments ?? {};
      if (typeof args.bytes === 'number') {
        // Written as head + shared body + tail: no copy of the big part.
        out.push(Buffer.from(HEAD(msg.id)), body(args.bytes), TAIL);
        return;
      }
      return reply({ content: [{ type: 'text', text: String(args.text ?? '') }] });
    }
    default:
      out.push(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } }) + '\n');
  }
}

let rest = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\n');
  rest = lines.pop();
  const out = [];
  for (const line of lines) if (line.trim() !== '') answer(JSON.parse(line), out);
  if (out.length === 0) return;
  // All answers to one input chunk leave in one vectored write.
  process.stdout.cork();
  for (const piece of out) process.stdout.write(piece);
  process.stdout.uncork();
});
