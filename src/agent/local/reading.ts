import type { Analysis } from './analysis.js';
import { CURRENCY_WORDS, ISO_CODES } from './currencies.js';
import type { DraftCall } from './draft.js';
import { hasPhrase } from './gate.js';
import { NO_WORDS, YES_WORDS } from './lexicon.js';
import { fold } from './lexicon-i18n.js';
import { greetingLead } from './fillers.js';
import { estimateAround } from './estimate.js';
import { explanationTail, pidginStateLead } from './reading-tail.js';
import { BILL_WORDS, CONNECTORS, FIRST_PERSON_OBJECTS, POLITE_REQUESTS, RELATIONS, PURPOSE_MARKERS, PURPOSE_STOPS, ROLE_WORDS, TAKE_VERBS, VERB_LEMMAS } from './reading-words.js';

/** Verbs of a top-up (lemmas: "recharge", "recárgale", "recarrega", "top up", "reload", "load"): a bill's, never a transfer's. */
const TOPUP_VERBS = new Set(['recharge', 'top', 'topup', 'reload', 'load']);
/** What a top-up buys: airtime, data, bundles, "credo" (Sheng), "load" (Tagalog). */
const TOPUP_NOUNS = new Set(['airtime', 'bundle', 'bundles', 'credit', 'credo', 'talktime', 'data', 'load', 'recharge']);
/** Hindi's linking particle ("bijli wala bill"), placed only before the word it links. */
const HINDI_LINKS = new Set(['wala', 'wale', 'wali', 'waala', 'waale', 'waali']);
/** Swahili send verbs whose object is the writer: "nitumie", "unitumie", "ntumie", "nisendie" (send me). */
const SEND_TO_ME = /^u?ni?(?:tumi(?:e|a|ye)|sendi[ea])$/;

/**
 * Rule 1 of docs/agent.md: act at once only on a complete reading. Given the call the parser
 * built from a money-moving message, every token of the message must have a role in that
 * reading: the verb, the one amount with its currency, the one recipient (biller and account,
 * market and outcome), a purpose phrase, a connector, or a filler of the closed list
 * (fillers.ts). Whatever is left over (quoted text, parentheses, a second amount, currency or
 * person, a question mark, "from X's account", "lol", any word the reading cannot place) means
 * the turn does not act at once: it holds the call for confirmation, or refuses where the
 * leftovers show the message is clearly not a request (the call's arguments come from quoted
 * text; money taken from someone else and sent to the writer).
 *
 * The refusal lists of gate.ts stay as the explanation a person reads; this check does not
 * depend on them and runs after them, so a message no list foresaw is still not acted on.
 */

export type Reading =
  | { kind: 'complete' }
  /** Understood, but not every word: hold for confirmation; `leftover` is what was not placed, as typed. */
  | { kind: 'hold'; leftover: string[] }
  /** Clearly not a request: the arguments sit inside quoted text, or the direction is reversed. */
  | { kind: 'refuse'; reason: 'quoted_instruction' | 'reversed_direction' }
  /** A word nothing placed touches the amount ("2 mill", "dhai sau", "5 peti"): it may scale the figure, which is not proposed. */
  | { kind: 'refuse'; reason: 'malformed_amount'; quoted: string };

const QUOTES = new Set(['"', "'", '`', '«', '»']);
/** Arguments whose words place tokens (a note's text does not: it could carry anything). */
const ARG_FIELDS = new Set(['recipient', 'market', 'outcome', 'biller', 'account_number', 'market_id']);
const ARG_KINDS = new Set(['mention', 'phone', 'email', 'address', 'account_id', 'market_id']);
const DASHES = new Set(['-', '–', '—']);
const HARMLESS_PUNCT = new Set([',', '.', '!', ':', '-', '–', '—', '…']);

/**
 * `verbs`: the words of the tool's own vocabulary (its lexicon cues), placed besides the generic
 * money verbs.
 */
