/**
 * `npm run mcp`: the agent's tools for a local AI assistant over stdio. It speaks MCP on
 * stdin/stdout and forwards every call to the service's /api/mcp with the API key from the
 * environment, so the key never reaches the assistant and the service decides everything.
 *
 *   STABLEPAY_API_KEY=sk_live_... (or sk_test_...)  STABLEPAY_URL=http://localhost:3000  npm run mcp
 */
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, type McpBackend } from './server.js';
import type { McpToolDef } from './tools.js';
import { transportListError, transportToolError } from './transport-errors.js';

export const StdioEnv = z.object({
  // Either mode's key: a test key's assistant works in test mode, as over HTTP (docs/test-mode.md).
  STABLEPAY_API_KEY: z
    .string({ message: 'STABLEPAY_API_KEY is required (a secret key, sk_live_... or sk_test_...)' })
    .regex(/^sk_(live|test)_\S+$/, 'STABLEPAY_API_KEY must be a secret key (sk_live_... or sk_test_...)'),
  STABLEPAY_URL: z.url().default('http://localhost:3000'),
});

/** A backend that forwards to the HTTP door of a running service. */
export async function httpBackend(baseUrl: string, apiKey: string): Promise<McpBackend & { close(): Promise<void> }> {
  const client = new Client({ name: 'stablepay-stdio', version: '0.1.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/api/mcp', baseUrl), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
  );
  const log = (line: string) => process.stderr.write(`${line}\n`);
  return {
    listTools: async () => {
      try {
        return (await client.listTools()).tools as McpToolDef[];
      } catch (err) {
        throw transportListError(err, log);
      }
    },
    // A revoked key's 401, a service that is down: a documented tool error, not the transport's text (transport-errors.ts).
    callTool: async (name, args) => {
      try {
        return (await client.callTool({ name, arguments: args })) as CallToolResult;
      } catch (err) {
        return transportToolError(err, log);
      }
    },
    close: () => client.close(),
  };
}

async function main(): Promise<void> {
  const env = StdioEnv.safeParse(process.env);
  if (!env.success) {
    process.stderr.write(`stablepay mcp: ${env.error.issues[0]?.message}\n`);
    process.exit(1);
  }
  const backend = await httpBackend(env.data.STABLEPAY_URL, env.data.STABLEPAY_API_KEY);
  const server = createMcpServer(backend, { elicit: true });
  server.onclose = () => void backend.close();
  await server.connect(new StdioServerTransport());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err) => {
    process.stderr.write(`stablepay mcp: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
