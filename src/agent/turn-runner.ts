import type { Logger } from 'pino';
import { MONEY_MOVING_TOOLS, type ToolCall } from './tool-inputs.js';
import { TOOL_ACTIONS, describeCall, toToolCall, type ToolContext, type ToolHandlers, type ToolOutcome } from './tools.js';
import { UNAVAILABLE_REPLY, type Engine, type EngineResult, type ToolRunner } from './engine.js';
import { HELP_EXAMPLES } from './local-engine.js';
import type { PendingAction } from './pending-actions.js';
import { groundCall, type SeenMarket } from './grounding/index.js';
import { UNAVAILABLE, failure, fromOutcome, pendingResult, type TurnOutcome, type TurnRequest } from './turn-outcome.js';

/**
 * One message through the engine: every tool call it asks for passes here. Money-moving calls
 * are grounded in the person's words (./grounding) and then executed, held for confirmation, or
 * the turn ends; at most one money-moving action per message.
 */

export interface TurnDeps {
  engine: Engine;
  handlers: ToolHandlers;
  now: () => Date;
  execute(call: ToolCall, ctx: ToolContext): Promise<ToolOutcome>;
  createPending(call: ToolCall, description: string, details: Record<string, unknown> | undefined): Promise<PendingAction>;
}

interface TurnState {
  outcomes: { call: ToolCall; outcome: ToolOutcome }[];
  pending?: PendingAction;
  /** Why the assistant held the action instead of acting (an argument it inferred). */
  heldNote?: string;
  rejected: string[];
  /** Set when grounding ended the turn: its answer, whatever the engine does next. */
  ended?: TurnOutcome;
  /** Markets a read tool showed in this turn: a later call may name one by the id it looked up. */
  markets: SeenMarket[];
}

export async function runEngineTurn(deps: TurnDeps, req: TurnRequest, ctx: ToolContext & { localCurrency: string; logger: Logger }, quoted: string[]): Promise<TurnOutcome> {
  const { channel, requestId, accountId } = req;
  const log = ctx.logger;
  const state: TurnState = { outcomes: [], rejected: [], markets: [] };
  const runTool: ToolRunner = async (name, input, runOpts) => {
    // Grounding ended the turn: nothing else runs in it, whatever the engine asks next.
    if (state.ended) return { kind: 'ended', message: state.ended.reply };
    const checked = toToolCall(name, input);
    if (!checked.ok) {
      state.rejected.push(checked.message);
      log.info({ tool: name }, 'tool call rejected: invalid input');
      return { kind: 'rejected', message: checked.message };
    }
    const call = checked.call;
    const moving = MONEY_MOVING_TOOLS.has(call.name);
    // One money-moving action per message: the turn reports one outcome, and the user saw one action.
    if (moving && (state.pending || state.outcomes.some((o) => MONEY_MOVING_TOOLS.has(o.call.name)))) {
      log.info({ tool: call.name }, 'tool call rejected: second money-moving action in one message');
      return { kind: 'rejected', message: 'Only one action that moves money can be done per message; ask the user to send the next one separately.' };
    }
    // Grounding (./grounding): every argument in the person's own words, the request past the gate.
    const grounding = moving
      ? groundCall({ call, message: req.message, quoted, localCurrency: ctx.localCurrency, now: deps.now(), markets: state.markets })
      : { kind: 'act' as const };
    if (grounding.kind === 'end') {
      // A refusal (not_grounded, injection…) is a 422 naming the action; a gate answer (negation, question) a 200 `none`.
      state.ended = grounding.refuse
        ? failure(TOOL_ACTIONS[call.name], grounding.reply, grounding.reason)
        : { ok: true, action: 'none', reply: grounding.reply, reason: grounding.reason };
      log.warn({ tool: call.name, reason: grounding.reason, missing: grounding.missing }, 'money-moving call stopped by grounding; turn ended');
      return { kind: 'ended', message: grounding.reply };
    }
    if (grounding.kind === 'hold') state.heldNote = grounding.note;
    // A call the engine holds (it did not understand the whole message) waits for a person, on every channel.
    if ((channel !== 'api' || req.preview || runOpts?.hold || grounding.kind === 'hold') && moving) {
      const preview = await describeCall(call, ctx, deps.handlers);
      if (!preview.ok) {
        state.outcomes.push({ call, outcome: preview });
        log.info({ tool: call.name, ok: false, reason: preview.reason }, 'pending action refused by preview');
        return { kind: 'executed', outcome: preview };
      }
      state.pending = await deps.createPending(call, preview.description, preview.details);
      log.info({ tool: call.name, actionId: state.pending.id }, 'pending action created');
      return { kind: 'pending', description: preview.description };
    }
    const outcome = await deps.execute(call, ctx);
    state.outcomes.push({ call, outcome });
    state.markets.push(...marketsShown(outcome));
    return { kind: 'executed', outcome };
  };

  const turn = { accountId, channel, message: req.message, localCurrency: ctx.localCurrency, now: deps.now(), logger: log };
  const result = await deps.engine.run({ ...turn, ...(requestId ? { requestId } : {}), ...(quoted.length ? { quoted } : {}) }, runTool);
  return finish(result, state);
}

