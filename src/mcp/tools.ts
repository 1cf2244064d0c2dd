/**
 * The agent's tools as MCP tools: names, descriptions, flags and input schemas come from the
 * agent's tool catalogue (src/agent/tool-catalogue.ts, read off the registry in
 * src/agent/tools/registry.ts), so a tool added to the agent shows up here and no schema can drift.
 */
import { toolCatalogue, type AnyTool } from '../agent/index.js';

export interface McpToolDef {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

/** The MCP tool list of a registry (the agent's own by default; tests pass one with a tool added). */
export function agentToolDefs(registry?: readonly AnyTool[]): McpToolDef[] {
  return toolCatalogue(registry).map((t) => ({
    name: t.name,
    description: t.movesMoney
      ? `${t.description} Moves money only after the account holder confirms it on the service's own page: the result carries the confirmation link and the pending action id.`
      : t.description,
    inputSchema: { ...t.inputSchema, type: 'object' },
    annotations: { readOnlyHint: t.readOnly, destructiveHint: t.movesMoney, openWorldHint: false },
  }));
}
