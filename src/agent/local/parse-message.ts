import { analyse, type Analysis, type ParseContext } from './analysis.js';
import { integerDigits } from './decimal.js';
import type { Draft, DraftCall } from './draft.js';
import { bestIntent, HELP, HELP_INTENT, type Scored } from './intents.js';
import type { Detector, LocalTool } from './local-intent.js';
import { detectRefusal, REFUSAL_REPLY } from './refusal.js';
import { NOT_UNDERSTOOD, NOTHING_DONE, replies } from './replies.js';
import { check, isTakeBack, quoteOf, screen, type GateVerdict } from './gate.js';
import { AMBIGUOUS_CURRENCY, AMBIGUOUS_PESO } from './currencies.js';
import { fold } from './lexicon-i18n.js';
import { shareFraction, shareOfDecimal } from './gate-unmeant.js';
import { CURRENCY_QUESTION, FEES_ANSWER, PESO_QUESTION, gateReply } from './replies-i18n.js';
import { readCompleteness } from './reading.js';
import { asksWhetherItHappened } from './sent-question.js';
import { QUOTED_INSTRUCTION } from './replies-held.js';
import { localizeQuestion } from './replies-questions-i18n.js';

export type { ParseContext } from './analysis.js';

/** `C`: the call's type; a parser over a typed registry narrows it (local/index.ts). */
export type ParseResult<C extends DraftCall = DraftCall> =
  /** `hold`: the words the reading could not place; the call waits for confirmation (reading.ts). */
  | { kind: 'tool'; call: C; hold?: string[] }
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

export type ParseMessage<C extends DraftCall = DraftCall> = (text: string, ctx: ParseContext) => ParseResult<C>;

/** The registry read once: detectors and scored intents by rank, schemas and reading rules by name. */
interface Plan {
  detectors: readonly Detector[];
  scored: readonly Scored[];
  byName: ReadonlyMap<string, LocalTool>;
}

function planOf(tools: readonly LocalTool[]): Plan {
  const byRank = <T extends { rank: number }>(x: T, y: T) => x.rank - y.rank;
  // Stable sorts: equal ranks keep the registry's order.
  const detectors = tools.flatMap((tool) => (tool.local?.detect ? [tool.local.detect] : []));
  detectors.sort(byRank);
  const scored: Scored[] = tools.flatMap((tool) => (tool.local?.scored ? [{ name: tool.name, scored: tool.local.scored }] : []));
  scored.push(HELP_INTENT);
  scored.sort((x, y) => byRank(x.scored, y.scored));
  return { detectors, scored, byName: new Map(tools.map((t) => [t.name, t])) };
}

/**
 * The local engine over a registry of tools: one message in, at most one tool call out. Pure
 * and deterministic: the same text and context always give the same result, with no I/O. A tool
 * is found through its own `local` intent (local-intent.ts); a tool without one is never chosen.
 *
 * Order: refuse authority-widening messages, honour "don't ...", the tools' detectors, score
 * the tools' intents, fill the winner's slots, and check the call against the tool's zod schema
 * before returning it.
 */
export function createParser(tools: readonly LocalTool[]): ParseMessage {
  const plan = planOf(tools);
  return (text, ctx) => {
    // The message is analysed once per parse: the reading below reuses the request's analysis.
    const seen: { a?: Analysis } = {};
    const parsed = parseRequest(text, ctx, plan, seen);
    const analysed = () => seen.a ?? analyse(text, ctx);
    // The builders' questions, in the person's language.
    if (parsed.kind === 'none' && !parsed.reason) return { ...parsed, reply: localizeQuestion(parsed.reply, analysed().lang) };
    if (parsed.kind !== 'tool' || !plan.byName.get(parsed.call.name)?.local?.wholeReading) return parsed;
    // Rule 1: a money-moving call acts at once only on a complete reading of the message.
    const a = analysed();
    const reading = readCompleteness(a, parsed.call, intentWords(plan.byName.get(parsed.call.name)!));
    if (reading.kind === 'complete') return parsed;
    if (reading.kind === 'hold') return { ...parsed, hold: reading.leftover };
    if (reading.reason === 'quoted_instruction') return { kind: 'refuse', reply: QUOTED_INSTRUCTION[a.lang], reason: 'quoted_instruction' };
    if (reading.reason === 'malformed_amount') return verdict({ reason: 'malformed_amount', quoted: reading.quoted }, a);
    return { kind: 'none', reply: gateReply('reversed_direction', a.lang), reason: 'reversed_direction' };
  };
}