export function readCompleteness(a: Analysis, call: DraftCall, verbs: ReadonlySet<string>): Reading {
  const t = a.tokens;
  const input = call.input as Record<string, unknown>;
  const placed = new Set<number>(a.fillers);
  const quoted = quotedIndices(a);

  // Arguments: the amount's mention (number, currency, scale words), and every token whose
  // text is a word of a string argument (recipient, market, outcome, account number, note).
  const amount = typeof input.amount === 'string' ? input.amount : undefined;
  const mention = amount !== undefined ? a.money.find((m) => m.amount === amount) : undefined;
  if (mention) for (let i = mention.first; i < mention.end; i++) placed.add(i);
  const argWords = new Set<string>();
  /** Numbers may name a market ("BTC 100k"), never an outcome or a person: there a number is a second amount. */
  const marketWords = new Set<string>();
  // Not the note or description: those are the writer's free text, placed only as a purpose phrase.
  for (const [k, v] of Object.entries(input)) {
    if (!ARG_FIELDS.has(k) || typeof v !== 'string') continue;
    // An outcome the builder read from loose words ("zxaa el") places nothing: only a yes/no, a name or a quoted label does.
    if (k === 'outcome' && !plausibleOutcome(v)) continue;
    for (const w of v.toLowerCase().split(/[^\p{L}\p{N}@_+.]+/u)) {
      if (!w || isCurrencyWord(w) || PURPOSE_STOPS.has(fold(w))) continue;
      argWords.add(fold(w.replace(/^\+/, '')));
      if (k === 'market' || k === 'market_id') marketWords.add(fold(w));
    }
  }
  const argDigits = new Set(Object.values(input).filter((v): v is string => typeof v === 'string').map((v) => v.replace(/\D/g, '')).filter((d) => d.length >= 6));
  for (const i of a.billerTokens) placed.add(i);

  // The arguments must come from the writer's own words, not from quoted text.
  if (mention && quoted.has(mention.index)) return { kind: 'refuse', reason: 'quoted_instruction' };

  for (let i = 0; i < t.length; i++) {
    if (placed.has(i)) continue;
    const x = t[i]!;
    const lemma = a.lemmas[i]!;
    const norm = fold(x.norm);
    switch (x.kind) {
      case 'mention':
      case 'phone':
      case 'email':
      case 'address':
      case 'account_id':
      case 'market_id':
        if (argWords.has(fold(x.norm)) || argWords.has(fold(x.text.toLowerCase())) || sameDigits(x.text, argDigits)) {
          if (quoted.has(i)) return { kind: 'refuse', reason: 'quoted_instruction' };
          placed.add(i);
        }
        break;
      case 'number':
        // An account or meter number that is an argument; any other number is a second amount.
        if (x.digits && x.digits.length >= 6 && sameDigits(x.digits, argDigits)) placed.add(i);
        else if (!x.currency && !markedMoneyAt(a, i) && (marketWords.has(norm) || marketWords.has(fold(x.text.toLowerCase())))) placed.add(i);
        break;
      case 'punct':
        // A dash touching a number is a sign or a range ("send - 7 USD", "5 - 3"), not punctuation.
        if (HARMLESS_PUNCT.has(x.text) && !(DASHES.has(x.text) && (t[i + 1]?.kind === 'number' || t[i - 1]?.kind === 'number'))) placed.add(i);
        break;
      case 'word': {
        if (quoted.has(i)) break;
        // "recharge 500 for @amaka", "top up @amaka 1k", "recárgale 100 a @lupita", "weka @zawadi bundles za 100": airtime
        // or data asked for a person, which a transfer to that person is not. A top-up verb or noun is not placed here;
        // only a purpose ("for her data", "for recharge card") or an explanation ("she wan buy data") places it, so a
        // top-up asked of a transfer is held, never sent at once.
        if (call.name === 'send_transfer' && (TOPUP_VERBS.has(lemma) || TOPUP_NOUNS.has(lemma) || TOPUP_NOUNS.has(norm))) break;
        // "…, no", "…, não", "…, non", "… nahi", "…, hapana", "…, hindi": a no that ends the message takes the request
        // back. Its lemma "no" is also the Portuguese/Spanish connector ("no Flamengo", "in the") and "no." the number's
        // abbreviation, which always have a word or a number after them; a no with nothing after it connects nothing.
        if ((lemma === 'no' || lemma === 'dont' || NO_WORDS.has(norm)) && !argWords.has(norm) && !(typeof input.outcome === 'string' && fold(input.outcome.toLowerCase()) === norm) && !t.slice(i + 1).some((y) => y.kind !== 'punct' && y.kind !== 'symbol')) break;
        // "hapana tuma 500…", "no send 5k…": a no right before the money verb, no comma between, negates it (Pidgin and
        // Sheng put it there); "no, send 5k…" (an answer, then the request) still acts.
        if ((lemma === 'no' || lemma === 'dont' || NO_WORDS.has(norm)) && t[i + 1]?.kind === 'word' && VERB_LEMMAS.has(a.lemmas[i + 1]!)) break;
        // "account", "meter", "number" are placed only where they name the account number
        // ("meter 3798…", "account no. 123…", "for account 123…"), never loose elsewhere; a word that is
        // also a connector (Portuguese "no", "in the") stays one.
        if (ACCOUNT_WORDS.has(norm) && !argWords.has(norm) && !argWords.has(lemma) && !CONNECTORS.has(norm)) {
          // The copula and marks between the word and its number are placed with it ("mita ni 3712…", "meter na 4512…").
          const to = namesAccount(t, i, argDigits);
          if (to > 0) for (let k = i; k < to; k++) placed.add(k);
        } else if (call.name === 'pay_bill' && BILL_WORDS.has(norm)) placed.add(i);
        // "buy me 50 rand airtime 0821…": the bill's number is written; "me" only says whom it is for.
        else if (call.name === 'pay_bill' && (norm === 'me' || norm === 'mi') && ['buy', 'recharge', 'load', 'top'].includes(a.lemmas[i - 1] ?? '') && argDigits.size > 0) placed.add(i);
        // "recharge 0905 111 2222 for me, 1k": after the written number, "for me" says on whose behalf, not to whom.
        else if (call.name === 'pay_bill' && norm === 'me' && fold(t[i - 1]?.norm ?? '') === 'for' && argDigits.size > 0 && t.slice(0, i - 1).some((y) => (y.kind === 'phone' || y.kind === 'number') && sameDigits(y.digits ?? y.text, argDigits))) {
          placed.add(i - 1);
          placed.add(i);
        }
        // A relation right before the recipient, or Pidgin "reach"/"go" as "to" ("send 5k reach @amaka", "send N2,500 go 0812…").
        else if ((RELATIONS.has(norm) || norm === 'reach' || norm === 'go') && nextIsRecipient(a, i, argDigits)) placed.add(i);
        // "R 250", "N 5000": the writer's own currency letter one space before the amount (the tokenizer reads
        // a lone capital as money only glued to digits, "R 2 D 2" being no money); the call keeps the writer's currency.
        else if (mention && i === mention.first - 1 && input.currency === undefined && OWN_LETTER[x.text] === a.localCurrency && t[i + 1]?.start === x.end + 1) placed.add(i);
        // Spanish "mi"/"mis" before a noun is "my" ("paga mi luz"); alone ("a mí") it is the writer as object and stays unplaced.
        else if ((norm === 'mi' || norm === 'mis') && a.lang === 'es' && t[i + 1]?.kind === 'word') placed.add(i);
        // "a que sí gana…", "que sim…": "que" right before the side staked on links the amount to it.
        else if (call.name === 'stake_market' && norm === 'que' && typeof input.outcome === 'string' && fold(t[i + 1]?.norm ?? '') === fold(input.outcome.toLowerCase())) placed.add(i);
        // Hindi "wala/wale/wali" links a noun to what follows ("IKEDC wala bill", "@rahul wale account"); with
        // no word of its own after it, it links nothing, and Tagalog "wala" ("none, no more"; "wala na": gone,
        // or "forget it") is no connector at all: unplaced.
        else if (HINDI_LINKS.has(norm) && !(t[i + 1]?.kind === 'word' && !CONNECTORS.has(fold(t[i + 1]!.norm)))) break;
        else if (argWords.has(norm) || argWords.has(lemma) || VERB_LEMMAS.has(lemma) || verbs.has(lemma) || CONNECTORS.has(norm) || CONNECTORS.has(lemma) || ROLE_WORDS.has(lemma) || ROLE_WORDS.has(norm)) placed.add(i);
        break;
      }
      default:
        break;
    }
  }

  // A purpose phrase: after a marker ("for", "pour", "para", "ya", "make"), words up to the next
  // hard stop, none of them a stop word (a money verb, a condition, a person, a joke, "from").
  // An argument right after it means the marker was a "to" ("pra zxaa @joana"): no purpose then.
  const argIdx = new Set([...placed].filter((i) => ARG_KINDS.has(t[i]!.kind) || t[i]!.kind === 'number'));
  for (let i = 0; i < t.length; i++) {
    const norm = fold(t[i]!.norm);
    // Spanish "pa'" is "para": "envíale 300 pa' los tacos".
    const cut = norm === 'pa' && elision(t, i + 1);
    // Mexican "pa" without the apostrophe too: "transfiere $2,500 a @juan pa la renta".
    const pa = norm === 'pa' && a.lang === 'es' && !cut;
    // Tagalog "pang-load", "pam-pasahe": the prefix says "for" (like "pambayad", "pambili" of the list).
    const pang = a.lang === 'tl' && /^pa[mn]g?-\p{L}/u.test(t[i]!.text.toLowerCase());
    if (t[i]!.kind !== 'word' || !(PURPOSE_MARKERS.has(norm) || PURPOSE_MARKERS.has(a.lemmas[i]!) || cut || pa || pang || copulaPurpose(a, i))) continue;
    if (quoted.has(i)) continue;
    if (cut) placed.add(i + 1);
    const phrase: number[] = [];
    let j = cut ? i + 2 : i + 1;
    for (; j < t.length; j++) {
      const y = t[j]!;
      if (y.kind === 'punct' && (!HARMLESS_PUNCT.has(y.text) || y.text === ',' || y.text === '.' || y.text === '!')) break;
      if (placed.has(j)) {
        if (argIdx.has(j)) break;
        continue;
      }
      if (y.kind !== 'word' || quoted.has(j) || PURPOSE_STOPS.has(fold(y.norm)) || PURPOSE_STOPS.has(a.lemmas[j]!) || isCurrencyWord(y.norm)) break;
      phrase.push(j);
    }
    if (phrase.length && argIdx.has(j) && phrase[phrase.length - 1] === j - 1) continue;
    placed.add(i);
    for (const k of phrase) placed.add(k);
  }
  // Hindi puts the purpose before "ke liye": "kiraye ke liye".
  for (let i = 1; i < t.length; i++) {
    if (fold(t[i]!.norm) !== 'liye') continue;
    placed.add(i);
    for (let j = i - 1; j >= 0 && i - j <= 4; j--) {
      const y = t[j]!;
      if (placed.has(j) && !['ke', 'ki', 'ka'].includes(fold(y.norm))) break;
      if (y.kind !== 'word' || PURPOSE_STOPS.has(fold(y.norm))) break;
      placed.add(j);
    }
  }

  // A quoted argument ("on 'Tinubu'"): quotes around nothing but placed words are harmless.
  for (const [open, close] of quotePairs(a)) {
    const inner = t.slice(open + 1, close).map((_, k) => open + 1 + k);
    if (inner.length && inner.every((j) => argWords.has(fold(t[j]!.norm)))) for (const j of [open, close, ...inner]) placed.add(j);
  }

  // The last argument: the amount's mention or a placed person, number or account.
  const lastArgument = Math.max(mention ? mention.end - 1 : -1, ...argIdx);
  // An explanation after the request ("… she doesnt have the app yet", "…, es lo de la renta"): reading-tail.ts.
  for (const k of explanationTail(a, placed, lastArgument, quoted)) placed.add(k);
  // …and a Pidgin state of things before it, closed by a comma ("light don go again, abeg buy …").
  for (const k of pidginStateLead(a, quoted)) placed.add(k);

  // "could you send 250 cedis to @yaw?": the request's own question mark, when it closes the message
  // (an explanation after it aside: "tu peux envoyer … ? c'est pour le taxi").
  const mark = lastUnplaced(t, placed);
  // It closes the request: it comes after every word it asks (never "? send 500…" nor "send ? 500…").
  // Every argument; what follows it and is placed (a purpose, an explanation, thanks) says nothing it asks.
  const asked = lastArgument;
  if (mark !== undefined && asked >= 0 && mark > asked && t[mark]!.text === '?' && !quoted.has(mark) && politeRequest(a)) placed.add(mark);
  // "Oi! Tudo bem? Manda 150…": the question mark of a greeting sentence (nothing in it but fillers) asks nothing of the payment.
  for (const k of greetingLead(a.tokens, a.fillers)) placed.add(k);

  // "my friend put 5k on Senegal…", "my guy send 5k to @amaka" (Pidgin does not mark the past): "my X" right
  // before the verb, no comma, is the sentence's subject, a report of what someone did, not an address.
  for (let i = 0; i + 2 < t.length; i++) {
    if (fold(t[i]!.norm) === 'my' && ADDRESSEES.has(fold(t[i + 1]!.norm)) && t[i + 2]!.kind === 'word' && (VERB_LEMMAS.has(a.lemmas[i + 2]!) || verbs.has(a.lemmas[i + 2]!))) {
      placed.delete(i);
      placed.delete(i + 1);
    }
  }
  // "manda 50 pro irmão da @joana", "@priya ke bhai ko 500 bhej do", "hermano de @lupita": a relative OF the person
  // named is someone else; the handle only says whose. The relation and its genitive stay unplaced: held, never sent
  // to the handle at once.
  if (call.name === 'send_transfer') for (const k of relativeOfRecipient(a, argWords)) placed.delete(k);
  // "about 5k", "up to 100", "uns 50", "500 hivi": an estimate or a bound, no exact amount asked for (estimate.ts).
  // Its words stay unplaced whatever placed them ("about" and "to" are connectors): the call is held.
  const estimate = mention ? estimateAround(a, mention) : [];
  for (const k of estimate) placed.delete(k);
  // Swahili "nitumie" / "unitumie" is "send ME": the writer asks to be sent money, never a send to whoever is named.
  if (call.name === 'send_transfer' && t.some((x, i) => x.kind === 'word' && !quoted.has(i) && SEND_TO_ME.test(fold(x.norm)))) return { kind: 'refuse', reason: 'reversed_direction' };
  const leftIdx = t.map((_, i) => i).filter((i) => !placed.has(i));
  if (!leftIdx.length) return { kind: 'complete' };
  const leftNorms = leftIdx.map((i) => fold(t[i]!.norm));
  // Money taken from someone else and sent to the writer ("take 40 from Ana's account and send it to me").
  if (call.name === 'send_transfer' && leftNorms.some((w) => TAKE_VERBS.has(w)) && (leftNorms.some((w) => FIRST_PERSON_OBJECTS.has(w)) || t.some((x) => /^m'/i.test(x.text) || /^(ni|uni)tumie$/.test(fold(x.norm))))) {
    return { kind: 'refuse', reason: 'reversed_direction' };
  }
  // A word that nothing placed, touching the amount: "2 mill", "10 pau", "5 peti", "dhai sau" (2½ hundred),
  // "ngiri mbili", "5k5". It may scale or split the figure, so a hold would propose a
  // figure the writer may not have meant, one tap from moving: the amount is asked for in plain digits.
  if (mention) {
    // Words only: a second figure is held and named (local-repeated-amounts), a lone capital is a currency's letter ("5000 F").
    const touching = leftIdx.filter((i) => (i === mention.first - 1 || i === mention.end) && !quoted.has(i) && ((t[i]!.kind === 'word' && t[i]!.text.length > 1 && /^[\p{L}\p{N}]+$/u.test(t[i]!.text) && !isCurrencyWord(t[i]!.norm) && !isCurrencyWord(t[i]!.norm.replace(/s$/, '')) && !/^(chelin|shil+ing|xelim)/.test(fold(t[i]!.norm)) && !EXACTLY.has(fold(t[i]!.norm)) && !estimate.includes(i))));
    // After a bare figure under 100 ("2 mill", "5k5"; "send 500 fast" stays held), or before a figure written in words ("dhai sau", "ngiri mbili").
    const glued = touching.find((i) => (i === mention.end && !mention.currency && !mention.marked && Number(mention.amount) < 100) || (i === mention.first - 1 && !/\d/.test(t[mention.index]!.text)));
    if (glued !== undefined) {
      const from = Math.min(glued, mention.first);
      const to = Math.max(glued, mention.end - 1);
      return { kind: 'refuse', reason: 'malformed_amount', quoted: a.text.slice(t[from]!.start, t[to]!.end) };
    }
  }
  return { kind: 'hold', leftover: [...new Set(leftIdx.map((i) => t[i]!.text))].slice(0, 6) };
}

/** Words that say the figure is exact ("500 only", "500 tu", "200 nomás", "500 lang"): no scale; the call holds as before. */
const EXACTLY = new Set(['only', 'just', 'exactly', 'sha', 'so', 'tu', 'pekee', 'peke', 'tuu', 'nomas', 'nadamas', 'solo', 'solamente', 'apenas', 'somente', 'seulement', 'juste', 'lang', 'lamang', 'hi', 'sirf', 'bas', 'flat', 'sharp', 'exact', 'pile']);

/** The last token not yet placed, when everything after it is placed (the message's closing mark). */
function lastUnplaced(t: Analysis['tokens'], placed: ReadonlySet<number>): number | undefined {
  for (let i = t.length - 1; i >= 0; i--) if (!placed.has(i)) return i;
  return undefined;
}

/** The message asks with a polite opener ("can you", "pouvez-vous", "unaweza", "pwede"). */
function politeRequest(a: Analysis): boolean {
  return hasPhrase(fold(a.text.toLowerCase()), POLITE_REQUESTS);
}

/** A money mention covers token i ("200 USD", "5k", "2"): then it is an amount, not part of a market's name. */
function markedMoneyAt(a: Analysis, i: number): boolean {
  return a.money.some((m) => i >= m.first && i < m.end);
}

/** Yes or no in any language, or a name (every word capitalised, at most four words). */
function plausibleOutcome(v: string): boolean {
  const ws = v.trim().split(/\s+/);
  if (ws.length === 1 && (YES_WORDS.has(v.toLowerCase()) || NO_WORDS.has(v.toLowerCase()) || OUTCOME_WORDS.has(fold(v.toLowerCase())))) return true;
  return ws.length <= 4 && ws.every((w) => /^[\p{Lu}\p{N}]/u.test(w));
}
const OUTCOME_WORDS = new Set(['si', 'sim', 'nao', 'oui', 'non', 'ndiyo', 'ndio', 'hapana', 'haan', 'nahi', 'oo', 'opo', 'hindi', 'yes', 'no']);

/** Phone and account numbers compare by their last 9 digits (with or without country code). */
/** Words that name an account or phone number: placed only right before it (./reading-words.ts BILL_WORDS and the number role words). */
const ACCOUNT_WORDS = new Set([
  ...BILL_WORDS, 'number', 'meter', 'line', 'smartcard', 'decoder',
  // "contador 0123…", "compteur n° …", "medidor …", "mita namba …", "numero …": the same roles in the corridor languages.
  'contador', 'compteur', 'medidor', 'mita', 'namba', 'nambari', 'numero', 'num',
]);
/** Who "my X" may address as a filler ("thanks my friend"), and who, right before a verb, is the subject instead. */
const ADDRESSEES = new Set(['friend', 'guy', 'person', 'g', 'padi', 'paddy', 'bestie', 'boy', 'girl']);
/** Capital letters that write a currency before its amount: "R" rand, "N" naira. */
const OWN_LETTER: Readonly<Record<string, string>> = { R: 'ZAR', N: 'NGN' };
const ACCOUNT_PUNCT = new Set([':', '.', '#', '-', '–']);
/** "my meter is 4512…", "meter yangu ni 3798…", "mon compteur est …", Pidgin "meter na 4512…": a copula between the word and its number. */
const ACCOUNT_LINKS = new Set(['is', 'ni', 'est', 'e', 'es', 'ay', 'yangu', 'my', 'na']);

/** Token `i` leads, through other such words, a copula and ":", ".", "#" (a few tokens at most), to an account or phone number that is an argument: that number's index, else -1. */
function namesAccount(t: Analysis['tokens'], i: number, argDigits: ReadonlySet<string>): number {
  let j = i + 1;
  const linking = (x: Analysis['tokens'][number]) =>
    (x.kind === 'word' && (ACCOUNT_WORDS.has(fold(x.norm)) || ACCOUNT_LINKS.has(fold(x.norm)))) || (x.kind === 'punct' && ACCOUNT_PUNCT.has(x.text));
  while (j < t.length && j - i <= 4 && linking(t[j]!)) j++;
  const next = t[j];
  return next !== undefined && (next.kind === 'number' || next.kind === 'phone' || next.kind === 'account_id') && sameDigits(next.digits ?? next.text, argDigits) ? j : -1;
}

function sameDigits(text: string, argDigits: ReadonlySet<string>): boolean {
  const d = text.replace(/\D/g, '');
  return d.length >= 6 && [...argDigits].some((x) => x.slice(-9) === d.slice(-9));
}

function isCurrencyWord(norm: string): boolean {
  return CURRENCY_WORDS[norm] !== undefined || ISO_CODES.has(norm.toUpperCase());
}

/** Pairs of quote marks [open, close] (an unclosed one runs to the end). */
function quotePairs(a: Analysis): [number, number][] {
  const t = a.tokens;
  const pairs: [number, number][] = [];
  for (let i = 0; i < t.length; i++) {
    if (!QUOTES.has(t[i]!.text) || elision(t, i)) continue;
    // An apostrophe glued to a word is not a quote ("Ana's" is one token already).
    const open = t[i]!.text === '«' ? '»' : t[i]!.text;
    let close = t.findIndex((x, j) => j > i && (x.text === open || (open === '"' && x.text === '»')));
    if (close < 0) close = t.length;
    pairs.push([i, close]);
    i = close;
  }
  return pairs;
}

/** Portuguese ", é do almoço" / ", é pro aluguel": "it's for …" after a comma, the copula opening the purpose. */
function copulaPurpose(a: Analysis, i: number): boolean {
  const t = a.tokens;
  return a.lang === 'pt' && fold(t[i]!.norm) === 'e' && t[i - 1]?.text === ',' && COPULA_LINKS.has(fold(t[i + 1]?.norm ?? ''));
}
const COPULA_LINKS = new Set(['do', 'da', 'dos', 'das', 'pro', 'pra', 'para', 'pelo', 'pela']);

/** "pa' los tacos", "pa'l": an apostrophe glued to the word before it and followed by a space cuts that word short; it opens no quote. */
function elision(t: Analysis['tokens'], i: number): boolean {
  const prev = t[i - 1];
  const next = t[i + 1];
  // A "pa" that ends the message has nothing after it to cut ("…, wala pa" used to throw here).
  return t[i]?.text === "'" && prev?.kind === 'word' && prev.end === t[i]!.start && (next === undefined || next.start > t[i]!.end) && ELIDED.has(fold(prev.norm));
}
/** Words people cut short with an apostrophe after them: Spanish "pa'" (para). */
const ELIDED = new Set(['pa']);

/** Tokens between a pair of quote marks, the marks included. */
export function quotedIndices(a: Analysis): Set<number> {
  const out = new Set<number>();
  for (const [open, close] of quotePairs(a)) for (let j = open; j <= close && j < a.tokens.length; j++) out.add(j);
  return out;
}

/** Genitives between a relation and the person it belongs to: "irmão da @joana", "brother of @x", "kapatid ni @x", "mama wa @x". */
const GENITIVE_BEFORE = new Set(['de', 'da', 'do', 'du', 'del', 'des', 'of', 'ni', 'wa', 'ya', 'yake', 'dos', 'das']);
/** Hindi puts the owner first: "@priya ke bhai", "@priya ki behen", "@priya ka beta". */
const GENITIVE_AFTER = new Set(['ke', 'ki', 'ka']);
const MORE_RELATIONS = new Set(['kapatid', 'anak', 'lola', 'lolo', 'beta', 'beti', 'bhabhi', 'chacha', 'mamu', 'nana', 'nani', 'dada', 'dadi', 'filho', 'filha', 'hijo', 'hija', 'fils', 'fille', 'mtoto', 'sister', 'brother']);

/** Indices of "<relation> <of> <recipient>" or "<recipient> ke <relation>": the money is for the relative, not the handle. */
function relativeOfRecipient(a: Analysis, argWords: ReadonlySet<string>): number[] {
  const t = a.tokens;
  const isRelation = (k: number) => t[k]?.kind === 'word' && (RELATIONS.has(fold(t[k]!.norm)) || MORE_RELATIONS.has(fold(t[k]!.norm)));
  const out: number[] = [];
  for (let r = 0; r < t.length; r++) {
    const x = t[r]!;
    if (!['mention', 'phone', 'email'].includes(x.kind) || !(argWords.has(fold(x.norm)) || argWords.has(fold(x.text.toLowerCase())))) continue;
    if (GENITIVE_BEFORE.has(fold(t[r - 1]?.norm ?? '')) && isRelation(r - 2)) out.push(r - 2, r - 1);
    if (GENITIVE_AFTER.has(fold(t[r + 1]?.norm ?? '')) && isRelation(r + 2)) out.push(r + 1, r + 2);
  }
  return out;
}

/** The recipient follows ("my sister @ngozi", "reach 0803…"). */
function nextIsRecipient(a: Analysis, i: number, argDigits: ReadonlySet<string>): boolean {
  const next = a.tokens[i + 1];
  // A national phone number ("0812 555 6677") is a number token: a recipient when it is the call's.
  return next !== undefined && (['mention', 'phone', 'email', 'address', 'account_id'].includes(next.kind) || (next.kind === 'number' && sameDigits(next.digits ?? next.text, argDigits)));
}

