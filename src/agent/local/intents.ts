import { findPhrase, hasLemma, type Analysis } from './analysis.js';
import { CUES, NO_WORDS, RECIPIENT_KINDS, YES_WORDS, type Intent } from './lexicon.js';

/**
 * Intent scoring: cue words add points (lexicon.ts), the shapes found in the message add
 * more (a @handle suggests a transfer, an mkt_ id a market action), and each intent has a
 * gate it must pass so a single stray word cannot trigger it.
 */

const INTENT_ORDER: readonly Intent[] = [
  'send_transfer',
  'pay_bill',
  'create_payment_link',
  'stake_market',
  'resolve_market',
  'cancel_market',
  'create_market',
  'list_markets',
  'get_balance',
  'help',
];

const MIN_SCORE = 3;

const TRANSFER_VERBS = ['send', 'transfer', 'remit', 'wire', 'give', 'tip', 'lend', 'pay', 'move', 'forward', 'p2p'];
const BILL_NOUNS = [
  'meter', 'smartcard', 'iuc', 'decoder', 'token', 'airtime', 'data', 'bundle', 'bill', 'electricity', 'prepaid', 'postpaid',
  'subscription', 'kwh', 'units', 'recharge', 'topup', 'utility', 'utilities', 'light', 'credit', 'load',
];
const MARKET_NOUNS = ['market', 'poll', 'prediction', 'markets', 'polls'];
const STAKE_VERBS = ['bet', 'stake', 'wager', 'punt'];
const LINK_NOUNS = ['link', 'checkout', 'invoice', 'paylink'];
const QUESTION_STARTS = new Set(['will', 'who', 'what', 'which', 'is', 'are', 'does', 'do', 'can', 'when', 'how', 'whether', 'would', 'should', 'did']);

export type IntentScores = Map<Intent, number>;

