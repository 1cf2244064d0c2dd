import type { Analysis } from './analysis.js';
import { fold } from './lexicon-i18n.js';

const words = (spec: string): ReadonlySet<string> => new Set(spec.split(/\s+/).filter(Boolean));

/** Purpose markers after which a noun and its time are the occasion paid for ("for the suya tonight", "ya mvua Jumamosi"). */
const OCCASION_MARKERS = words('for pour para pra pro ya');
/** Swahili's other genitive particles, by noun class ("soko la mvua Jumamosi", "sherehe za Jumamosi"): markers in Swahili only ("la" is an article elsewhere). */
const SW_GENITIVES = words('la za cha vya wa');
const OCCASION_DETERMINERS = words('the my our his her this that le la les mon ma mes o a os as el los las mi ile hiyo');

/**
 * "send 7.5k to @emeka for the suya tonight", "weka 200 … ile ya mvua Jumamosi": every time word
 * ends a purpose phrase, right after its noun ("for [the] <noun> <time>"), so it may date the
 * occasion rather than the payment. Not a schedule to refuse; the reading leaves the time word
 * unplaced (reading-words.ts PURPOSE_STOPS), so the call is held for the person to confirm, never
 * acted at once.
 */
export function onlyTimesOfAPurpose(a: Analysis, norms: readonly string[], schedule: ReadonlySet<string>, moneyVerbs: ReadonlySet<string>): boolean {
  const times = norms.map((w, i) => (schedule.has(w) ? i : -1)).filter((i) => i >= 0);
  if (!times.length) return false;
  return times.every((i) => {
    const noun = i - 1;
    const marker = (w: string) => OCCASION_MARKERS.has(w) || (a.lang === 'sw' && SW_GENITIVES.has(w));
    if (noun < 1 || a.tokens[noun]!.kind !== 'word' || schedule.has(norms[noun]!) || moneyVerbs.has(a.lemmas[noun]!) || marker(norms[noun]!)) return false;
    const det = OCCASION_DETERMINERS.has(norms[noun - 1]!) && !marker(norms[noun - 1]!) ? noun - 1 : noun;
    return marker(norms[det - 1] ?? '') && (i === a.tokens.length - 1 || a.tokens[i + 1]!.kind !== 'word' || a.fillers.has(i + 1));
  });
}


/** "since", in the eight languages ("from", "desde", "mula" also open a future: only a time of day may follow). */
const SINCE = words('since tangu depuis desde mula');
/** A determiner between "since" and the time: "depuis ce matin", "desde esta mañana", "tangu hii asubuhi". */
const SINCE_DETERMINERS = words('this that the ce cette le la este esta el hii iss is kaninang');
/** Times of day: after "since" they say how long, up to now ("since morning"); days and "tomorrow" may start a plan. */
const DAY_TIMES = words('morning afternoon evening noon matin soir apres-midi manha tarde noite manana noche asubuhi mchana jioni subah shaam dopahar umaga hapon gabi');

/**
 * Indices of times of day that say since when something has been so ("…, light don go since morning",
 * "depuis ce matin", "subah se"): a duration up to now, never the time of the payment. "kal subah se"
 * keeps its "kal", so it is still a schedule.
 */
export function sinceTimes(a: Analysis, norms: readonly string[], schedule: ReadonlySet<string>): Set<number> {
  const out = new Set<number>();
  norms.forEach((w, i) => {
    if (!schedule.has(w) || !DAY_TIMES.has(w)) return;
    const before = SINCE_DETERMINERS.has(norms[i - 1] ?? '') ? i - 2 : i - 1;
    // Spanish "mañana" is the morning only after an article ("desde la mañana"); bare, it is tomorrow.
    if (w === 'manana' && before === i - 1) return;
    // Hindi puts it after: "subah se".
    if (SINCE.has(norms[before] ?? '') || (a.lang === 'hi' && norms[i + 1] === 'se')) out.add(i);
  });
  return out;
}

/** Past days and "last …": the times that may date an occasion ("for the suya last night") rather than the payment. */
export const PAST_DAYS = words('yesterday hier ontem ayer jana kahapon');
const LAST_UNITS = words('night week month weekend');
/** A third person opening a later clause: "…, he covered me last night" is about them. */
const THIRD = words('he she they dem im il elle ils elles ele ela eles elas el ella ellos ellas yeye wao woh wo vo siya sila');
const CLAUSE = new Set([',', '.', ';', '!', '—', '–']);

/**
 * "send R200 to @rico for the uber, he covered me last night", "send ₦2,500 to @emeka, na for the suya
 * last night": every past time comes after the request's verb, inside a purpose ("for [the] <noun> …")
 * or in a later clause whose subject is a third person. It dates what the money is for, not the payment.
 * The reading leaves such words unplaced, so the call is held for confirmation, never acted at once.
 * The caller has checked that nothing else in the message is past (no past verb, no "already").
 */
export function pastTimesOfAnOccasion(a: Analysis, norms: readonly string[], verbIdx: number): boolean {
  const times: number[] = [];
  norms.forEach((w, i) => {
    if (PAST_DAYS.has(w)) times.push(i);
    else if (w === 'last' && LAST_UNITS.has(norms[i + 1] ?? '')) times.push(i);
  });
  if (!times.length || verbIdx < 0) return false;
  return times.every((i) => {
    if (i < verbIdx) return false;
    for (let k = i - 1; k > verbIdx; k--) {
      const x = a.tokens[k]!;
      if (x.kind === 'punct' && CLAUSE.has(x.text)) return THIRD.has(norms[k + 1] ?? '');
      // A marker right before a person or a number is "to" ("pra @ana_souza ontem"), not a purpose.
      if (x.kind !== 'word' && x.kind !== 'punct') return false;
      if (OCCASION_MARKERS.has(norms[k]!)) return true;
    }
    return false;
  });
}

