import { Router } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppDeps } from './deps.js';
import { auth, requireKey } from './auth.js';
import { createMcpServer } from '../mcp/server.js';
import { agentBackend } from '../mcp/agent-backend.js';

/** Where the account holder confirms a pending action (a signed-in page of the web app). */
export function confirmUrlFor(publicUrl: string, actionId: string): string {
  return `${publicUrl}/app/actions/${actionId}`;
}

/**
 * MCP over Streamable HTTP at /api/mcp (docs/mcp.md), bearer key. Stateless: each request gets
 * a server bound to the key's account, so nothing outlives the request and no session can be
 * taken over; money-moving tools answer with a pending action and its confirmation link.
 */
export function mcpRouter(deps: AppDeps): Router {
  const r = Router();
  r.use('/mcp', requireKey(deps));
  r.all('/mcp', async (req, res) => {
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
  return r;
}
