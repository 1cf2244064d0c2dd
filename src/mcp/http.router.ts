import { randomUUID } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Core } from '../core/core.js';
import { z } from 'zod';
import { auth, requireKey } from '../http/auth.js';
import { registerRoute } from '../http/openapi.js';
import { E401key } from '../http/openapi-common.js';
import { createMcpServer } from './server.js';
import { agentBackend } from './agent-backend.js';
import { mcpHostGuard } from './host-guard.js';

/** Where the account holder confirms a pending action (a signed-in page of the web app). */
export function confirmUrlFor(publicUrl: string, actionId: string): string {
  return `${publicUrl}/app/actions/${actionId}`;
}

registerRoute({
  method: 'post',
  path: '/api/mcp',
  operationId: 'mcp',
  summary: "MCP (Streamable HTTP): the agent's tools for an AI assistant",
  description:
    'JSON-RPC 2.0 per the Model Context Protocol (`initialize`, `tools/list`, `tools/call`), bearer key. Tools that move money ' +
    'return a pending action and a confirmation link (`structuredContent.pending_confirmation`); nothing moves until the signed-in ' +
    'account holder confirms it on that page. Stateless by default; a client whose `initialize` declares URL-mode elicitation ' +
    '(`capabilities.elicitation.url`) gets an `Mcp-Session-Id` (bound to the key\'s account) and an `elicitation/create` request ' +
    'with the confirmation URL on the stream of each call that leaves a pending action.',
  tags: ['MCP'],
  auth: 'bearer',
  headers: { 'Mcp-Session-Id': { description: 'The session from `initialize`, for clients that got one.' } },
  body: z.object({ jsonrpc: z.literal('2.0'), method: z.string(), id: z.union([z.string(), z.number()]).optional(), params: z.record(z.string(), z.unknown()).optional() }),
  responses: {
    200: { description: 'The JSON-RPC response (JSON, or an SSE stream in a session).' },
    202: { description: 'A notification or response was accepted.' },
    400: {
      description: 'Not a JSON-RPC request the transport accepts: a JSON-RPC error body.',
      schema: z.object({ jsonrpc: z.literal('2.0'), error: z.object({ code: z.number(), message: z.string() }), id: z.union([z.string(), z.number(), z.null()]) }),
    },
    401: E401key,
    403: { description: 'Host or Origin is not this service (DNS-rebinding protection).' },
    404: { description: 'No such session for this key: initialize again.' },
  },
});
for (const method of ['get', 'delete'] as const) {
  registerRoute({
    method,
    path: '/api/mcp',
    operationId: `mcp${method === 'get' ? 'Stream' : 'EndSession'}`,
    summary: method === 'get' ? "A session's server-to-client SSE stream" : 'End a session',
    description: 'Only with the `Mcp-Session-Id` of a session of this key; without one the endpoint is stateless (405).',
    tags: ['MCP'],
    auth: 'bearer',
    headers: { 'Mcp-Session-Id': { description: 'The session from `initialize`.' } },
    responses: {
      200: { description: method === 'get' ? 'The SSE stream.' : 'The session ended.' },
      401: E401key,
      403: { description: 'Host or Origin is not this service (DNS-rebinding protection).' },
      404: { description: 'No such session for this key.' },
      405: { description: 'No session: use POST.' },
    },
  });
}

/** An MCP session over HTTP: only for clients that declare URL-mode elicitation (see mcpRouter). */
interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  accountId: string;
  /** The key that opened it: its calls run as that key (mode, spend policy), so only that key uses it. */
  keyId: string | undefined;
  lastSeen: number;
}

// Sessions live in this process's memory: idle ones are closed, and past the cap new clients
// are served statelessly (the link in the result still works), so memory stays bounded.
const SESSION_IDLE_MS = 30 * 60_000;
const MAX_SESSIONS = 1_000;

function sessionNotFound(res: Response): void {
  // The Streamable HTTP answer to an unknown session: the client starts a new one.
  res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
}

/**
 * MCP over Streamable HTTP at /api/mcp (docs/mcp.md), bearer key. Stateless by default: each
 * request gets a server bound to the key's account, so nothing outlives the request. A client
 * that declares URL-mode elicitation in `initialize` gets a session instead (bound to the same
 * account: another key cannot use its id), because only then can the server know the client
 * supports it and send `elicitation/create` (on the call's own SSE response stream) to open the
 * confirmation page. Money-moving tools answer with a pending action and its link either way.
 */
export function mcpRouter(deps: Core): Router {
  const r = Router();
  const sessions = new Map<string, Session>();
  // The key is the MCP connection's identity: its spend policy applies to every call (docs/policies.md).
  const backendFor = (accountId: string, keyId: string | undefined, livemode: boolean, requestId?: string) =>
    agentBackend({
      agent: deps.agent,
      accountId,
      ...(keyId ? { keyId } : {}),
      ...(livemode ? {} : { livemode: false }),
      confirmUrl: (id) => confirmUrlFor(deps.config.PUBLIC_URL, id),
      logger: deps.logger,
      ...(requestId ? { requestId } : {}),
    });

  /** The caller's own session named by `mcp-session-id`, or undefined when there is no such header. */
  const sessionOf = (req: Request, res: Response): Session | 'unknown' | undefined => {
    const sid = req.get('mcp-session-id');
    if (sid === undefined) return undefined;
    const s = sessions.get(sid);
    // Another key's session does not exist for this key: not another account's, nor the same
    // account's other key's (a test key in a live key's session would act live; a key with a narrow
    // spend policy under the unrestricted key's; h16tour).
    if (!s || s.accountId !== auth(res).accountId || s.keyId !== auth(res).keyId) return 'unknown';
    s.lastSeen = Date.now();
    return s;
  };

  const sweep = (now: number) => {
    for (const s of sessions.values()) if (now - s.lastSeen > SESSION_IDLE_MS) void s.transport.close();
  };

  const openSession = async (req: Request, res: Response): Promise<void> => {
    const accountId = auth(res).accountId;
    const server = createMcpServer(backendFor(accountId, auth(res).keyId, auth(res).livemode), { elicit: true });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, accountId, keyId: auth(res).keyId, lastSeen: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close();
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  };

  // Host and Origin first (DNS-rebinding protection, docs/mcp.md), then the key.
  r.use('/mcp', mcpHostGuard({ publicUrl: deps.config.PUBLIC_URL, allowLocalhost: !deps.config.production }));
  r.use('/mcp', requireKey(deps));
  r.post('/mcp', async (req, res) => {
    const session = sessionOf(req, res);
    if (session === 'unknown') return sessionNotFound(res);
    if (session) return session.transport.handleRequest(req, res, req.body);
    if (isInitializeRequest(req.body) && req.body.params.capabilities.elicitation?.url) {
      sweep(Date.now());
      if (sessions.size < MAX_SESSIONS) return openSession(req, res);
    }
    const server = createMcpServer(backendFor(auth(res).accountId, auth(res).keyId, auth(res).livemode, String(req.id)));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  // A session's server-to-client stream and its end; stateless clients have neither.
  for (const method of ['get', 'delete'] as const) {
    r[method]('/mcp', async (req, res) => {
      const session = sessionOf(req, res);
      if (session === 'unknown') return sessionNotFound(res);
      if (session) return session.transport.handleRequest(req, res);
      res
        .status(405)
        .set('Allow', 'POST')
        .json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: without a session this server is stateless; POST JSON-RPC requests.' }, id: null });
    });
  }
  return r;
}