/** "If you can" asked of the agent (closed filler list): politeness when the request's verb follows it. */
const POLITE_IF = ['if you can', 'if u can', 'si tu peux', 'si vous pouvez', 'si puedes', 'se puder', 'se voce puder', 'agar ho sake', 'kung pwede', 'kung puwede', 'kung kaya mo'].map((p) => p.split(' '));

/**
 * "se puder pagar a conta, manda 50 pra @joana", "si puedes pagar la renta mándale 500…": after the polite
 * "if you can" comes a clause with a money verb of its own before the request's: a condition on paying
 * something else, not politeness. Two money verbs after the phrase say so.
 */
export function politeIfWithItsOwnVerb(a: Analysis, moneyVerbs: ReadonlySet<string>): boolean {
  const norms = a.tokens.map((x) => (x.kind === 'word' ? fold(x.norm) : ''));
  for (let i = 0; i < norms.length; i++) {
    const p = POLITE_IF.find((q) => q.every((w, k) => norms[i + k] === w));
    if (!p) continue;
    const verbs = a.lemmas.slice(i + p.length).filter((l) => moneyVerbs.has(l)).length;
    if (verbs >= 2) return true;
  }
  return false;
}

/** Hindi genitive postpositions: "kal ka dinner", "kal ki party", "aaj ke tickets". */
const HI_GENITIVES = words('ka ki ke');
/** Romance genitive prepositions between a noun and its time: "la cena de ayer", "o jantar de ontem", "le repas d'hier". */
const DE_GENITIVES = words('de do da du');

/**
 * Indices of time words that date a noun rather than the payment (issue h16): Hindi "kal ka dinner"
 * (yesterday's or tomorrow's dinner), "kal ki party ke liye"; Spanish/Portuguese/French "la fiesta de
 * mañana", "o jantar de ontem", "le repas d'hier" closing the message or its clause. The money is asked
 * for now; the time is the occasion's. Like `onlyTimesOfAPurpose`, the reading leaves the time word
 * unplaced (reading-words.ts PURPOSE_STOPS), so the call is held for confirmation, never acted at once.
 */
export function timesOfANoun(a: Analysis, norms: readonly string[], schedule: ReadonlySet<string>, moneyVerbs: ReadonlySet<string>): Set<number> {
  const out = new Set<number>();
  const t = a.tokens;
  // The particles as typed: a filler phrase may have taken "ka" ("… kar do, kal ka dinner").
  const raw = (k: number) => (t[k]?.kind === 'word' ? fold(t[k]!.norm) : '');
  const isNoun = (k: number) => t[k]?.kind === 'word' && !schedule.has(raw(k)) && !moneyVerbs.has(a.lemmas[k] ?? '') && !a.fillers.has(k);
  norms.forEach((w, i) => {
    if (!schedule.has(w)) return;
    if (a.lang === 'hi' && HI_GENITIVES.has(raw(i + 1)) && isNoun(i + 2)) out.add(i);
    const closes = i === t.length - 1 || t[i + 1]!.kind === 'punct';
    const elided = /^d['’]/i.test(t[i]!.text);
    if (['es', 'pt', 'fr'].includes(a.lang) && closes && ((DE_GENITIVES.has(raw(i - 1)) && isNoun(i - 2)) || (elided && isNoun(i - 1)))) out.add(i);
  });
  return out;
}

/** Third persons that open a comment after the request ("…, they bottle it every year", "…, ils perdent chaque année"). */
const COMMENT_SUBJECTS = words("they theyre they're he she hes shes dem ils elles il elle eles ele ela ellos ellas wao woh wo sila siya");
const CLAUSE_MARKS = words(', . ! ; … - – —');
const RECURRENCE = words('every each chaque cada toda todo todos todas kila har tuwing');

/**
 * Time words inside a later clause whose subject is a third person, with no money verb, number or
 * person in it: "put 20 on No for the arsenal thing, they bottle it every year". The time is theirs,
 * not the payment's, so it is no schedule to refuse; its words stay unplaced by the reading, so the
 * call is held for the person to confirm, never acted at once.
 */
export function timesOfAThirdPersonClause(a: Analysis, norms: readonly string[], schedule: ReadonlySet<string>, moneyVerbs: ReadonlySet<string>): Set<number> {
  const out = new Set<number>();
  const t = a.tokens;
  const mark = (i: number) => t[i]!.kind === 'punct' && CLAUSE_MARKS.has(t[i]!.text);
  for (let s = 1; s < t.length; s++) {
    if (!mark(s - 1) || !COMMENT_SUBJECTS.has(norms[s]!)) continue;
    let e = s;
    while (e < t.length && !mark(e)) e++;
    const clause = [...Array(e - s).keys()].map((k) => s + k);
    if (clause.some((i) => t[i]!.kind !== 'word' || moneyVerbs.has(a.lemmas[i]!))) continue;
    // Only a recurrence ("every year", "chaque saison", "kila mwaka") and its unit: a day or a date ("…, she needs it
    // friday") may still be when the payment is meant.
    for (const i of clause) if (RECURRENCE.has(norms[i]!)) for (const j of [i, i + 1]) if (clause.includes(j) && schedule.has(norms[j]!)) out.add(j);
    for (const i of clause) if (RECURRENCE.has(norms[i]!) && clause.includes(i + 1) && !schedule.has(norms[i + 1]!)) out.add(i);
  }
  return out;
}
