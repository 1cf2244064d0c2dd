import type { z } from 'zod';
import { TOOLS, type RegisteredTool } from './tools/registry.js';

/**
 * The agent's tool names and input schemas, derived from the registry (src/agent/tools/registry.ts):
 * one zod schema per tool, shared by the local parser, the Claude engine (via z.toJSONSchema),
 * MCP and the domain modules that execute them.
 */
export type ToolName = RegisteredTool['name'];
type ToolOf<N extends ToolName> = Extract<RegisteredTool, { name: N }>;

export const ToolInputs = Object.fromEntries(TOOLS.map((t) => [t.name, t.input])) as { readonly [N in ToolName]: ToolOf<N>['input'] };

export type ToolInput<N extends ToolName> = z.infer<(typeof ToolInputs)[N]>;
export type ToolCall = { [N in ToolName]: { name: N; input: ToolInput<N> } }[ToolName];

/** Tools that move money: through people-facing channels they need an explicit Confirm. */
export const MONEY_MOVING_TOOLS: ReadonlySet<ToolName> = new Set(TOOLS.filter((t) => t.movesMoney).map((t) => t.name));

/** Tools that only read (no record is created or changed): MCP marks them `readOnlyHint: true`. */
export const READ_ONLY_TOOLS: ReadonlySet<ToolName> = new Set(TOOLS.filter((t) => t.readOnly).map((t) => t.name));
