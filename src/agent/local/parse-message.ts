import { ToolInputs, type ToolCall } from '../tool-inputs.js';
import { analyse, type Analysis, type ParseContext } from './analysis.js';
import { buildBill } from './build-bill.js';
import { buildCancel, buildCreateMarket, buildList, buildResolve, buildStake } from './build-markets.js';
import { buildPaymentLink } from './build-payment-link.js';
import { buildTransfer } from './build-transfer.js';
import { integerDigits } from './decimal.js';
import type { Draft } from './draft.js';
import { bestIntent, scoreIntents } from './intents.js';
import type { Intent } from './lexicon.js';
import { detectRefusal, REFUSAL_REPLY } from './refusal.js';
import { NOT_UNDERSTOOD, NOTHING_DONE, replies } from './replies.js';
import { check, quoteOf, screen, type GateVerdict } from './gate.js';
import type { Lang } from './language.js';
import { AMBIGUOUS_PESO } from './currencies.js';
import { FEES_ANSWER, PESO_QUESTION, gateReply } from './replies-i18n.js';
import { isMoneyMoving, readCompleteness } from './reading.js';
import { QUOTED_INSTRUCTION } from './replies-held.js';
import { localizeQuestion } from './replies-questions-i18n.js';
import { detectActivity, detectBalance, detectQuote } from './read-intents.js';
import { detectPaymentOp } from './payment-ops.js';

export type { ParseContext } from './analysis.js';

export type ParseResult =
  /** `hold`: the words the reading could not place; the call waits for confirmation (reading.ts). */
  | { kind: 'tool'; call: ToolCall; hold?: string[] }
  | { kind: 'help' }
  /** Nothing to do: a question back, an answer, or the gate's reason in `reason`. */
  | {
      kind: 'none';
      reply: string;
      reason?: string;
      /**
       * "pesos" with no word saying which (reason `ambiguous_currency`): the transfer it would be,
       * so the engine may take the recipient's own peso as a named inference, held (local-engine.ts).
       */
      pesos?: { recipient: string; amount: string; note?: string };
    }
  /** Must not be done (422): another account, embedded instructions, an amount that is not exact. */
  | { kind: 'refuse'; reply: string; reason?: string };

const MAX_MESSAGE_CHARS = 1000;

/**
 * The local engine: one message in, at most one tool call out. Pure and deterministic:
 * the same text and context always give the same result, with no I/O.
 *
 * Order: refuse authority-widening messages, honour "don't ...", score intents, fill the
 * winner's slots, and check the call against the tool's zod schema before returning it.
 */
export function parseMessage(text: string, ctx: ParseContext): ParseResult {
  const parsed = parseRequest(text, ctx);
  // The builders' questions, in the person's language.
  if (parsed.kind === 'none' && !parsed.reason) return { ...parsed, reply: localizeQuestion(parsed.reply, analyse(text, ctx).lang) };
  if (parsed.kind !== 'tool' || !isMoneyMoving(parsed.call)) return parsed;
  // Rule 1: a money-moving call acts at once only on a complete reading of the message.
  const a = analyse(text, ctx);
  const reading = readCompleteness(a, parsed.call);
  if (reading.kind === 'complete') return parsed;
  if (reading.kind === 'hold') return { ...parsed, hold: reading.leftover };
  if (reading.reason === 'quoted_instruction') return { kind: 'refuse', reply: QUOTED_INSTRUCTION[a.lang], reason: 'quoted_instruction' };
  return { kind: 'none', reply: gateReply('reversed_direction', a.lang), reason: 'reversed_direction' };
}

