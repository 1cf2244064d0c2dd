import type { Lang } from './language.js';
import { anyLangVerb, lemmaIn } from './lexicon-i18n.js';
import type { Token } from './tokenize.js';
import { wordTable } from '../../lib/word-table.js';

/**
 * Words the parser scores intents with. Each cue is a lemma sequence and the points it
 * gives each intent; a paraphrase scores like the original as long as it uses some of
 * these words, in any order, with any filler around them.
 */

/** Inflections and common misspellings folded onto one lemma. */
const IRREGULAR: Readonly<Record<string, string>> = wordTable({
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
});

/**
 * Cue lists: lemma phrases and the points each gives one tool's intent (negative points push
 * away). Each tool's local intent (src/agent/tools/*.ts, `local`) names its list; the lists sit
 * here, together, because they are the English lexicon as a whole too: the typo corrector's
 * vocabulary and the words a transfer never reads as a name come from all of them.
 */
export type Cues = ReadonlyArray<readonly [phrase: string, points: number]>;

export const TRANSFER_CUES: Cues = [
  ['send', 3], ['transfer', 3], ['remit', 3], ['wire', 3], ['give', 2], ['tip', 2], ['lend', 2], ['pay', 1], ['pay back', 2],
  ['move', 1], ['forward', 1], ['send over', 1], ['p2p', 2],
];

export const BILL_CUES: Cues = [
  ['pay', 1], ['buy', 2], ['recharge', 3], ['top up', 3], ['topup', 3], ['reload', 2], ['renew', 2], ['subscribe', 1], ['subscription', 2],
  ['meter', 3], ['smartcard', 3], ['smart card', 3], ['iuc', 3], ['decoder', 3], ['token', 2], ['units', 1], ['kwh', 2], ['airtime', 4],
  ['data', 1], ['bundle', 2], ['bill', 3], ['electricity', 3], ['light', 1], ['prepaid', 2], ['postpaid', 2], ['credit', 1], ['line', 1],
  ['utility', 2], ['utilities', 2], ['water', 1], ['internet', 1], ['wifi', 1], ['tv', 1], ['settle', 1], ['cancel', -3],
];

export const PAYMENT_LINK_CUES: Cues = [
  ['link', 5], ['checkout', 5], ['invoice', 5], ['paylink', 6], ['payment link', 2], ['pay link', 2], ['payment request', 5],
  ['request payment', 4], ['request money', 3], ['request', 1], ['collect', 1], ['qr', 2], ['generate', 2], ['create', 1], ['set up', 1],
  ['setup', 1], ['new', 1], ['make', 1],
];

export const BALANCE_CUES: Cues = [['balance', 6], ['funds', 3], ['my funds', 1], ['how much', 1], ['wallet', 1], ['check', 1], ['remaining', 1], ['show', 1]];

export const CREATE_MARKET_CUES: Cues = [
  ['market', 1], ['prediction', 3], ['poll', 3], ['bet market', 4], ['betting market', 4], ['predict', 1], ['whether', 2], ['options', 2],
  ['create', 2], ['start', 2], ['launch', 2], ['set up', 1], ['setup', 1], ['new', 1], ['make', 1], ['host', 1], ['bet', 1], ['open', 1],
];

export const STAKE_CUES: Cues = [['market', 1], ['bet', 4], ['stake', 5], ['wager', 4], ['punt', 3], ['put', 1], ['back', 1], ['place', 1]];

export const RESOLVE_CUES: Cues = [
  ['market', 1], ['resolve', 6], ['answer', 3], ['winner', 3], ['won', 2], ['outcome', 1], ['result', 2], ['declare', 3], ['mark', 1],
  ['settle', 2], ['came true', 2],
];

export const CANCEL_MARKET_CUES: Cues = [
  ['market', 1], ['cancel', 5], ['void', 4], ['delete', 4], ['scrap', 4], ['call off', 4], ['abort', 3], ['kill', 3], ['remove', 3], ['refund', 2],
];

export const LIST_MARKETS_CUES: Cues = [
  ['market', 1], ['markets', 3], ['list', 3], ['show', 2], ['view', 2], ['see', 1], ['display', 2], ['browse', 3], ['any', 1], ['which', 3], ['open', 1],
  ['active', 1], ['live', 1], ['available', 1],
];

/** Greetings and questions about the service: the engine's own "help" intent (not a tool). */
export const HELP_CUES: Cues = [
  ['help', 5], ['what can you do', 6], ['what do you do', 5], ['how does this work', 5], ['how does it work', 5], ['how do i use', 5],
  ['who are you', 5], ['what are you', 4], ['commands', 5], ['menu', 4], ['features', 3], ['examples', 3], ['hi', 3], ['hello', 3],
  ['hey', 3], ['hiya', 3], ['yo', 3], ['hola', 3], ['howdy', 3], ['jambo', 3], ['habari', 3], ['sawubona', 3], ['good morning', 3],
  ['good afternoon', 3], ['good evening', 3], ['how far', 2], ['sup', 2],
  // Greetings alone in the other corridor languages (issue h9): answered with help, in the person's language.
  ['bonjour', 3], ['bonsoir', 3], ['salut', 3], ['namaste', 3], ['namaskar', 3], ['mambo', 3], ['niaje', 3], ['oi', 3], ['ola', 3], ['olá', 3],
  ['tudo bem', 3], ['buenas', 3], ['buenos dias', 3], ['buenos días', 3], ['kumusta', 3], ['musta', 3],
];

/** Every cue phrase of the lexicon, as lemma sequences. */
export const CUE_PHRASES: ReadonlyArray<readonly string[]> = [
  TRANSFER_CUES, BILL_CUES, PAYMENT_LINK_CUES, BALANCE_CUES, CREATE_MARKET_CUES, STAKE_CUES, RESOLVE_CUES, CANCEL_MARKET_CUES, LIST_MARKETS_CUES, HELP_CUES,
].flatMap((list) => list.map(([p]) => p.split(' ')));

/** Single-word lemmas a misspelling may be corrected to. */
const VOCABULARY: ReadonlySet<string> = new Set(
  [...CUE_PHRASES.filter((w) => w.length === 1).map((w) => w[0]!), 'outcome', 'naira', 'shillings', 'dollars', 'tomorrow', 'friday', 'saturday', 'sunday', 'monday', 'tuesday', 'wednesday', 'thursday'].filter(
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
