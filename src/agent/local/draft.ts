import type { ToolCall } from '../tool-inputs.js';

/** What an intent builder produces: a tool call, or a reply saying what is missing. */
export type Draft = { call: ToolCall } | { reply: string };