function parseRequest(text: string, ctx: ParseContext): ParseResult {
  if (typeof text !== 'string' || !text.trim()) return { kind: 'help' };
  if (text.length > MAX_MESSAGE_CHARS) return { kind: 'none', reply: 'That message is too long for me; please say it in one short sentence.' };
  const a = analyse(text, ctx);
  if (!a.tokens.length) return { kind: 'help' };

  // The gate, first part: what holds whatever the message asks (embedded instructions,
  // someone else's account, a negation).
  const screened = screen(a);
  if (screened) return verdict(screened, a);
  if (detectRefusal(a.tokens, a.lemmas)) return { kind: 'refuse', reply: a.lang === 'en' ? REFUSAL_REPLY : gateReply('prompt_injection', a.lang), reason: 'prompt_injection' };
  // Telegram's bot commands.
  if (/^\/(start|help|menu)\b/i.test(a.text)) return { kind: 'help' };
  if (isNegated(a)) return { kind: 'none', reply: a.lang === 'en' ? NOTHING_DONE : gateReply('negation', a.lang), reason: 'negation' };

  const small = smallTalk(a);
  if (small) return { kind: 'none', reply: small };

  // The merchant's own payments by id: refund, capture, void (payment-ops.ts, its own complete reading).
  const op = detectPaymentOp(a, ctx);
  if (op?.kind === 'tool') return finish({ call: op.call }, a).kind === 'tool' ? op : finish({ call: op.call }, a);
  if (op) return op;

  // Read-only answers: history, and quotes ("how much is 100 USD in NGN", "what does @x get if I send 5k").
  if (detectActivity(a)) return { kind: 'tool', call: { name: 'list_activity', input: {} } };
  const quote = detectQuote(a);
  if (quote) return finish(quote, a);
  if (detectBalance(a)) return { kind: 'tool', call: { name: 'get_balance', input: {} } };

  const intent = bestIntent(scoreIntents(a));
  if (!intent) {
    if (a.refusedNumbers.length) return verdict({ reason: 'malformed_amount', quoted: quoteOf(a, a.refusedNumbers[0]!) }, a);
    return { kind: 'none', reply: looksLikeMarketQuestion(a) ? replies.suggestMarket(a.text) : NOT_UNDERSTOOD };
  }
  if (intent === 'help') return { kind: 'help' };
  // The gate, second part: an action that moves money (or takes an amount) must be an
  // instruction from the caller for now.
  if (GATED.has(intent)) {
    const v = check(a, { intent });
    if (v?.reason === 'question' && intent === 'send_transfer') {
      const q = detectQuote(a, true);
      if (q) return finish(q, a);
      return { kind: 'none', reply: FEES_ANSWER[a.lang], reason: 'question' };
    }
    if (v && (MONEY_INTENTS.has(intent) || v.reason === 'malformed_amount')) return verdict(v, a);
  }
  if (intent === 'quote_transfer' || intent === 'list_activity') return { kind: 'help' };
  return finish(build(intent, a), a);
}

/**
 * The gate's first part alone, for another engine (Claude) about to move money: embedded
 * instructions, another person's account or a negation in the user's own message stop the
 * tool whatever the model made of it. Answered like the local engine answers it.
 */
export function screenMessage(text: string, ctx: ParseContext): Extract<ParseResult, { kind: 'none' | 'refuse' }> | undefined {
  if (typeof text !== 'string' || !text.trim() || text.length > MAX_MESSAGE_CHARS) return undefined;
  const a = analyse(text, ctx);
  const v = screen(a);
  if (v) return verdict(v, a) as Extract<ParseResult, { kind: 'none' | 'refuse' }>;
  if (isNegated(a)) return { kind: 'none', reply: a.lang === 'en' ? NOTHING_DONE : gateReply('negation', a.lang), reason: 'negation' };
  return undefined;
}

const MONEY_INTENTS = new Set<Intent>(['send_transfer', 'pay_bill', 'stake_market']);
const GATED = new Set<Intent>(['send_transfer', 'pay_bill', 'stake_market', 'create_payment_link', 'resolve_market', 'cancel_market']);
/** Reasons answered with 422 (not allowed / not an exact amount); the rest are a 200 answer. */
const REFUSALS = new Set(['prompt_injection', 'other_account', 'malformed_amount']);

function verdict(v: GateVerdict, a: Analysis): ParseResult {
  const reply = gateReply(v.reason, a.lang, v.quoted);
  return REFUSALS.has(v.reason) ? { kind: 'refuse', reply, reason: v.reason === 'malformed_amount' ? 'invalid_amount' : v.reason } : { kind: 'none', reply, reason: v.reason };
}

function build(intent: Exclude<Intent, 'help' | 'quote_transfer' | 'list_activity'>, a: Analysis): Draft {
  switch (intent) {
    case 'send_transfer':
      return buildTransfer(a);
    case 'pay_bill':
      return buildBill(a);
    case 'create_market':
      return buildCreateMarket(a);
    case 'stake_market':
      return buildStake(a);
    case 'resolve_market':
      return buildResolve(a);
    case 'cancel_market':
      return buildCancel(a);
    case 'list_markets':
      return buildList(a);
    case 'create_payment_link':
      return buildPaymentLink(a);
    case 'get_balance':
      return { call: { name: 'get_balance', input: {} } };
    // A registered tool the local engine has no builder for (it is never scored, see intents.ts).
    default:
      return { reply: NOT_UNDERSTOOD };
  }
}

