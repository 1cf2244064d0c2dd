import {
  billerAliasIndex,
  billerKey,
  CATEGORY_HINT_WORDS,
  CURRENCY_COUNTRY,
  findBiller,
  loadBillerCatalogue,
  scanAliases,
  type BillerAliasIndex,
  type BillerCatalogue,
} from '../../bills/catalogue.js';
import { billerForPhone } from '../../bills/mobile-networks.js';
import { splitPhone } from '../../lib/phone.js';
import { meaningOf } from '../../markets/market-words.js';
import { AMBIGUOUS_PESO } from '../local/currencies.js';
import { fold } from '../local/lexicon-i18n.js';
import type { ToolCall } from '../tool-inputs.js';
import type { Ambiguous, Inferred } from './grounding-reasons.js';
import { canonicalAmount, sameNumber, yesNo, type OwnReading } from './words.js';

/** What the grounding of one call's arguments found. */
export type ArgumentsGrounding = {
  /** Arguments not found in the person's own words (empty: all found or inferred by a named rule). */
  missing: string[];
  /** Arguments taken from a rule in INFERRED instead of the words: the call is held for confirmation. */
  inferred: Inferred[];
  /** The words allow another reading (a second amount, currency or recipient): held as well. */
  ambiguous: Ambiguous[];
};

/** A market a read tool showed earlier in the same turn (list_markets): its id and question. */
export type SeenMarket = { id: string; question: string };

export type GroundingContext = { localCurrency: string; catalogue?: BillerCatalogue; markets?: readonly SeenMarket[] };

let defaultCatalogue: { catalogue: BillerCatalogue; index: BillerAliasIndex } | null | undefined;
function catalogueOf(given: BillerCatalogue | undefined): { catalogue: BillerCatalogue; index: BillerAliasIndex } | undefined {
  if (given) return { catalogue: given, index: billerAliasIndex(given) };
  if (defaultCatalogue === undefined) {
    try {
      const catalogue = loadBillerCatalogue();
      defaultCatalogue = { catalogue, index: billerAliasIndex(catalogue) };
    } catch {
      defaultCatalogue = null;
    }
  }
  return defaultCatalogue ?? undefined;
}

/** Each argument of a money-moving call, looked for in the person's own words. */
export function groundArguments(call: ToolCall, own: OwnReading, ctx: GroundingContext): ArgumentsGrounding {
  const out: ArgumentsGrounding = { missing: [], inferred: [], ambiguous: [] };
  const local = ctx.localCurrency.trim().toUpperCase();
  switch (call.name) {
    case 'send_transfer': {
      const { recipient, amount, currency } = call.input;
      if (!recipientFound(recipient, own)) out.missing.push('recipient');
      else if (own.recipients.some((r) => !sameRecipient(r, recipient))) out.ambiguous.push('several_recipients');
      money(out, own, amount, currency, local, [recipient]);
      break;
    }
    case 'pay_bill': {
      const { biller, account_number, amount, currency } = call.input;
      if (!accountFound(account_number, own)) out.missing.push('account_number');
      const cat = catalogueOf(ctx.catalogue);
      const found = cat ? findBiller(cat.catalogue, biller) : undefined;
      const resolved = found?.ok ? found.biller : undefined;
      const how = billerFound(biller, resolved, account_number, own, cat?.index, local);
      if (how === 'missing') out.missing.push('biller');
      else if (how !== 'words') out.inferred.push(how);
      money(out, own, amount, currency, resolved?.currency ?? local, [account_number]);
      break;
    }
    case 'stake_market':
      if (!marketFound(call.input.market, own, ctx.markets, call.input.outcome)) out.missing.push('market');
      if (!outcomeFound(call.input.outcome, own)) out.missing.push('outcome');
      money(out, own, call.input.amount, call.input.currency, local, []);
      break;
    case 'resolve_market':
      if (!marketFound(call.input.market, own, ctx.markets, call.input.outcome)) out.missing.push('market');
      if (!outcomeFound(call.input.outcome, own)) out.missing.push('outcome');
      break;
    case 'cancel_market':
      if (!marketFound(call.input.market, own, ctx.markets)) out.missing.push('market');
      break;
    // A payment of the caller's, by the id the person wrote (never one from quoted text); an amount,
    // when named, as written. An engine's currency must be the one written: '' matches no default.
    case 'refund_payment':
    case 'capture_payment':
    case 'void_payment': {
      const id = call.input.payment_id.trim().toLowerCase();
      if (!own.ids.has(id)) out.missing.push('payment_id');
      if ('amount' in call.input && call.input.amount !== undefined) money(out, own, call.input.amount, call.input.currency, '', []);
      break;
    }
    // A money-moving tool with no rule here yet (a new tool file): nothing of it counts as the
    // person's own words, so it is refused as not grounded rather than acting on the engine's choice.
    default: {
      const args = Object.keys((call as { input: object }).input ?? {});
      out.missing.push(...(args.length ? args : ['arguments']));
    }
  }
  return out;
}