/** The markets (id and question) a successful read outcome showed: list_markets' list, a created market. */
function marketsShown(outcome: ToolOutcome): SeenMarket[] {
  if (!outcome.ok || outcome.action !== 'market' || !outcome.result || typeof outcome.result !== 'object') return [];
  const r = outcome.result as { markets?: unknown; id?: unknown; question?: unknown };
  const list = Array.isArray(r.markets) ? r.markets : [r];
  return list.flatMap((m: { id?: unknown; question?: unknown }) =>
    typeof m?.id === 'string' && m.id.startsWith('mkt_') && typeof m.question === 'string' ? [{ id: m.id, question: m.question }] : [],
  );
}

function finish(result: EngineResult, state: TurnState): TurnOutcome {
  if (state.ended) return state.ended;
  // A held call is answered with the engine's own words (what it understood, why it waits) when it has them,
  // else with grounding's note (an inferred argument) before the description.
  if (state.pending) return pendingResult(state.pending, result.kind === 'reply' ? result.held : undefined, state.heldNote);
  if (state.outcomes.length > 0) {
    // The turn reports its money-moving outcome if it had one, else its last one.
    const primary = [...state.outcomes].reverse().find((o) => MONEY_MOVING_TOOLS.has(o.call.name)) ?? state.outcomes[state.outcomes.length - 1]!;
    const text = result.kind === 'reply' ? result.text : undefined;
    // Money that moved is reported from the tool's own exact summary, never the model's paraphrase.
    const exact = primary.outcome.ok && MONEY_MOVING_TOOLS.has(primary.call.name);
    // A lead in the user's language may go before the exact summary, never replace it.
    const led = result.kind === 'reply' && result.lead && primary.outcome.ok ? `${result.lead}${primary.outcome.summary}` : undefined;
    return fromOutcome(primary.outcome, exact ? led : (text ?? led));
  }
  switch (result.kind) {
    case 'refuse':
      return failure('none', result.reply, result.reason ?? 'not_allowed');
    case 'unavailable':
      return { ok: false, action: 'none', reply: UNAVAILABLE_REPLY, reason: UNAVAILABLE };
    case 'help':
      return { ok: true, action: 'info', reply: result.reply, result: { topic: 'help', examples: HELP_EXAMPLES } };
    case 'none':
      return { ok: true, action: 'none', reply: result.reply, ...(result.reason ? { reason: result.reason } : {}) };
    case 'reply':
      if (!result.text && state.rejected.length > 0) {
        return failure('none', `I couldn't do that: ${state.rejected[state.rejected.length - 1]}`, 'invalid_input');
      }
      return { ok: true, action: 'info', reply: result.text ?? "Sorry, I couldn't work that out. Try rephrasing.", result: { topic: 'answer' } };
  }
}