const words = new WeakMap<LocalTool, ReadonlySet<string>>();
/** The words of a tool's own vocabulary (its positive cues), which a complete reading places as its verb. */
function intentWords(tool: LocalTool): ReadonlySet<string> {
  let known = words.get(tool);
  if (!known) words.set(tool, (known = new Set((tool.local?.scored?.cues ?? []).filter(([, n]) => n > 0).flatMap(([p]) => p.split(' ')))));
  return known;
}

function parseRequest(text: string, ctx: ParseContext, plan: Plan, seen: { a?: Analysis }): ParseResult {
  if (typeof text !== 'string' || !text.trim()) return { kind: 'help' };
  if (text.length > MAX_MESSAGE_CHARS) return { kind: 'none', reply: 'That message is too long for me; please say it in one short sentence.' };
  const a = (seen.a = analyse(text, ctx));
  if (!a.tokens.length) return { kind: 'help' };

  // The gate, first part: what holds whatever the message asks (embedded instructions,
  // someone else's account, a negation).
  // Pidgin "you never send the 5k to @amaka?" asks whether a send happened (its "never" is the not-yet of
  // the question): answered from the activity below, which moves nothing, not as an order taken back.
  // Only here: another engine's screen (screenMessage) still stops it as a negation.
  const pastQuestion = asksWhetherItHappened(a.text);
  const screened = screen(a);
  if (screened && !(screened.reason === 'negation' && pastQuestion)) return verdict(screened, a);
  if (detectRefusal(a.tokens, a.lemmas)) return { kind: 'refuse', reply: a.lang === 'en' ? REFUSAL_REPLY : gateReply('prompt_injection', a.lang), reason: 'prompt_injection' };
  // Telegram's bot commands.
  if (/^\/(start|help|menu)\b/i.test(a.text)) return { kind: 'help' };
  if (isNegated(a) && !pastQuestion) return { kind: 'none', reply: a.lang === 'en' ? NOTHING_DONE : gateReply('negation', a.lang), reason: 'negation' };

  if (isTakeBack(a)) return verdict({ reason: 'cancellation' }, a);

  const small = smallTalk(a);
  if (small) return { kind: 'none', reply: small };

  // Tools found by their own words (a payment by id, history, a quote, a balance question): a
  // call still leaves through its schema, keeping its hold when the schema takes it.
  for (const detect of plan.detectors) {
    const found = detect.run(a, ctx);
    if (!found) continue;
    if (found.kind !== 'tool') return found;
    // "¿cuánto cuesta mandar 200 o 300 a @lupe?": two amounts offered are asked about, not quoted one of them.
    const asked = found.call.name === 'quote_transfer' ? check(a, { intent: 'quote_transfer' }) : undefined;
    if (asked?.reason === 'alternative_amounts') return verdict(asked, a);
    // "what is half of 10k in dollars?": the share is priced, never the whole; a share that is not exact is asked about.
    const share = asked?.reason === 'malformed_amount' && found.call.name === 'quote_transfer' ? shareFraction(a) : undefined;
    const amount = found.call.input.amount;
    const priced = share && typeof amount === 'string' ? shareOfDecimal(amount, share) : undefined;
    if (share && !priced) return verdict(asked!, a);
    const call = priced ? { ...found.call, input: { ...found.call.input, amount: priced } } : found.call;
    const finished = finish({ call }, a, plan);
    return finished.kind === 'tool' ? { ...found, call } : finished;
  }

  const best = bestIntent(a, plan.scored);
  if (!best) {
    if (a.refusedNumbers.length) return verdict({ reason: 'malformed_amount', quoted: quoteOf(a, a.refusedNumbers[0]!) }, a);
    return { kind: 'none', reply: looksLikeMarketQuestion(a) ? replies.suggestMarket(a.text) : NOT_UNDERSTOOD };
  }
  if (best.name === HELP) return { kind: 'help' };
  const intent = best.scored;
  // The gate, second part: an action that moves money (or takes an amount) must be an
  // instruction from the caller for now.
  if (intent.instruction) {
    const v = check(a, { intent: best.name });
    if (v?.reason === 'question' && intent.onQuestion) return finish(intent.onQuestion(a), a, plan);
    if (v && (intent.instruction === 'moves_money' || v.reason === 'malformed_amount')) return verdict(v, a);
  }
  return finish(intent.build(a), a, plan);
}

/**
 * The gate's first part alone, for another engine (Claude) about to move money: embedded
 * instructions, another person's account or a negation in the user's own message stop the
 * tool whatever the model made of it. Answered like the local engine answers it.
 */
