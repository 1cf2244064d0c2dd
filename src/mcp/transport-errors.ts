/**
 * What the stdio proxy (`npm run mcp`, stdio.ts) answers when the HTTP service cannot answer a
 * tool call: a documented tool error (docs/mcp.md, "Errors") with a stable code and a fixed
 * text, never the transport's own words (the SDK would pass `Streamable HTTP error: Error
 * POSTing to endpoint (HTTP 401): {...}` on as a JSON-RPC -32603). The cause goes to the proxy's
 * stderr (the assistant's log), never to the model.
 */
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolError } from './agent-backend.js';

export type TransportErrorCode = 'unauthorized' | 'rate_limited' | 'service_unavailable';

export const TRANSPORT_ERROR_TEXT: Record<TransportErrorCode, string> = {
  unauthorized:
    'The StablePay service refused this assistant\'s API key (revoked or invalid). Nothing was done. The account holder must set a valid key (STABLEPAY_API_KEY) and restart the StablePay MCP server.',
  rate_limited: 'The StablePay service is limiting requests from this key just now. Nothing was done. Try again shortly.',
  service_unavailable:
    'The StablePay service could not be reached or did not answer. Check list_activity before you retry: a money move needs the account holder to confirm it, so nothing moved without them.',
};

/**
 * The code for an error the HTTP client threw, or undefined for a JSON-RPC error the service
 * itself answered (an unknown tool, bad arguments): those are the service's own documented
 * answers and pass through unchanged.
 */
export function transportErrorCode(err: unknown): TransportErrorCode | undefined {
  if (err instanceof StreamableHTTPError) {
    if (err.code === 401 || err.code === 403) return 'unauthorized';
    if (err.code === 429) return 'rate_limited';
    return 'service_unavailable';
  }
  if (err instanceof McpError) {
    return err.code === ErrorCode.RequestTimeout || err.code === ErrorCode.ConnectionClosed ? 'service_unavailable' : undefined;
  }
  // fetch's "fetch failed" (connection refused or reset), an abort, a body that was not JSON-RPC.
  return 'service_unavailable';
}

/** A tool call's transport failure as a tool result (rethrows what the service itself answered). */
export function transportToolError(err: unknown, log: (line: string) => void): CallToolResult {
  const code = transportErrorCode(err);
  if (!code) throw err;
  log(`stablepay mcp: ${code}: ${err instanceof Error ? err.message : String(err)}`);
  return toolError(code, TRANSPORT_ERROR_TEXT[code]);
}

/** The same for a tool listing, which has no result to carry it: a JSON-RPC error with the fixed text. */
export function transportListError(err: unknown, log: (line: string) => void): McpError {
  const code = transportErrorCode(err);
  if (!code) return err as McpError;
  log(`stablepay mcp: ${code}: ${err instanceof Error ? err.message : String(err)}`);
  return new McpError(ErrorCode.InternalError, `${code}: ${TRANSPORT_ERROR_TEXT[code]}`, { error: code });
}
