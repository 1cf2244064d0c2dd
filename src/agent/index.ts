import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Engine } from './engine.js';
import { LocalEngine } from './local-engine.js';
import { ClaudeEngine } from './claude-engine.js';
import { billerAliasIndex, loadBillerCatalogue } from '../bills/catalogue.js';

export { Agent, PENDING_TTL_MS, type AgentAction, type AgentOptions, type PendingActionView, type TurnBody, type TurnRequest, type TurnResult } from './agent.js';
export { createToolHandlers, type ToolHandlerDeps } from './handlers.js';
export { LocalEngine } from './local-engine.js';
export { ClaudeEngine } from './claude-engine.js';
export type { Engine, EngineResult, EngineTurn, ToolRunner, ToolStep } from './engine.js';
export * from './tools.js';
export { PendingActions, type PendingAction, type PendingStatus } from './pending-actions.js';

/** DESIGN.md 3: ANTHROPIC_API_KEY set -> Claude with tool use; unset -> the local parser. */
export function createEngine(
  config: Pick<Config, 'ANTHROPIC_API_KEY' | 'ANTHROPIC_MODEL' | 'ANTHROPIC_BASE_URL'> & Partial<Pick<Config, 'AGENT_TURN_TIMEOUT'>>,
  logger: Logger,
): Engine {
  if (config.ANTHROPIC_API_KEY) {
    return new ClaudeEngine({
      apiKey: config.ANTHROPIC_API_KEY,
      model: config.ANTHROPIC_MODEL,
      ...(config.AGENT_TURN_TIMEOUT ? { turnTimeoutMs: config.AGENT_TURN_TIMEOUT } : {}),
      ...(config.ANTHROPIC_BASE_URL ? { baseURL: config.ANTHROPIC_BASE_URL } : {}),
      logger,
    });
  }
  let billers;
  try {
    billers = billerAliasIndex(loadBillerCatalogue());
  } catch (err) {
    // Without the catalogue the parser still reads bills from the words around "meter" etc.
    logger.warn({ err }, 'biller catalogue unavailable to the local engine');
  }
  return new LocalEngine(billers ? { billers } : {});
}
