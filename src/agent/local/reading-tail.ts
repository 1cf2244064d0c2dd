import type { Analysis } from './analysis.js';
import { CURRENCY_WORDS, ISO_CODES } from './currencies.js';
import { MONTHS, WEEKDAYS } from './date-words.js';
import { fold } from './lexicon-i18n.js';
import { PURPOSE_STOPS, VERB_LEMMAS } from './reading-words.js';

/**
 * An explanation after a complete request (docs/local-engine.md, issue h8): "send 2k to 0803…
 * she doesnt have the app yet", "…, he dey wait for transport", "… ni ya fare", "…, es lo de la
 * renta", "…, rent ka hai", "…, party ka contribution", "…, il doit payer l'école de son fils".
 * It says why, never what moves: it comes after every argument, opens with a word that starts
 * an explanation (a copula, "because", a third person), or in Hinglish is a genitive phrase, and
 * holds only words. It is not one when it carries a number, a person, a currency, a quote, a
 * capitalised name, a date, a condition, a joke, a question word, the writer as an object, or
 * (unless its subject is a third person, who is not the writer) a negation or a money verb.
 * Returns the tail's token indices, or none.
 */
export function explanationTail(a: Analysis, placed: ReadonlySet<number>, lastArgument: number, quoted: ReadonlySet<number>): number[] {
  const t = a.tokens;
  let s = lastArgument + 1;
  let boundary = false;
  const norms = t.map((x) => fold(x.norm));
  // Past the punctuation and the request's own placed words ("… 900 bhej do, bijli ka hai"), to the first word that may open it.
  const opens = (k: number) => OPENERS.has(norms[k]!) || THIRD_PERSON.has(norms[k]!) || PREAMBLE.has(norms[k]!);
  for (; s < t.length && (t[s]!.kind === 'punct' || (placed.has(s) && !opens(s))); s++) if (t[s]!.kind === 'punct' && BOUNDARIES.has(t[s]!.text)) boundary = true;
  if (s >= t.length || t.slice(s).every((_, k) => placed.has(s + k))) return [];
  let w = s;
  while (w < t.length && PREAMBLE.has(norms[w]!)) w++;
  const opener = norms[w] ?? '';
  let third = THIRD_PERSON.has(opener);
  const genitive = a.lang === 'hi' && boundary && t.slice(s).some((x) => GENITIVES.has(fold(x.norm)));
  // Pidgin's perfective with a thing as subject, after a comma: "…, light don go", "…, my phone don spoil".
  const state = boundary && (pidginState(a, norms, w) || (norms[w] === 'don' && w > 0 && placed.has(w - 1) && pidginState(a, norms, w - 1)));
  // "send 150 to 024 555 6677, new number of my cousin": after a phone, a phrase naming it as someone's number.
  const whoseNumber = boundary && (t[lastArgument]?.kind === 'phone' || (t[lastArgument]?.kind === 'number' && (t[lastArgument]?.digits?.length ?? 0) >= 7)) && t.slice(s).some((x) => LINE_WORDS.has(fold(x.norm))) &&
    // Everything after the number: no other verb, amount or person ("…, send the same to his other number" is a second order).
    t.slice(lastArgument + 1).every((x, k) => x.kind === 'punct' || (x.kind === 'word' && !VERB_LEMMAS.has(a.lemmas[lastArgument + 1 + k]!) && !PURPOSE_STOPS.has(fold(x.norm)) && !TAKE.has(a.lemmas[lastArgument + 1 + k]!) && !EXTRA_STOPS.has(fold(x.norm)) && !['same', 'other', 'another', 'also', 'too', 'both', 'and', 'plus', 'et', 'y', 'e', 'aur', 'at'].includes(fold(x.norm))));
  // Swahili's copula "ni" is Spanish "nor / not even" ("…, ni de chiste ganan": no way they win): no opener there.
  const copula = OPENERS.has(opener) && !(opener === 'ni' && a.lang === 'es');
  if (!(third || copula || genitive || state || whoseNumber) || (!boundary && !third && !BARE_OPENERS.has(opener))) return [];
  const tail: number[] = [];
  let words = 0;
  for (let i = s; i < t.length; i++) {
    const x = t[i]!;
    if (quoted.has(i)) return [];
    if (x.kind === 'punct' && TAIL_PUNCT.has(x.text)) continue;
    // A filler of the closed list ("…, Mungu akubariki", "…, thanks") says nothing about the payment.
    if (a.fillers.has(i)) continue;
    if (x.kind !== 'word') return [];
    const norm = norms[i]!;
    const lemma = a.lemmas[i]!;
    if (i > s && /^\p{Lu}/u.test(x.text)) return [];
    if (CURRENCY_WORDS[norm] !== undefined || ISO_CODES.has(norm.toUpperCase()) || WEEKDAYS[norm] !== undefined || MONTHS[norm] !== undefined || EXTRA_STOPS.has(norm)) return [];
    // Lemmas stop only as money verbs ("de" has the lemma "from" and is mostly "of": "es lo de la renta").
    const stop = PURPOSE_STOPS.has(norm) || VERB_LEMMAS.has(lemma) || TAKE.has(lemma);
    // A later clause of the explanation may have its own third-person subject ("…, na my mechanic, him never get the app").
    if (THIRD_PERSON.has(norm) && t[i - 1]?.kind === 'punct') third = true;
    // A third person may not have the app, or have to pay the school: that is about them, not this payment.
    // Nor have an account yet ("she doesnt have an account yet"): said with a negation, checked below.
    if (stop && !(third && (NEGATIONS.has(norm) || VERB_LEMMAS.has(lemma) || ACCOUNTS.has(norm)))) return [];
    if (++words > 10) return [];
    tail.push(i);
  }
  // Only the words that open an explanation, with nothing they open ("… kay @jose wala na": "no more",
  // or "forget it"): no reason is given, so nothing is explained and the words stay unplaced.
  if (tail.every((i) => PREAMBLE.has(norms[i]!) || OPENERS.has(norms[i]!) || PARTICLES.has(norms[i]!))) return [];
  // A third person's negation and a money verb together ("she said don't send it") are an order about the money.
  if (third && tail.some((i) => NEGATIONS.has(norms[i]!)) && tail.some((i) => VERB_LEMMAS.has(a.lemmas[i]!))) return [];
  // Someone's account is named only to say they have none (a claim's reason); "she has an account" is no reason to place.
  if (tail.some((i) => ACCOUNTS.has(norms[i]!)) && !tail.some((i) => NEGATIONS.has(norms[i]!) || NEGATIVE_HAVE.has(norms[i]!))) return [];
  return tail;
}