/**
 * The amount must be one the person wrote, and its currency the one written next to it; a
 * currency named elsewhere in their words counts for a bare amount. With no currency named at
 * all, an omitted currency is the tool's documented default (the sender's own, the biller's);
 * a currency the engine filled in with that same default is an inference (held); any other is
 * not grounded.
 */
function money(out: ArgumentsGrounding, own: OwnReading, amount: string, currency: string | undefined, fallback: string, idArgs: string[]): void {
  const want = canonicalAmount(amount);
  // A number that is the recipient's phone or the meter number is not an amount.
  // A number that is the recipient's phone or the meter number is not a second amount either.
  const amounts = own.money.filter((m) => !idArgs.some((id) => m.digits === id.replace(/\D/g, '') || (m.digits.length >= 6 && sameNumber(m.digits, id))));
  const mentions = own.money.filter((m) => m.amount === want && !idArgs.some((id) => m.digits.length >= 6 && sameNumber(m.digits, id)));
  if (!want || mentions.length === 0) {
    out.missing.push('amount');
    return;
  }
  if (new Set(amounts.map((m) => m.amount)).size > 1) out.ambiguous.push('several_amounts');
  if (new Set(mentions.flatMap((m) => (m.currency ? [m.currency] : []))).size > 1) out.ambiguous.push('several_currencies');
  const explicit = currency?.trim().toUpperCase();
  const effective = explicit ?? fallback;
  if (mentions.some((m) => m.currency === effective)) return;
  // "500 pesos" from an account that holds no pesos: Mexican or Philippine, as a named inference (held).
  if ((effective === 'MXN' || effective === 'PHP') && mentions.some((m) => m.currency === AMBIGUOUS_PESO)) {
    out.inferred.push('peso_from_recipient');
    return;
  }
  if (!mentions.some((m) => m.currency === undefined)) {
    out.missing.push('currency');
    return;
  }
  if (own.currencies.has(effective)) return;
  if (own.currencies.size > 0) {
    out.missing.push('currency');
    return;
  }
  if (explicit === undefined) return;
  if (explicit === fallback) out.inferred.push('currency_from_account');
  else out.missing.push('currency');
}

const HANDLE = /^@?[A-Za-z0-9_]{3,32}$/;
const PHONE = /^\+?[\d\s().-]{7,20}$/;

function recipientFound(recipient: string, own: OwnReading): boolean {
  const r = recipient.trim().toLowerCase();
  if (PHONE.test(r) && /\d{6}/.test(r.replace(/\D/g, ''))) return own.digitRuns.some((d) => sameNumber(d, r));
  if (own.ids.has(r)) return true;
  // A handle written with its "@" ("@amina"), whichever way the engine spells it.
  if (HANDLE.test(r)) return own.ids.has(`@${r.replace(/^@/, '')}`);
  return false;
}

function sameRecipient(a: string, b: string): boolean {
  const x = a.trim().toLowerCase().replace(/^@/, '');
  const y = b.trim().toLowerCase().replace(/^@/, '');
  return x === y || (/\d{6}/.test(x) && sameNumber(x, y));
}

function accountFound(account: string, own: OwnReading): boolean {
  const a = account.trim();
  if (/[A-Za-z]/.test(a)) return own.ids.has(a.toLowerCase()) || own.words.includes(fold(a.toLowerCase()));
  return own.digitRuns.some((d) => sameNumber(d, a));
}

type BillerResolved = { id: string; category: string; country: string } | undefined;

function billerFound(
  biller: string,
  resolved: BillerResolved,
  account: string,
  own: OwnReading,
  index: BillerAliasIndex | undefined,
  local: string,
): 'words' | 'missing' | Inferred {
  const keys = own.a.tokens.map((t) => (t.kind === 'word' || (t.kind === 'number' && (t.digits?.length ?? 9) <= 2) ? billerKey(t.text) : ''));
  if (!resolved || !index) {
    // Not in the catalogue: the name itself, as written (the bills module answers unknown_biller).
    const want = billerKey(biller);
    return want && containsKeys(keys, want) ? 'words' : 'missing';
  }
  if (keys.some((k) => k && k === billerKey(resolved.id))) return 'words';
  const all = scanAliases(index, keys);
  const matches = all.filter((m) => m.entry.billerIds.includes(resolved.id));
  if (matches.some((m) => !m.entry.generic)) return 'words';
  // The person named another biller's brand ("IKEDC meter…" paid to EKEDC): no inference overrides it.
  if (all.some((m) => !m.entry.generic)) return 'missing';
  // A network from the phone number's prefix ("airtime for 0803…").
  if (resolved.category === 'airtime' || resolved.category === 'internet') {
    const phoneCountry = account.startsWith('+') ? splitPhone(account)?.country : undefined;
    const countries = [...own.currencies].map((c) => CURRENCY_COUNTRY[c]).concat(phoneCountry, CURRENCY_COUNTRY[local], resolved.country);
    const category = resolved.category;
    if (countries.some((c) => c && billerForPhone(account, category, c) === resolved.id) && own.digitRuns.some((d) => sameNumber(d, account))) {
      // Issue h11: "airtime for 0803…" names the kind of purchase and the number; the number's own network
      // (its prefix, in a country the message or the account names, never the biller's own as a fallback)
      // is read from the person's digits, so it acts at once. A ported number is declined by the network and
      // refunded (bills.ts), never credited elsewhere. Without the kind named ("top up 0803… with 500") it holds.
      const named = own.a.lemmas.some((l) => CATEGORY_HINT_WORDS[l] === category);
      const stated = [...own.currencies].map((c) => CURRENCY_COUNTRY[c]).concat(phoneCountry, CURRENCY_COUNTRY[local]);
      if (named && stated.some((c) => c && billerForPhone(account, category, c) === resolved.id)) return 'words';
      return 'network_from_phone';
    }
  }
  // "pay my water bill…": a generic word, and the only such biller in the person's country.
  if (matches.length > 0) return 'biller_from_category_and_country';
  // "lipa stima…": the category in the person's language (the local lexicon's lemma), a biller of
  // that category in the person's country: what the local engine picks, held like a generic alias.
  const category = own.a.lemmas.some((l) => CATEGORY_HINT_WORDS[l] === resolved.category);
  const countries = new Set([...own.currencies, local].map((c) => CURRENCY_COUNTRY[c]));
  if (category && countries.has(resolved.country)) return 'biller_from_category_and_country';
  return 'missing';
}

