/** The local agent engine: deterministic plain-language -> tool-call parser (docs/local-engine.md). */
export { parseMessage, screenMessage, type ParseContext, type ParseResult } from './parse-message.js';
export { HELP_TEXT, NOT_UNDERSTOOD, EXAMPLES } from './replies.js';
export { REFUSAL_REPLY } from './refusal.js';
