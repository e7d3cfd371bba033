// A small MCP server over stdio, instrumented with graphmind-ai/adapter.
//
//   npm start                          # terminal 1: the debugger
//   node example/stdio-server.mjs      # what an MCP host runs (stdout is the protocol)
//
// Or register it with a host, e.g. Claude Code:
//   claude mcp add tasks -- node /abs/path/to/example/stdio-server.mjs
//
// Every tools/call, resources/read and prompts/get it handles is a run in
// the viewer; set a breakpoint on `tool:list_tasks` and the next call holds
// (the very first one too, when the debugger runs before the host starts this).
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { graphmind } from 'graphmind-ai/adapter';

const tasks = [
  { id: 'PAY-101', title: 'Retry failed card payments', status: 'open' },
  { id: 'PAY-102', title: 'Refund duplicate charges', status: 'blocked' },
];

const gm = graphmind({ app: 'example-tasks' });
// Register on the value wrapServer returns: that is the instrumented view.
const server = gm.wrapServer(new McpServer({ name: 'example-tasks', version: '1.0.0' }));

server.registerTool(
  'list_tasks',
  { description: 'List tasks, optionally by status', inputSchema: { status: z.enum(['open', 'blocked', 'done']).optional() } },
  async ({ status }) => {
    const found = tasks.filter((task) => status === undefined || task.status === status);
    return { content: [{ type: 'text', text: JSON.stringify(found) }], structuredContent: { tasks: found } };
  },
);

server.registerTool('add_task', { description: 'Add a task', inputSchema: { title: z.string() } }, async ({ title }) => {
  const task = { id: `PAY-${100 + tasks.length + 1}`, title, status: 'open' };
  tasks.push(task);
  return { content: [{ type: 'text', text: `added ${task.id}` }] };
});

// A tool that fails: the error gate holds it (pause-on-error is on by default).
server.registerTool('close_task', { description: 'Close a task', inputSchema: { id: z.string() } }, async ({ id }) => {
  const task = tasks.find((candidate) => candidate.id === id);
  if (task === undefined) throw new Error(`no task ${id}`);
  task.status = 'done';
  return { content: [{ type: 'text', text: `closed ${id}` }] };
});

server.registerResource('task', new ResourceTemplate('task://{id}', { list: undefined }), { description: 'One task as JSON' }, async (uri, { id }) => ({
  contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(tasks.find((task) => task.id === id) ?? null) }],
}));

server.registerPrompt('triage', { description: 'Ask for a triage of the blocked tasks' }, async () => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Triage these: ${JSON.stringify(tasks.filter((task) => task.status === 'blocked'))}` } }],
}));

await server.connect(new StdioServerTransport());