function containsKeys(keys: readonly string[], want: string): boolean {
  for (let i = 0; i < keys.length; i++) {
    let joined = '';
    for (let j = i; j < keys.length && keys[j] && joined.length < want.length; j++) {
      joined += keys[j];
      if (joined === want) return true;
    }
  }
  return false;
}

/** Words that tie a market reference together without naming it. */
const REF_FILLERS = new Set([
  'the', 'a', 'an', 'market', 'markets', 'poll', 'on', 'in', 'of', 'for', 'about', 'will', 'to', 'and', 'is', 'be', 'my', 'this', 'that',
  'el', 'la', 'le', 'les', 'los', 'las', 'o', 'os', 'de', 'del', 'do', 'da', 'du', 'des', 'en', 'em', 'no', 'na', 'mercado', 'marche', 'soko', 'ya', 'wale', 'sa', 'ng',
]);

/** Words of a market question that name no market in particular ("will … win … this season?"). */
const QUESTION_FILLERS = new Set([
  'who', 'what', 'which', 'wins', 'win', 'won', 'gana', 'ganara', 'ganar', 'gagner', 'gagne', 'va', 'il', 't', 'vai', 'ganhar', 'ganha',
  'beat', 'this', 'season', 'year', 'torneo', 'temporada', 'saison', 'or', 'ou', 'o', 'it', 'este', 'esta', 'cette', 'ce',
  'yes', 'no', 'si', 'sim', 'nao', 'oui', 'non',
]);

/**
 * The market must be the one the person named. Either the reference is in their words ("the
 * Arsenal market"), or it is a market a read tool showed earlier in this turn (the model listed
 * the markets and passes an id or the question as listed) whose question shares a word that
 * names it with the person's words ("Arsenal", "AFCON", "Nairobi"): not a filler, not the
 * outcome being backed, not a yes/no word.
 */
function marketFound(market: string, own: OwnReading, seen: readonly SeenMarket[] = [], outcome?: string): boolean {
  const m = market.trim().toLowerCase();
  if (/^mkt_/.test(m) && own.ids.has(m)) return true;
  const have = new Set(own.words);
  // A word the person wrote in another language names the same thing ("mvua" is the question's
  // "rain"): the markets' own cross-language word map (src/markets/market-words.ts).
  const meant = new Set(own.words.map(meaningOf));
  const said = (w: string) => have.has(w) || meant.has(meaningOf(w));
  const refWords = fold(m).split(/[^\p{L}\p{N}]+/u).filter((w) => w && !REF_FILLERS.has(w));
  if (!/^mkt_/.test(m) && refWords.length && refWords.every(said)) return true;
  const listed = seen.find((s) => s.id.toLowerCase() === m || sameQuestion(s.question, market));
  if (!listed) return false;
  const backed = new Set(outcome ? fold(outcome.toLowerCase()).split(/[^\p{L}\p{N}]+/u) : []);
  return fold(listed.question.toLowerCase())
    .split(/[^\p{L}\p{N}]+/u)
    .some((w) => w.length >= 2 && !REF_FILLERS.has(w) && !QUESTION_FILLERS.has(w) && !backed.has(w) && !yesNo(w) && said(w));
}

function sameQuestion(a: string, b: string): boolean {
  const n = (s: string) => fold(s.toLowerCase()).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  return n(a) === n(b);
}

/** "Yes" is grounded by any yes-word of the eight languages, "No" by any no-word; a named outcome by its words. */
function outcomeFound(outcome: string, own: OwnReading): boolean {
  const yn = yesNo(outcome.trim());
  if (yn) return own.outcomeWords.has(yn);
  const words = fold(outcome.toLowerCase()).split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const have = new Set(own.words);
  return words.length > 0 && words.every((w) => have.has(w));
}

