/** The MCP backend over the agent in this process, for one authenticated account. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { turnJson, type Agent, type TurnOutcome } from '../agent/index.js';
import { isStoreUnavailable, STORE_RETRY_AFTER_S } from '../lib/store-unavailable.js';
import type { Logger } from '../lib/logger.js';
import { agentToolDefs } from './tools.js';
import type { McpBackend, PendingConfirmation } from './server.js';

export interface AgentBackendOptions {
  agent: Agent;
  /** From the bearer key, never from the call. */
  accountId: string;
  /** The bearer key (its spend policy applies). */
  keyId?: string;
  /** The key's mode: a test key's replies say they are test money. */
  livemode?: boolean;
  /** The page where the signed-in account holder confirms a pending action. */
  confirmUrl: (actionId: string) => string;
  requestId?: string;
  /** Where an unexpected error's details go (never to the client). */
  logger?: Logger;
}

/**
 * The answer to any other error a tool call throws (docs/mcp.md, "Errors"): a tool error with a
 * fixed text and code, never the error's own message or stack (the SDK would send those as a
 * JSON-RPC -32603). The details go to the log under the request id the result names.
 */
export function internalToolError(requestId?: string): CallToolResult {
  const reply =
    'Something went wrong on our side while running this tool. Check list_activity before you retry: a money move needs the account holder to confirm it, so nothing moved without them.';
  return toolError('internal_error', reply, requestId ? { request_id: requestId } : {});
}

/** A documented tool error (docs/mcp.md, "Errors"): a stable `error` code and a fixed text, nothing of the cause. */
export function toolError(error: string, reply: string, extra: Record<string, unknown> = {}): CallToolResult {
  return { content: [{ type: 'text', text: reply }], structuredContent: { ok: false, error, reply, ...extra }, isError: true };
}

export function agentBackend(o: AgentBackendOptions): McpBackend {
  return {
    listTools: async () => agentToolDefs(),
    async callTool(name, args): Promise<CallToolResult> {
      let outcome: TurnOutcome;
      try {
        outcome = await o.agent.callTool({ accountId: o.accountId, channel: 'mcp', name, input: args, ...(o.requestId ? { requestId: o.requestId } : {}), ...(o.keyId ? { keyId: o.keyId } : {}), ...(o.livemode === false ? { livemode: false } : {}) });
      } catch (err) {
        // The SDK would answer the driver's own message (the database's words) as a JSON-RPC error:
        // a store that cannot serve now is a tool error the assistant can retry (docs/store.md).
        if (!isStoreUnavailable(err)) {
          o.logger?.error({ err, tool: name, requestId: o.requestId }, 'MCP tool call failed');
          return internalToolError(o.requestId);
        }
        const reply = 'The service could not reach its database just now; nothing was done. Try again shortly.';
        return { content: [{ type: 'text', text: reply }], structuredContent: { ok: false, reply, retry_after_seconds: STORE_RETRY_AFTER_S }, isError: true };
      }
      const body = turnJson(outcome);
      const pendingAction = outcome.pending;
      if (body.ok && pendingAction?.status === 'pending') {
        const pending_confirmation: PendingConfirmation = {
          id: pendingAction.id,
          confirm_url: o.confirmUrl(pendingAction.id),
          description: pendingAction.description,
        };
        return {
          content: [
            {
              type: 'text',
              text: `${pendingAction.description}\nNothing has moved yet. The account holder must confirm it here: ${pending_confirmation.confirm_url} (pending action ${pendingAction.id}, expires ${pendingAction.expires_at}).`,
            },
          ],
          structuredContent: { ...body, pending_confirmation },
        };
      }
      // A paused key (the spend policy's breaker) has no HTTP header per tool call: the wait is in the result.
      const retry = outcome.retryAfterSeconds ? { retry_after_seconds: outcome.retryAfterSeconds } : {};
      return { content: [{ type: 'text', text: body.reply }], structuredContent: { ...body, ...retry }, ...(body.ok ? {} : { isError: true }) };
    },
  };
}
