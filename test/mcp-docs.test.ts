// docs/mcp.md and graphmind mcp kept in step: every tool has its heading with exactly its
// arguments, and every refusal code is in the table of errors.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { TOOLS } from '../src/mcp/tools/index.js';
import { TOOL_ERROR_CODES } from '../src/mcp/tool-error.js';

const doc = readFileSync(new URL('../docs/mcp.md', import.meta.url), 'utf8');

t.test('each tool has a heading naming exactly its arguments', async (t) => {
  for (const tool of TOOLS) {
    const properties = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
    const required = new Set((tool.inputSchema.required ?? []) as string[]);
    const args = properties.map((name) => (required.has(name) ? name : `${name}?`));
    const heading = `\`${tool.name}\` \`{${args.length === 0 ? '' : ` ${args.join(', ')} `}}\``;
    t.ok(doc.includes(`### ${heading}`) || doc.includes(`#### ${heading}`), `docs/mcp.md has ${heading}`);
  }
});

t.test('each refusal code is in the table of errors', async (t) => {
  const table = doc.slice(doc.indexOf('## Errors'), doc.indexOf('## Recorded text is data'));
  for (const code of TOOL_ERROR_CODES) t.ok(table.includes(`\`${code}\``), `${code} in docs/mcp.md`);
});
