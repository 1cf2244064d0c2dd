import { screenMessage } from '../local/index.js';
import { analyse, normalizeText } from '../local/analysis.js';
import { check } from '../local/gate.js';
import { gateReply } from '../local/replies-i18n.js';
import type { BillerCatalogue } from '../../bills/catalogue.js';
import { MONEY_MOVING_TOOLS, type ToolCall } from '../tool-inputs.js';
import { groundArguments, type SeenMarket } from './arguments.js';
import { AMBIGUOUS, GroundingReason, INFERRED, type Ambiguous, type Inferred } from './grounding-reasons.js';
import { readOwnWords } from './words.js';
import { detectLanguage } from '../local/language.js';
import { notGroundedReply } from '../local/not-grounded-i18n.js';

export { notGroundedReply } from '../local/not-grounded-i18n.js';

export { AMBIGUOUS, GroundingReason, INFERRED, QUOTED_ONLY_REPLY, type Ambiguous, type Inferred } from './grounding-reasons.js';
export { ownWords } from './own-words.js';
export type { SeenMarket } from './arguments.js';

/**
 * Grounding (docs/agent.md "Grounding"): the core's check of every money-moving call, whichever
 * engine asked for it, before it runs or is held. Act at once only when every argument is in the
 * person's own words and the request passes the local gate; hold when an argument came from a
 * rule in INFERRED; otherwise end the turn.
 */
export type GroundingDecision =
  | { kind: 'act' }
  | { kind: 'hold'; inferred: Inferred[]; ambiguous: Ambiguous[]; note: string }
  /** The turn ends here: `refuse` is answered 422, a gate answer (negation, question…) 200. */
  | { kind: 'end'; refuse: boolean; reason: string; reply: string; missing?: string[] };

export type GroundingInput = {
  call: ToolCall;
  /** The person's message (quoted text inside it is found and set aside here). */
  message: string;
  /** Quoted or forwarded parts the door passed separately: never the person's words. */
  quoted?: readonly string[];
  localCurrency: string;
  now: Date;
  catalogue?: BillerCatalogue;
  /** Markets a read tool showed earlier in the same turn (an id the model looked up). */
  markets?: readonly SeenMarket[];
};

/** The local gate's reasons answered 422 (not allowed, not an exact amount); the rest are a 200 answer. */
const GATE_REFUSALS = new Set(['prompt_injection', 'other_account', 'malformed_amount']);
/** The gate's verdicts the local engine applies to resolve and cancel (they carry no amount to send). */
const MARKET_ADMIN_REASONS = new Set(['question', 'malformed_amount']);

export function groundCall(input: GroundingInput): GroundingDecision {
  const { call } = input;
  if (!MONEY_MOVING_TOOLS.has(call.name)) return { kind: 'act' };
  const ctx = { now: input.now, localCurrency: input.localCurrency };

  // The arguments first: a value the person never wrote is the plainest reason not to act.
  const own = readOwnWords(input.message, input.localCurrency, input.now);
  const found = groundArguments(call, own, {
    localCurrency: input.localCurrency,
    ...(input.catalogue ? { catalogue: input.catalogue } : {}),
    ...(input.markets ? { markets: input.markets } : {}),
  });
  if (found.missing.length) {
    return { kind: 'end', refuse: true, reason: GroundingReason.not_grounded, reply: notGroundedReply(found.missing, detectLanguage(input.message)), missing: found.missing };
  }

  // Then the request itself, by the local engine's own gate on the whole message: embedded
  // instructions, another person's account, a negation; a question, the other direction…
  // One analysis of the message for both parts of the gate; with nothing quoted it is the own
  // words' (analyse reads only the normalised text and the same context: the same analysis).
  const a = !own.quoted.length && normalizeText(own.text) === normalizeText(input.message) ? own.a : analyse(input.message, ctx);
  const screened = screenMessage(input.message, ctx, a);
  if (screened) return { kind: 'end', refuse: screened.kind === 'refuse', reason: screened.reason ?? 'not_allowed', reply: screened.reply };
  const v = check(a, { intent: call.name });
  if (v && (call.name === 'send_transfer' || call.name === 'pay_bill' || call.name === 'stake_market' || MARKET_ADMIN_REASONS.has(v.reason))) {
    const refuse = GATE_REFUSALS.has(v.reason);
    return { kind: 'end', refuse, reason: v.reason === 'malformed_amount' ? 'invalid_amount' : v.reason, reply: gateReply(v.reason, a.lang, v.quoted) };
  }

  if (found.inferred.length || found.ambiguous.length) {
    const inferred = [...new Set(found.inferred)];
    const ambiguous = [...new Set(found.ambiguous)];
    return { kind: 'hold', inferred, ambiguous, note: [...inferred.map((i) => INFERRED[i]), ...ambiguous.map((x) => AMBIGUOUS[x])].join(' ') };
  }
  return { kind: 'act' };
}
