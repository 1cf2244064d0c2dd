import { MONEY_MOVING_TOOLS, type ToolCall } from './tool-inputs.js';
import type { ToolOutcome } from './tool-calls.js';
import { UNAVAILABLE_REPLY, type EngineResult } from './engine.js';
import { HELP_EXAMPLES } from './local-engine.js';
import type { PendingAction } from './pending-tool-call.js';
import type { SeenMarket } from './grounding/index.js';
import { failure, fromOutcome, pendingResult, type TurnOutcome } from './turn-outcomes.js';

/** Why a turn could not be answered at all: the model provider failed after retries. */
export const UNAVAILABLE = 'unavailable';

/** What one turn gathered while the engine ran: its tool outcomes, a held action, or its end. */
export interface TurnState {
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

/** The turn's one answer, from what the engine said and what its tool calls did. */
export function finishTurn(result: EngineResult, state: TurnState): TurnOutcome {
  if (state.ended) return state.ended;
  // A held call is answered with the engine's own words (what it understood, why it waits) when it has them,
  // else with grounding's note (an inferred argument) before the description.
  if (state.pending) {
    const r = result.kind === 'reply' ? result : undefined;
    const held = pendingResult(state.pending, r?.held, state.heldNote, r?.ask, r?.approval, r?.note);
    return r?.lang ? { ...held, lang: r.lang } : held;
  }
  if (state.outcomes.length > 0) {
    // The turn reports its money-moving outcome if it had one, else its last one.
    const primary =
      [...state.outcomes].reverse().find((o) => MONEY_MOVING_TOOLS.has(o.call.name)) ?? state.outcomes[state.outcomes.length - 1]!;
    const text = result.kind === 'reply' ? result.text : undefined;
    // Money that moved is reported from the tool's own exact summary, never the model's paraphrase.
    const exact = primary.outcome.ok && MONEY_MOVING_TOOLS.has(primary.call.name);
    // A lead in the user's language may go before the exact summary, never replace it.
    const led = result.kind === 'reply' && result.lead && primary.outcome.ok ? `${result.lead}${primary.outcome.summary}` : undefined;
    // The local engine's reply in the person's language, from this outcome's own fields, when it has one.
    const localized = result.kind === 'reply' ? result.localized : undefined;
    const reply = localized ?? (exact ? led : (text ?? led));
    // A stake on a side the market does not have ("Super Eagles", "Gunners") is asked about, not refused:
    // the answer names the market's outcomes and nothing moved (200 `none`, reason `which_outcome`).
    if (!primary.outcome.ok && primary.call.name === 'stake_market' && primary.outcome.reason === 'invalid_outcome') {
      return { ok: true, action: 'none', reply: reply ?? primary.outcome.message, reason: 'which_outcome' };
    }
    return fromOutcome(primary.outcome, reply);
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
