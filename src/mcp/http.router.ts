import { Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Core } from '../core/core.js';
import { z } from 'zod';
import { auth, requireKey } from '../http/auth.js';
import { registerRoute } from '../http/openapi.js';
import { E401key } from '../http/openapi-common.js';
import { createMcpServer } from './server.js';
import { agentBackend } from './agent-backend.js';

/** Where the account holder confirms a pending action (a signed-in page of the web app). */
export function confirmUrlFor(publicUrl: string, actionId: string): string {
  return `${publicUrl}/app/actions/${actionId}`;
}

registerRoute({
  method: 'post',
  path: '/api/mcp',
  operationId: 'mcp',
  summary: "MCP (Streamable HTTP, stateless): the agent's tools for an AI assistant",
  description:
    'JSON-RPC 2.0 per the Model Context Protocol (`initialize`, `tools/list`, `tools/call`), bearer key. Tools that move money ' +
    'return a pending action and a confirmation link (`structuredContent.pending_confirmation`); nothing moves until the signed-in ' +
    'account holder confirms it on that page.',
  tags: ['MCP'],
  auth: 'bearer',
  body: z.object({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional(), params: z.record(z.string(), z.unknown()).optional() }),
  responses: { 200: { description: 'The JSON-RPC response.' }, 202: { description: 'A notification was accepted.' }, 401: E401key },
});
for (const method of ['get', 'delete'] as const) {
  registerRoute({
    method,
    path: '/api/mcp',
    operationId: `mcp${method === 'get' ? 'Stream' : 'EndSession'}`,
    summary: 'Not offered: the MCP endpoint is stateless (405)',
    tags: ['MCP'],
    auth: 'bearer',
    responses: { 405: { description: 'Use POST.' }, 401: E401key },
  });
}

/**
 * MCP over Streamable HTTP at /api/mcp (docs/mcp.md), bearer key. Stateless: each request gets
 * a server bound to the key's account, so nothing outlives the request and no session can be
 * taken over; money-moving tools answer with a pending action and its confirmation link.
 */
export function mcpRouter(deps: Core): Router {
  const r = Router();
  r.use('/mcp', requireKey(deps));
  r.post('/mcp', async (req, res) => {
    const server = createMcpServer(
      agentBackend({
        agent: deps.agent,
        accountId: auth(res).accountId,
        confirmUrl: (id) => confirmUrlFor(deps.config.PUBLIC_URL, id),
        requestId: String(req.id),
      }),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // Stateless: no standalone server-to-client stream and no session to delete.
  const notAllowed = (_req: unknown, res: import('express').Response) => {
    res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; POST JSON-RPC requests.' }, id: null });
  };
  r.get('/mcp', notAllowed);
  r.delete('/mcp', notAllowed);
  return r;
}