/** Every call leaves through the tool's own schema: a slot the schema rejects becomes a question. */
function finish(draft: Draft, a: Analysis): ParseResult {
  if ('reply' in draft) return { kind: 'none', reply: draft.reply };
  const input = draft.call.input as Record<string, unknown>;
  if (input.currency === AMBIGUOUS_PESO || input.to_currency === AMBIGUOUS_PESO) {
    const c = draft.call;
    const pesos = c.name === 'send_transfer' && typeof input.recipient === 'string' && typeof input.amount === 'string'
      ? { pesos: { recipient: input.recipient, amount: input.amount, ...(typeof input.note === 'string' ? { note: input.note } : {}) } }
      : {};
    return { kind: 'none', reply: PESO_QUESTION[a.lang], reason: 'ambiguous_currency', ...pesos };
  }
  if (typeof input.amount === 'string' && integerDigits(input.amount) > 12) return { kind: 'none', reply: replies.amountTooLarge };
  const parsed = ToolInputs[draft.call.name].safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || 'input';
    return { kind: 'none', reply: `I couldn't use the ${field} in that message (${issue?.message ?? 'invalid'}). Could you rephrase?` };
  }
  return { kind: 'tool', call: draft.call };
}

const NEGATIONS = new Set(['dont', 'never', 'nevermind', 'stop', 'forget']);

/** "don't send anything", "never mind", "do not pay": the user is taking it back. */
function isNegated(a: Analysis): boolean {
  const words = a.tokens.map((t, i) => ({ t, l: a.lemmas[i]! })).filter(({ t }) => t.kind === 'word');
  const skip = new Set(['hi', 'hey', 'hello', 'ok', 'okay', 'please', 'oh', 'no', 'wait', 'actually', 'sorry', 'pls', 'umm', 'um']);
  const first = words.find(({ l }) => !skip.has(l));
  if (!first) return false;
  const idx = words.indexOf(first);
  const second = words[idx + 1]?.l;
  if (first.l === 'forget') return second === 'it' || second === 'that' || second === 'about';
  if (NEGATIONS.has(first.l)) return first.l !== 'stop' || second === 'it' || second === 'that' || second === undefined;
  // "cancel that", "cancel it", a bare "cancel": take back the last request, not a market.
  const rest = a.tokens.filter((t) => t.kind !== 'punct' && t.kind !== 'symbol').map((t) => t.norm);
  const at = rest.indexOf(first.t.norm);
  const tail = rest.slice(at + 1).filter((w) => !skip.has(w));
  if (first.l === 'cancel' && (tail.length === 0 || (tail.length === 1 && ['that', 'it', 'this'].includes(tail[0]!)))) return true;
  return first.l === 'do' && second === 'not';
}

/** "Will it rain tomorrow?" on its own reads like a market someone hasn't asked for yet. */
function looksLikeMarketQuestion(a: Analysis): boolean {
  const first = a.tokens.find((t) => t.kind === 'word')?.norm;
  return a.text.endsWith('?') && (first === 'will' || first === 'who' || first === 'which') && a.text.length <= 200;
}

/** Short replies that are not requests: thanks, a bare yes/no, a question about fees. */
function smallTalk(a: Analysis): string | undefined {
  const words = a.tokens.filter((t) => t.kind === 'word').map((t) => t.norm);
  const only = (set: ReadonlySet<string>) => words.length > 0 && words.length <= 5 && words.every((w) => set.has(w));
  if (only(THANKS)) return replies.welcome;
  if (only(BARE_ANSWERS)) return replies.useButtons;
  const howMuch = words.join(' ').includes('how much');
  // With an amount it is a quote (quote_transfer); without one, the fee rule.
  if (howMuch && !a.money.length && words.some((w) => FEE_WORDS.has(w))) return FEES_ANSWER[a.lang];
  return undefined;
}

const THANKS = new Set(['thanks', 'thank', 'you', 'thx', 'ty', 'asante', 'sana', 'cheers', 'nice', 'great', 'cool', 'much', 'so', 'medaase', 'ngiyabonga', 'dankie', 'o', 'na']);
const BARE_ANSWERS = new Set(['ok', 'okay', 'alright', 'yes', 'no', 'yeah', 'yep', 'nope', 'sure', 'confirm', 'confirmed', 'y', 'n']);
const FEE_WORDS = new Set(['cost', 'costs', 'fee', 'fees', 'charge', 'charges', 'rate', 'rates', 'worth']);
