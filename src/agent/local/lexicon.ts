import type { ToolName } from '../tool-inputs.js';
import type { Lang } from './language.js';
import { anyLangVerb, lemmaIn } from './lexicon-i18n.js';
import type { Token } from './tokenize.js';

/**
 * Words the parser scores intents with. Each cue is a lemma sequence and the points it
 * gives each intent; a paraphrase scores like the original as long as it uses some of
 * these words, in any order, with any filler around them.
 */

export type Intent = ToolName | 'help';

/** Inflections and common misspellings folded onto one lemma. */
const IRREGULAR: Readonly<Record<string, string>> = {
  shoot: 'send', zap: 'send', sent: 'send', sending: 'send', sends: 'send', snd: 'send', sned: 'send', sendd: 'send', semd: 'send',
  transferring: 'transfer', transfered: 'transfer', transferred: 'transfer', transfers: 'transfer', trf: 'transfer', xfer: 'transfer',
  paying: 'pay', paid: 'pay', pays: 'pay',
  buying: 'buy', bought: 'buy', buys: 'buy',
  giving: 'give', gave: 'give', given: 'give', gives: 'give',
  wired: 'wire', wiring: 'wire',
  remitted: 'remit', remitting: 'remit',
  tipped: 'tip', tipping: 'tip',
  lending: 'lend', lent: 'lend',
  betting: 'bet', bets: 'markets', bett: 'bet',
  staking: 'stake', staked: 'stake', stakes: 'stake',
  wagering: 'wager', wagered: 'wager', wagers: 'wager',
  putting: 'put', puts: 'put',
  backing: 'back',
  placing: 'place',
  resolving: 'resolve', resolved: 'resolve', resolves: 'resolve', resolution: 'resolve',
  cancelling: 'cancel', canceling: 'cancel', cancelled: 'cancel', canceled: 'cancel', cancels: 'cancel',
  deleting: 'delete', deleted: 'delete',
  voiding: 'void', voided: 'void',
  creating: 'create', created: 'create', creates: 'create',
  starting: 'start', started: 'start',
  launching: 'launch',
  opening: 'open',
  making: 'make', makes: 'make',
  generating: 'generate', generated: 'generate',
  listing: 'list', lists: 'list',
  showing: 'show', shows: 'show',
  tokens: 'token',
  meters: 'meter',
  bills: 'bill',
  links: 'link',
  invoices: 'invoice',
  balances: 'balance', bal: 'balance', balanace: 'balance', ballance: 'balance',
  polls: 'poll',
  predictions: 'prediction',
  recharging: 'recharge', recharged: 'recharge', recharges: 'recharge',
  topping: 'top', topped: 'top',
  renewing: 'renew', renewed: 'renew',
  subscriptions: 'subscription',
  winners: 'winner',
  answers: 'answer',
  declared: 'declare', declaring: 'declare',
  settled: 'settle', settling: 'settle',
  choices: 'options', option: 'options', outcomes: 'options', choice: 'options',
  pls: 'please', plz: 'please', plis: 'please', abeg: 'please', biko: 'please', tafadhali: 'please', kindly: 'please',
  u: 'you', ur: 'your', yr: 'your',
  wat: 'what', wht: 'what', whats: 'what', what: 'what',
  hw: 'how',
  mkt: 'market', mkts: 'markets',
  bundles: 'bundle',
  checkouts: 'checkout',
  tv: 'tv',
  dont: 'dont', don: 'dont',
};

