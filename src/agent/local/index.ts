/** The local agent engine: deterministic plain-language -> tool-call parser (docs/local-engine.md). */
import type { ToolCall } from '../tool-inputs.js';
import { TOOLS } from '../tools/registry.js';
import { createParser, type ParseMessage } from './parse-message.js';

export { createParser, screenMessage, type ParseContext, type ParseMessage, type ParseResult } from './parse-message.js';
export type { LocalIntent, LocalTool } from './local-intent.js';
export { HELP_TEXT, NOT_UNDERSTOOD, EXAMPLES } from './replies.js';
export { REFUSAL_REPLY } from './refusal.js';

/**
 * The parser over the agent's own registry (src/agent/tools/registry.ts), through each tool's
 * `local` intent. Its calls are the registry's (each passed its tool's schema by name).
 */
export const parseMessage = createParser(TOOLS) as ParseMessage<ToolCall>;
