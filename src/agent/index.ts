import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Engine, EngineResult, EngineTurn, ToolRunner } from './engine.js';
import { LocalEngine } from './local-engine.js';
import type { ClaudeEngine } from './claude-engine.js';
import { billerAliasIndex, loadBillerCatalogue } from '../bills/catalogue.js';

export { OUTCOME_UNKNOWN, OUTCOME_UNKNOWN_MESSAGE } from './outcome-unknown.js';
export { Agent, PENDING_TTL_MS, UNAVAILABLE, type AgentAction, type AgentOptions, type PendingActionView, type TurnOutcome, type TurnRequest } from './agent.js';
export { turnJson, type TurnJson } from './turn-json.js';
export { pendingAskAt } from './local/pending-replies-i18n.js';
export { activityText, type ActivityEntry } from './local/activity-i18n.js';
export { detectLanguage, LANGS, shownLanguage, type Lang } from './local/language.js';
export { confirmQuote, type QuoteLookup } from './quote-confirm.js';
export { createToolHandlers, type ToolHandlerDeps } from './handlers.js';
export { LocalEngine } from './local-engine.js';
export type { Engine, EngineResult, EngineTurn, ToolRunner, ToolStep } from './engine.js';
export * from './tool-calls.js';
export { toolCatalogue, toolsTable, type CatalogueEntry } from './tool-catalogue.js';
export { TOOLS, type AnyTool } from './tools/registry.js';
export { PendingActions, type PendingAction, type PendingStatus } from './pending-tool-call.js';

/**
 * The Claude engine, its SDK loaded at the first turn: the SDK is one of the largest imports of
 * the service, and a start without ANTHROPIC_API_KEY never needs it (docs/performance.md).
 */
class LazyClaudeEngine implements Engine {
  readonly name = 'claude' as const;
  private engine?: Promise<Engine>;
  constructor(private readonly options: ConstructorParameters<typeof ClaudeEngine>[0]) {}
  async run(turn: EngineTurn, runTool: ToolRunner): Promise<EngineResult> {
    this.engine ??= import('./claude-engine.js').then((m) => new m.ClaudeEngine(this.options));
    return (await this.engine).run(turn, runTool);
  }
}

/** DESIGN.md 3: ANTHROPIC_API_KEY set -> Claude with tool use; unset -> the local parser. */
export function createEngine(
  config: Pick<Config, 'ANTHROPIC_API_KEY' | 'ANTHROPIC_MODEL' | 'ANTHROPIC_BASE_URL'> & Partial<Pick<Config, 'AGENT_TURN_TIMEOUT'>>,
  logger: Logger,
): Engine {
  if (config.ANTHROPIC_API_KEY) {
    return new LazyClaudeEngine({
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