export function screenMessage(text: string, ctx: ParseContext, analysed?: Analysis): Extract<ParseResult, { kind: 'none' | 'refuse' }> | undefined {
  if (typeof text !== 'string' || !text.trim() || text.length > MAX_MESSAGE_CHARS) return undefined;
  // `analysed`: the caller's own analysis of the same text and context (analysed once).
  const a = analysed ?? analyse(text, ctx);
  const v = screen(a);
  if (v) return verdict(v, a) as Extract<ParseResult, { kind: 'none' | 'refuse' }>;
  if (isNegated(a)) return { kind: 'none', reply: a.lang === 'en' ? NOTHING_DONE : gateReply('negation', a.lang), reason: 'negation' };
  return undefined;
}

/** Reasons answered with 422 (not allowed / not an exact amount); the rest are a 200 answer. */
const REFUSALS = new Set(['prompt_injection', 'other_account', 'malformed_amount']);

function verdict(v: GateVerdict, a: Analysis): ParseResult {
  const reply = gateReply(v.reason, a.lang, v.quoted);
  return REFUSALS.has(v.reason) ? { kind: 'refuse', reply, reason: v.reason === 'malformed_amount' ? 'invalid_amount' : v.reason } : { kind: 'none', reply, reason: v.reason };
}

/** Every call leaves through the tool's own schema: a slot the schema rejects becomes a question. */
function finish(draft: Draft, a: Analysis, plan: Plan): ParseResult {
  if ('reply' in draft) return { kind: 'none', reply: draft.reply, ...(draft.reason ? { reason: draft.reason } : {}) };
  const input = draft.call.input as Record<string, unknown>;
  if (input.currency === AMBIGUOUS_PESO || input.to_currency === AMBIGUOUS_PESO) {
    const c = draft.call;
    const pesos = c.name === 'send_transfer' && typeof input.recipient === 'string' && typeof input.amount === 'string'
      ? { pesos: { recipient: input.recipient, amount: input.amount, ...(typeof input.note === 'string' ? { note: input.note } : {}) } }
      : {};
    return { kind: 'none', reply: PESO_QUESTION[a.lang], reason: 'ambiguous_currency', ...pesos };
  }
  if (input.currency === AMBIGUOUS_CURRENCY || input.to_currency === AMBIGUOUS_CURRENCY) return { kind: 'none', reply: CURRENCY_QUESTION[a.lang], reason: 'ambiguous_currency' };
  if (typeof input.amount === 'string' && integerDigits(input.amount) > 12) return { kind: 'none', reply: replies.amountTooLarge };
  const tool = plan.byName.get(draft.call.name);
  if (!tool) return { kind: 'none', reply: NOT_UNDERSTOOD };
  const parsed = tool.input.safeParse(input);
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
  // "UPI se bhejne pe charge lagta hai kya?", "may bayad ba pag nag-send…?": a fee question in any language,
  // with no amount and no person, is answered with the fee rule too.
  const asks = a.text.trim().endsWith('?') || words.includes('kya') || words.includes('ba');
  // The rule is the transfer fee's: a question about bills, markets or links is not answered with it.
  const person = a.tokens.some((t) => t.kind === 'mention' || t.kind === 'phone' || t.kind === 'email') || a.lemmas.some((l) => OTHER_PRODUCTS.has(l));
  if (asks && !a.money.length && !person && (words.some((w) => FEE_WORDS_I18N.has(fold(w))) || /\bmay bayad\b/.test(fold(a.text.toLowerCase())))) return FEES_ANSWER[a.lang];
  return undefined;
}

const THANKS = new Set(['thanks', 'thank', 'you', 'thx', 'ty', 'asante', 'sana', 'cheers', 'nice', 'great', 'cool', 'much', 'so', 'medaase', 'ngiyabonga', 'dankie', 'o', 'na']);
const BARE_ANSWERS = new Set(['ok', 'okay', 'alright', 'yes', 'no', 'yeah', 'yep', 'nope', 'sure', 'confirm', 'confirmed', 'y', 'n']);
const FEE_WORDS = new Set(['cost', 'costs', 'fee', 'fees', 'charge', 'charges', 'rate', 'rates', 'worth']);
const OTHER_PRODUCTS = new Set(['bill', 'bills', 'airtime', 'data', 'electricity', 'token', 'market', 'markets', 'link', 'bet', 'stake']);
const FEE_WORDS_I18N = new Set(['fee', 'fees', 'charge', 'charges', 'frais', 'taxa', 'taxas', 'tarifa', 'tarifas', 'comision', 'comisiones', 'comissao', 'ada', 'makato', 'gharama']);