/** Cue table: lemma phrase -> points per intent. */
const CUE_TABLE: ReadonlyArray<[string, Partial<Record<Intent, number>>]> = [
  // transfers
  ['send', { send_transfer: 3 }],
  ['transfer', { send_transfer: 3 }],
  ['remit', { send_transfer: 3 }],
  ['wire', { send_transfer: 3 }],
  ['give', { send_transfer: 2 }],
  ['tip', { send_transfer: 2 }],
  ['lend', { send_transfer: 2 }],
  ['pay', { send_transfer: 1, pay_bill: 1 }],
  ['pay back', { send_transfer: 2 }],
  ['move', { send_transfer: 1 }],
  ['forward', { send_transfer: 1 }],
  ['send over', { send_transfer: 1 }],
  ['p2p', { send_transfer: 2 }],
  // bills
  ['buy', { pay_bill: 2 }],
  ['recharge', { pay_bill: 3 }],
  ['top up', { pay_bill: 3 }],
  ['topup', { pay_bill: 3 }],
  ['reload', { pay_bill: 2 }],
  ['renew', { pay_bill: 2 }],
  ['subscribe', { pay_bill: 1 }],
  ['subscription', { pay_bill: 2 }],
  ['meter', { pay_bill: 3 }],
  ['smartcard', { pay_bill: 3 }],
  ['smart card', { pay_bill: 3 }],
  ['iuc', { pay_bill: 3 }],
  ['decoder', { pay_bill: 3 }],
  ['token', { pay_bill: 2 }],
  ['units', { pay_bill: 1 }],
  ['kwh', { pay_bill: 2 }],
  ['airtime', { pay_bill: 4 }],
  ['data', { pay_bill: 1 }],
  ['bundle', { pay_bill: 2 }],
  ['bill', { pay_bill: 3 }],
  ['electricity', { pay_bill: 3 }],
  ['light', { pay_bill: 1 }],
  ['prepaid', { pay_bill: 2 }],
  ['postpaid', { pay_bill: 2 }],
  ['credit', { pay_bill: 1 }],
  ['line', { pay_bill: 1 }],
  ['utility', { pay_bill: 2 }],
  ['utilities', { pay_bill: 2 }],
  ['water', { pay_bill: 1 }],
  ['internet', { pay_bill: 1 }],
  ['wifi', { pay_bill: 1 }],
  ['tv', { pay_bill: 1 }],
  // payment links
  ['link', { create_payment_link: 5 }],
  ['checkout', { create_payment_link: 5 }],
  ['invoice', { create_payment_link: 5 }],
  ['paylink', { create_payment_link: 6 }],
  ['payment link', { create_payment_link: 2 }],
  ['pay link', { create_payment_link: 2 }],
  ['payment request', { create_payment_link: 5 }],
  ['request payment', { create_payment_link: 4 }],
  ['request money', { create_payment_link: 3 }],
  ['request', { create_payment_link: 1 }],
  ['collect', { create_payment_link: 1 }],
  ['qr', { create_payment_link: 2 }],
  ['generate', { create_payment_link: 2 }],
  // balance
  ['balance', { get_balance: 6 }],
  ['funds', { get_balance: 3 }],
  ['my funds', { get_balance: 1 }],
  ['how much', { get_balance: 1 }],
  ['wallet', { get_balance: 1 }],
  ['check', { get_balance: 1 }],
  ['remaining', { get_balance: 1 }],
  // markets
  ['market', { create_market: 1, stake_market: 1, resolve_market: 1, cancel_market: 1, list_markets: 1 }],
  ['markets', { list_markets: 3 }],
  ['prediction', { create_market: 3 }],
  ['poll', { create_market: 3 }],
  ['bet market', { create_market: 4 }],
  ['betting market', { create_market: 4 }],
  ['predict', { create_market: 1 }],
  ['whether', { create_market: 2 }],
  ['options', { create_market: 2 }],
  ['create', { create_market: 2, create_payment_link: 1 }],
  ['start', { create_market: 2 }],
  ['launch', { create_market: 2 }],
  ['set up', { create_market: 1, create_payment_link: 1 }],
  ['setup', { create_market: 1, create_payment_link: 1 }],
  ['new', { create_market: 1, create_payment_link: 1 }],
  ['make', { create_market: 1, create_payment_link: 1 }],
  ['host', { create_market: 1 }],
  ['bet', { stake_market: 4, create_market: 1 }],
  ['stake', { stake_market: 5 }],
  ['wager', { stake_market: 4 }],
  ['punt', { stake_market: 3 }],
  ['put', { stake_market: 1 }],
  ['back', { stake_market: 1 }],
  ['place', { stake_market: 1 }],
  ['resolve', { resolve_market: 6 }],
  ['answer', { resolve_market: 3 }],
  ['winner', { resolve_market: 3 }],
  ['won', { resolve_market: 2 }],
  ['outcome', { resolve_market: 1 }],
  ['result', { resolve_market: 2 }],
  ['declare', { resolve_market: 3 }],
  ['mark', { resolve_market: 1 }],
  ['settle', { resolve_market: 2, pay_bill: 1 }],
  ['came true', { resolve_market: 2 }],
  ['cancel', { cancel_market: 5, pay_bill: -3 }],
  ['void', { cancel_market: 4 }],
  ['delete', { cancel_market: 4 }],
  ['scrap', { cancel_market: 4 }],
  ['call off', { cancel_market: 4 }],
  ['abort', { cancel_market: 3 }],
  ['kill', { cancel_market: 3 }],
  ['remove', { cancel_market: 3 }],
  ['refund', { cancel_market: 2 }],
  ['list', { list_markets: 3 }],
  ['show', { list_markets: 2, get_balance: 1 }],
  ['view', { list_markets: 2 }],
  ['see', { list_markets: 1 }],
  ['display', { list_markets: 2 }],
  ['browse', { list_markets: 3 }],
  ['any', { list_markets: 1 }],
  ['open', { list_markets: 1, create_market: 1 }],
  ['active', { list_markets: 1 }],
  ['live', { list_markets: 1 }],
  ['available', { list_markets: 1 }],
  // help
  ['help', { help: 5 }],
  ['what can you do', { help: 6 }],
  ['what do you do', { help: 5 }],
  ['how does this work', { help: 5 }],
  ['how does it work', { help: 5 }],
  ['how do i use', { help: 5 }],
  ['who are you', { help: 5 }],
  ['what are you', { help: 4 }],
  ['commands', { help: 5 }],
  ['menu', { help: 4 }],
  ['features', { help: 3 }],
  ['examples', { help: 3 }],
  ['hi', { help: 3 }],
  ['hello', { help: 3 }],
  ['hey', { help: 3 }],
  ['hiya', { help: 3 }],
  ['yo', { help: 3 }],
  ['hola', { help: 3 }],
  ['howdy', { help: 3 }],
  ['jambo', { help: 3 }],
  ['habari', { help: 3 }],
  ['sawubona', { help: 3 }],
  ['good morning', { help: 3 }],
  ['good afternoon', { help: 3 }],
  ['good evening', { help: 3 }],
  ['how far', { help: 2 }],
  ['sup', { help: 2 }],
];

