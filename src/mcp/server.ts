/**
 * The MCP server (official SDK, low-level Server so the tool list is ours verbatim) over a
 * backend that lists and calls tools: in-process over the agent (HTTP door), or a proxy to the
 * HTTP door (stdio). When a call leaves a pending action and the client supports URL-mode
 * elicitation, the person is sent to the confirmation page through it; the result always carries
 * the link and the pending id too, so a client without elicitation can show them.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolDef } from './tools.js';

export interface McpBackend {
  listTools(): Promise<McpToolDef[]>;
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

export interface McpServerOptions {
  /** Ask the client to open the confirmation page (URL-mode elicitation) when it can. Needs a connection that carries server requests (stdio, or an HTTP session). */
  elicit?: boolean;
  version?: string;
}

/** What a pending result carries for the person (see agent-backend.ts). */
export interface PendingConfirmation {
  id: string;
  confirm_url: string;
  description: string;
}

export function createMcpServer(backend: McpBackend, opts: McpServerOptions = {}): Server {
  const server = new Server(
    { name: 'stablepay', version: opts.version ?? '0.1.0' },
    {
      capabilities: { tools: {} },
      instructions:
        'Tools of a stablecoin payments account. Tools that move money return a pending action: the account holder must confirm it on the linked page; nothing moves before that.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await backend.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const result = await backend.callTool(req.params.name, (req.params.arguments ?? {}) as Record<string, unknown>);
    const pending = (result.structuredContent as { pending_confirmation?: PendingConfirmation } | undefined)?.pending_confirmation;
    if (pending && opts.elicit && server.getClientCapabilities()?.elicitation?.url) {
      // Fire and forget: the outcome arrives by the person confirming on the page, not by this answer.
      // Related to the call, so over Streamable HTTP it goes out on this call's own response stream.
      server
        .elicitInput(
          { mode: 'url', message: `Confirm on StablePay: ${pending.description}`, url: pending.confirm_url, elicitationId: pending.id },
          { relatedRequestId: extra.requestId },
        )
        .catch(() => undefined);
    }
    return result;
  });
  return server;
}