/**
 * Pidgin "<thing> don <verb>" (the perfective: "light don go", "NEPA don take light", "my phone don
 * spoil"): a state of things, said as the reason. The subject is one or two words and never the
 * writer or the person addressed ("I don send", "you don pay" report what was done with money).
 */
function pidginState(a: Analysis, norms: readonly string[], w: number): boolean {
  if (a.lang !== 'pcm') return false;
  const don = norms[w + 1] === 'don' ? w + 1 : norms[w + 2] === 'don' ? w + 2 : -1;
  if (don < 0 || a.tokens.slice(w, don + 2).some((x) => x.kind !== 'word')) return false;
  return !norms.slice(w, don).some((x) => PERSONS.has(x)) && !VERB_LEMMAS.has(a.lemmas[don + 1] ?? '') && !TAKE.has(a.lemmas[don + 1] ?? '');
}

/**
 * A Pidgin state of things before the request, closed by a comma: "light don go again, abeg buy 3k
 * token for my meter…". Only words (no number, person, currency, date, quote, negation or money
 * verb), at most eight, and the request after the comma is what acts. Returns its indices and the comma's.
 */
export function pidginStateLead(a: Analysis, quoted: ReadonlySet<number>): number[] {
  const t = a.tokens;
  const comma = t.findIndex((x) => x.kind === 'punct' && x.text === ',');
  if (comma < 3 || comma > 8) return [];
  const norms = t.map((x) => fold(x.norm));
  if (!pidginState(a, norms, 0)) return [];
  for (let i = 0; i < comma; i++) {
    const x = t[i]!;
    const norm = norms[i]!;
    if (quoted.has(i) || x.kind !== 'word' || a.fillers.has(i)) return [];
    if (i > 0 && /^\p{Lu}/u.test(x.text) && !/^\p{Lu}+$/u.test(x.text)) return [];
    if (CURRENCY_WORDS[norm] !== undefined || ISO_CODES.has(norm.toUpperCase()) || WEEKDAYS[norm] !== undefined || MONTHS[norm] !== undefined) return [];
    if ((PURPOSE_STOPS.has(norm) && norm !== 'dont') || VERB_LEMMAS.has(a.lemmas[i]!) || TAKE.has(a.lemmas[i]!) || NEGATIONS.has(norm) || ['instead', 'cancel', 'undo'].includes(norm)) return [];
  }
  return [...Array(comma + 1).keys()];
}

const words = (spec: string): ReadonlySet<string> => new Set(spec.split(/\s+/).filter(Boolean));
const BOUNDARIES = words(', . ? ! … - – —');
/** A phone number's nouns: "new number of my cousin", "my sister's line", "namba ya mama". */
const LINE_WORDS = words('number numbers line namba numero nambari');
/** Subjects of a Pidgin perfective that make it a report of what someone did, not a state of things. */
const PERSONS = words('i we you u una me he she they im dem e');
const TAIL_PUNCT = words(', . ! … - – — :');
/** Words before the explanation's subject: "i think she…", "because he…". */
const PREAMBLE = words('i think guess believe coz cos cuz cause because since as sha sef kasi kwasababu sababu car parce que porque pq kyunki kyonki wala pa');
/** A third person, the subject of an explanation about someone who is not the writer. */
const THIRD_PERSON = words('he she they him her shes hes theyre dem im il elle ils elles ele ela eles elas el ella ellos ellas yeye wao woh wo vo uski uska uske unki unka unke iski iska iske siya siyang sila silang hana hawana hajapata hajui');
/** "Does not have" in one word: Swahili's third person ("hana app bado"), Tagalog "wala" ("wala pa siyang app"). */
const NEGATIVE_HAVE = words('hana hawana hajapata wala');
/** An account or app someone does not have yet. */
const ACCOUNTS = words('account acct akaunti compte conta cuenta khata');
/** Tagalog's discourse particles ("na", "pa", "pala", "lang", "naman"): they add no reason of their own. */
const PARTICLES = words('na pa pala lang naman din rin po nga ba');
/** Copulas and demonstratives that open an explanation: "it's", "na", "ni", "c'est" (chat "c"), "é", "es", "yeh", "yan". */
const OPENERS = words('its it thats na ni cest c e es son yeh ye yan yun iyan iyon ito');
/** Openers that need no comma before them: "… 08031112233 na my sister number", "… @musa ni ya fare". */
const BARE_OPENERS = words('its thats na ni cest c');
const GENITIVES = words('ka ki ke');
const NEGATIONS = words('not no never dont doesnt didnt hasnt havent isnt pas nao mat nahi hindi wag');
/** Words that change the request itself: "actually", "instead", "again", "each", "every". */
const TAKE = words('take');
const EXTRA_STOPS = words('actually instead rather cancel undo again each every everyone everybody twice times daily weekly monthly chaque cada kila har tuwing toda todo todos todas');