export type Cue = { words: readonly string[]; weights: Partial<Record<Intent, number>> };
export const CUES: readonly Cue[] = CUE_TABLE.map(([p, weights]) => ({ words: p.split(' '), weights }));

/** Single-word lemmas a misspelling may be corrected to. */
const VOCABULARY: ReadonlySet<string> = new Set(
  [...CUES.filter((c) => c.words.length === 1).map((c) => c.words[0]!), 'outcome', 'naira', 'shillings', 'dollars', 'tomorrow', 'friday', 'saturday', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday'].filter(
    (w) => w.length >= 5,
  ),
);

/** Insertion, deletion or adjacent swap (not substitution: "cancer" must not become "cancel"). */
function oneEditAway(a: string, b: string): boolean {
  if (a === b) return false;
  if (a.length === b.length) {
    const diff: number[] = [];
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) diff.push(i);
    return diff.length === 2 && diff[1] === diff[0]! + 1 && a[diff[0]!] === b[diff[1]!] && a[diff[1]!] === b[diff[0]!];
  }
  const [s, l] = a.length < b.length ? [a, b] : [b, a];
  if (l.length - s.length !== 1) return false;
  let i = 0;
  while (i < s.length && s[i] === l[i]) i++;
  return s.slice(i) === l.slice(i + 1);
}

const typoCache = new Map<string, string>();

/** Lemma of a word token: irregular forms, then a one-edit typo fix against the cue vocabulary. */
export function lemmaOf(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (word.length < 6 || VOCABULARY.has(word)) return word;
  const cached = typoCache.get(word);
  if (cached !== undefined) return cached;
  let fixed = word;
  for (const v of VOCABULARY) {
    if (Math.abs(v.length - word.length) <= 1 && oneEditAway(word, v)) {
      fixed = v;
      break;
    }
  }
  typoCache.set(word, fixed);
  return fixed;
}

/** Placeholder lemmas for shaped tokens, so cues and rules can say "from <acct>". */
export function lemmaOfToken(t: Token, lang: Lang = 'en'): string {
  switch (t.kind) {
    case 'word': {
      // French elision and Taglish "pa-"/"paki-": "d'envoyer", "pa-send", "pakibayad".
      const elided = /^(?:[dljmnst]|qu)['’](\p{L}.+)$/iu.exec(t.text)?.[1]?.toLowerCase().replace(/['’-]/g, '');
      const word = elided ?? t.norm;
      return lemmaIn(lang, word) ?? anyLangVerb(word) ?? lemmaOf(word);
    }
    case 'number':
      return '<num>';
    case 'mention':
      return '<mention>';
    case 'phone':
      return '<phone>';
    case 'email':
      return '<email>';
    case 'address':
      return '<address>';
    case 'account_id':
      return '<acct>';
    case 'market_id':
      return '<mkt>';
    case 'isodate':
      return '<date>';
    case 'time':
      return '<time>';
    case 'punct':
      return t.text;
    default:
      return '<sym>';
  }
}

export const YES_WORDS: ReadonlySet<string> = new Set(['yes', 'yeah', 'yep', 'yup', 'y', 'yea', 'ya', 'true', 'oui', 'sim', 'sí', 'ndio', 'ndiyo', 'haan', 'opo']);
export const NO_WORDS: ReadonlySet<string> = new Set(['no', 'nope', 'nah', 'n', 'false', 'non', 'não', 'nao', 'hapana', 'nahi', 'hindi']);

/** Words that end a free-text slot (a note, a description, an outcome). */
export const FILLER_WORDS: ReadonlySet<string> = new Set([
  'please', 'thanks', 'thank', 'thx', 'ty', 'asap', 'now', 'right', 'quickly', 'quick', 'urgently', 'urgent', 'sharp', 'sharply', 'bro', 'sis', 'boss', 'oga', 'mate', 'fam', 'tnx', 'cheers', 'ok', 'okay',
]);

export const RECIPIENT_KINDS: ReadonlySet<Token['kind']> = new Set(['mention', 'email', 'address', 'account_id', 'phone']);