export function scoreIntents(a: Analysis): IntentScores {
  const score = new Map<Intent, number>(INTENT_ORDER.map((i) => [i, 0]));
  const add = (intent: Intent, n: number) => score.set(intent, (score.get(intent) ?? 0) + n);

  for (const cue of CUES) {
    if (findPhrase(a, cue.words) >= 0) for (const [intent, w] of Object.entries(cue.weights)) add(intent as Intent, w!);
  }

  const recipients = a.tokens.map((t, i) => ({ t, i })).filter(({ t }) => RECIPIENT_KINDS.has(t.kind));
  const nonPhone = recipients.filter(({ t }) => t.kind !== 'phone');
  if (nonPhone.length) add('send_transfer', 4);
  else if (recipients.length) add('send_transfer', 2);
  if (recipients.some(({ i }) => a.lemmas[i - 1] === 'to')) add('send_transfer', 1);

  const billerHit = a.billerMatches.length > 0;
  if (billerHit) add('pay_bill', a.billerMatches.some((m) => !m.entry.generic) ? 4 : 2);
  const accountLike = a.tokens.some(
    (t) => (t.kind === 'number' && !t.currency && (t.idLike || (t.digits?.length ?? 0) >= 7)) || (t.kind === 'phone' && billerHit),
  );
  if (accountLike) add('pay_bill', 2);

  const marketWord = hasLemma(a, 'market', 'poll', 'prediction');
  const marketId = a.tokens.some((t) => t.kind === 'market_id');
  if (marketWord) {
    add('pay_bill', -3);
    add('send_transfer', -2);
  }
  // Plural "markets" without an id is about browsing ("show me resolved markets").
  if (hasLemma(a, 'markets') && !marketId) add('list_markets', 3);
  if (marketId) {
    for (const i of ['stake_market', 'resolve_market', 'cancel_market'] as const) add(i, 2);
    add('create_market', -4);
    add('list_markets', -3);
  }

  const amounts = a.money.filter((m) => !m.negative);
  if (amounts.length) {
    const marked = amounts.some((m) => m.marked);
    for (const i of ['send_transfer', 'pay_bill', 'stake_market', 'create_payment_link'] as const) add(i, marked ? 2 : 1);
    add('get_balance', -3);
    add('list_markets', -3);
    add('resolve_market', -2);
    add('cancel_market', -2);
    add('help', -5);
  }

  // "on yes" reads as a stake; "as yes" / "is no" as a resolution.
  a.lemmas.forEach((l, i) => {
    const next = a.tokens[i + 1]?.norm ?? '';
    const isYesNo = YES_WORDS.has(next) || NO_WORDS.has(next);
    if ((l === 'on' || l === 'for') && isYesNo) add('stake_market', 2);
    if ((l === 'as' || l === 'is' || l === 'was' || l === 'to') && isYesNo) add('resolve_market', 1);
  });
  if (amounts.length && (marketId || marketWord) && findPhrase(a, ['on']) >= 0) add('stake_market', 3);

  // "market: ...", "poll - ...": what follows is the question.
  const colon = a.lemmas.findIndex((l, i) => (l === 'market' || l === 'poll' || l === 'prediction') && [':', '-', '–', '—'].includes(a.lemmas[i + 1] ?? ''));
  if (colon >= 0) add('create_market', 2);
  // Words of that question are its content, not cues: "crea un mercado: ¿ganará el América la Liga MX?".
  if (colon >= 0 && a.lemmas.slice(colon + 2).includes('link') && !a.lemmas.slice(0, colon).includes('link')) add('create_payment_link', -4);
  // "request 2000 KES payment for rent": a request for a payment is a payment link.
  if (hasLemma(a, 'request') && hasLemma(a, 'payment', 'money', 'pay', 'paid')) add('create_payment_link', 5);
  // A quoted question after the market words: 'new market "Uulan ba sa Manila bukas?"'.
  const marketAt = a.lemmas.findIndex((l) => l === 'market' || l === 'poll' || l === 'prediction');
  if (marketAt >= 0 && a.tokens.slice(marketAt + 1).some((t) => t.text === '"' || t.text === '“')) add('create_market', 3);
  // A question after the market words: "market: will it rain?"
  if (a.tokens.some((t) => t.text === '?') && a.lemmas.some((l) => QUESTION_STARTS.has(l))) add('create_market', 2);
  if ((findPhrase(a, ['how', 'much']) >= 0 || findPhrase(a, ['how', 'many']) >= 0) && hasLemma(a, 'have', 'got', 'left', 'remaining', 'own', 'hold')) {
    add('get_balance', 5);
  }
  const whatIHave = findPhrase(a, ['what', 'do', 'i', 'have']) >= 0 || findPhrase(a, ['what', 'have', 'i', 'got']) >= 0;
  if (findPhrase(a, ['in', 'my', 'wallet']) >= 0 || findPhrase(a, ['in', 'my', 'account']) >= 0 || whatIHave) add('get_balance', 3);

  // Gates: an intent needs at least one of its defining words or shapes (a tool with none is never scored).
  const gates: Partial<Record<Intent, boolean>> = {
    send_transfer: hasLemma(a, ...TRANSFER_VERBS) || recipients.length > 0,
    pay_bill: billerHit || hasLemma(a, ...BILL_NOUNS) || findPhrase(a, ['top', 'up']) >= 0,
    create_market: hasLemma(a, 'market', 'poll', 'prediction') || findPhrase(a, ['bet', 'market']) >= 0,
    stake_market:
      hasLemma(a, ...STAKE_VERBS) ||
      (hasLemma(a, 'put', 'back', 'place', 'go', 'stake') && amounts.length > 0 && (marketId || marketWord)),
    resolve_market: marketId || marketWord || a.tokens.some((t) => t.norm === 'resolve'),
    cancel_market: marketId || marketWord,
    list_markets: hasLemma(a, ...MARKET_NOUNS) && !marketId,
    create_payment_link: hasLemma(a, ...LINK_NOUNS) || (hasLemma(a, 'request') && hasLemma(a, 'payment', 'money', 'pay', 'paid')) || findPhrase(a, ['payment', 'request']) >= 0 || findPhrase(a, ['request', 'payment']) >= 0 || findPhrase(a, ['request', 'money']) >= 0,
    get_balance:
      hasLemma(a, 'balance', 'funds') ||
      ((findPhrase(a, ['how', 'much']) >= 0) && hasLemma(a, 'have', 'got', 'left', 'remaining', 'own', 'hold')) ||
      whatIHave ||
      findPhrase(a, ['in', 'my', 'wallet']) >= 0 ||
      findPhrase(a, ['in', 'my', 'account']) >= 0,
    // The read-only tools are chosen by their own detectors (parse-message.ts), never by score.
    quote_transfer: false,
    list_activity: false,
    help: true,
  };
  for (const intent of INTENT_ORDER) if (!gates[intent]) score.delete(intent);
  return score;
}

/** The winning intent, or undefined when nothing scores enough. Ties go to INTENT_ORDER. */
export function bestIntent(scores: IntentScores): Intent | undefined {
  let best: Intent | undefined;
  let top = MIN_SCORE - 1;
  for (const intent of INTENT_ORDER) {
    const s = scores.get(intent);
    if (s !== undefined && s > top) {
      best = intent;
      top = s;
    }
  }
  return best;
}

