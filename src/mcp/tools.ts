/**
 * The agent's tools as MCP tools: names, descriptions and input schemas come from the agent's
 * tool registry (ToolInputs, TOOL_DESCRIPTIONS), converted the way the Claude engine converts
 * them, so a tool added to the agent shows up here and no schema can drift.
 */
import { z } from 'zod';
import { TOOL_DESCRIPTIONS } from '../agent/index.js';
import { MONEY_MOVING_TOOLS, READ_ONLY_TOOLS, ToolInputs, type ToolName } from '../agent/tool-inputs.js';

export interface McpToolDef {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean };
}

/** JSON Schema of a tool's input, input side (what a caller writes, before transforms). */
export function toolInputSchema(name: ToolName): McpToolDef['inputSchema'] {
  const { $schema: _drop, ...json } = z.toJSONSchema(ToolInputs[name], { io: 'input' }) as Record<string, unknown>;
  return { ...json, type: 'object' };
}

export function agentToolDefs(): McpToolDef[] {
  return (Object.keys(ToolInputs) as ToolName[]).map((name) => {
    const moving = MONEY_MOVING_TOOLS.has(name);
    return {
      name,
      description: moving
        ? `${TOOL_DESCRIPTIONS[name]} Moves money only after the account holder confirms it on the service's own page: the result carries the confirmation link and the pending action id.`
        : TOOL_DESCRIPTIONS[name],
      inputSchema: toolInputSchema(name),
      annotations: { readOnlyHint: READ_ONLY_TOOLS.has(name), destructiveHint: moving, openWorldHint: false },
    };
  });
}
