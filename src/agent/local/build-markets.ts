import { span, type Analysis } from './analysis.js';
import { findTimeExpressions, formatInZone } from './dates.js';
import { backsAWinner, isWinWord } from './intent-shapes.js';
import type { Draft } from './draft.js';
import { FILLER_WORDS, NO_WORDS, YES_WORDS } from './lexicon.js';
import { fold } from './lexicon-i18n.js';
import { CONNECTORS, VERB_LEMMAS } from './reading-words.js';
import { replies } from './replies.js';
import { canonicalOutcome, findMarketRef, freeText, moneyTokens, pickAmount, rangeSet } from './slots.js';
import { wordTable } from '../../lib/word-table.js';

const DEFAULT_CLOSE_DAYS = 7;
const CREATE_NOUNS = new Set(['market', 'poll', 'prediction', 'bet', 'betting', '/', 'markets', 'polls', 'wager']);
const QUESTION_LEADS = new Set([':', '-', '–', '—', 'on', 'about', 'for', 'whether', 'if', 'that', 'asking', 'called', 'titled', 'named', 're', 'regarding', ',', 'question', 'q', 'to', 'see', 'predict']);
/** Close words that are never part of a question's own wording. */
const CLAUSE_CLOSE_WORDS = new Set(['closes', 'closing', 'deadline', 'cutoff', 'expires', 'expiring', 'expiry', 'cierra', 'cierre', 'clôture', 'cloture', 'ferme', 'encerra', 'fecha', 'inafungwa', 'magsasara', 'sarado']);
const OPTION_LABELS = new Set(['options', 'answers']);
const CLOSE_WORDS = new Set(['close', 'closes', 'closing', 'ends', 'ending', 'deadline', 'until', 'till', 'expires', 'expiring', 'expiry', 'cutoff', 'closed', 'runs', 'lasts', 'open', ...CLAUSE_CLOSE_WORDS]);
const AUX_STARTS = new Set(['will', 'is', 'are', 'does', 'do', 'did', 'can', 'could', 'would', 'should', 'has', 'have', 'was', 'were', 'shall', 'whether']);

// ---------------------------------------------------------------------------------------
// create_market

export function buildCreateMarket(a: Analysis): Draft {
  const n = a.tokens.length;
  // The creation phrase ends at the last market noun of its run: "new poll/bet market".
  let k = a.tokens.findIndex((_, i) => ['market', 'poll', 'prediction'].includes(a.lemmas[i]!) || (a.lemmas[i] === 'bet' && a.lemmas[i + 1] === 'market'));
  if (k < 0) return { reply: replies.marketNeedsQuestion };
  while (k + 1 < n && CREATE_NOUNS.has(a.lemmas[k + 1]!)) k++;
  let q = k + 1;
  // Hindi puts the verb after the noun: "market banao: kya …?".
  while (q < n && (QUESTION_LEADS.has(a.lemmas[q]!) || (q === k + 1 && a.lemmas[q] === 'create'))) q++;
  const times = findTimeExpressions(a.tokens, { now: a.now, tz: a.tz });
  // "new market closes Friday: will BTC hit 120k?": the close clause came first.
  let leadingClose: (typeof times)[number] | undefined;
  if (q < n && CLOSE_WORDS.has(a.tokens[q]!.norm) && a.tokens[q]!.norm !== 'open') {
    leadingClose = times.find((t) => t.start > q && t.start <= q + 3);
    if (leadingClose) {
      q = leadingClose.end;
      while (q < n && QUESTION_LEADS.has(a.lemmas[q]!)) q++;
    }
  }

  // Clauses after the question: "options: a, b, c", "closes in 3 days".
  const qMark = findIndexFrom(a, q, (i) => a.tokens[i]!.text === '?');
  // A close word starts a clause only when a time follows, and only after the question
  // ("will the bank close on Friday?" is a question, "…? closes Friday" a clause).
  const closeIdx = findIndexFrom(a, qMark >= 0 ? qMark + 1 : q, (i) => {
    if (!CLOSE_WORDS.has(a.tokens[i]!.norm) || !times.some((t) => t.start > i && t.start <= i + 3)) return false;
    if (qMark >= 0 || CLAUSE_CLOSE_WORDS.has(a.tokens[i]!.norm)) return true;
    const prev = a.tokens[i - 1];
    return prev?.kind === 'punct' || ['and', 'it', 'market', 'poll', 'staking', 'betting', 'bets'].includes(prev?.norm ?? '');
  });
  const optionsIdx = findIndexFrom(a, q, (i) => OPTION_LABELS.has(a.lemmas[i]!) && (a.tokens[i + 1]?.text === ':' || a.tokens[i + 1]?.text === '-' || i > q));

  let qStart = q;
  let qEnd: number;
  if (qMark >= 0 && (optionsIdx < 0 || optionsIdx > qMark) && (closeIdx < 0 || closeIdx > qMark)) qEnd = qMark + 1;
  else qEnd = Math.min(...[optionsIdx, closeIdx, n].filter((x) => x >= 0));
  // "will it rain tomorrow? make it a market": the question came first.
  if (qEnd <= qStart) {
    const before = a.tokens.findIndex((t) => t.text === '?');
    if (before >= 0 && before < k) {
      qStart = 0;
      qEnd = before + 1;
    }
  }
  const questionText = tidyQuestion(span(a, qStart, qEnd));
  if (!questionText) return { reply: replies.marketNeedsQuestion };
  if (questionText.length < 5 || questionText.length > 200) return { reply: replies.marketQuestionLength };

  // Outcomes: an explicit list wins; otherwise "X or Y?" in the question.
  let outcomes: string[] | undefined;
  if (optionsIdx >= 0) {
    let from = optionsIdx + 1;
    while (a.tokens[from] && [':', '-', '=', 'are', 'is'].includes(a.tokens[from]!.norm)) from++;
    const to = closeIdx > from ? closeIdx : n;
    outcomes = splitOutcomes(span(a, from, to));
    if (outcomes.length < 2 || outcomes.length > 10) return { reply: replies.marketOutcomeCount };
  } else {
    outcomes = outcomesFromQuestion(questionText);
  }

  // Close: a time after "closes" wins, else the last time in the message, else a week.
  const explicit = leadingClose ?? (closeIdx >= 0 ? times.find((t) => t.start > closeIdx && t.start <= closeIdx + 3) : undefined);
  const chosen = explicit ?? times[times.length - 1];
  const closesAt = chosen ? chosen.at : new Date(a.now.getTime() + DEFAULT_CLOSE_DAYS * 86_400_000);
  if (closesAt.getTime() <= a.now.getTime()) return { reply: replies.marketClosePast };

  return {
    call: {
      name: 'create_market',
      input: {
        question: questionText,
        ...(outcomes ? { outcomes } : {}),
        closes_at: formatInZone(closesAt, a.tz),
      },
    },
  };
}

function findIndexFrom(a: Analysis, from: number, pred: (i: number) => boolean): number {
  for (let i = from; i < a.tokens.length; i++) if (pred(i)) return i;
  return -1;
}

/** Capital first letter, one question mark, no wrapping quotes or trailing commas. */
function tidyQuestion(raw: string): string {
  let q = raw.trim().replace(/^["'“]+|["'”]+$/g, '').trim();
  q = q.replace(/[\s,;:.!-]+$/u, '').replace(/\?+$/, '').trim();
  q = q.replace(/\s+/g, ' ');
  if (!q) return '';
  return `${q[0]!.toUpperCase()}${q.slice(1)}?`;
}

function splitOutcomes(text: string): string[] {
  const parts = text
    .split(/\s*(?:,|\/|;|\||\bor\b|\band\b|\bvs\.?(?=\s)|\bversus\b)\s*/i)
    .map((p) => p.trim().replace(/^["']+|["'.?!]+$/g, '').trim())
    .filter((p) => p.length > 0);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const p of parts) {
    const key = p.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(p.slice(0, 60));
  }
  return out;
}

/** "Who wins, Arsenal or Chelsea?", "Arsenal vs Chelsea: who wins?", "Tinubu or Atiku?" */
function outcomesFromQuestion(question: string): string[] | undefined {
  const body = question.replace(/\?$/, '');
  const segments: string[] = [];
  const colon = body.lastIndexOf(':');
  if (colon >= 0) segments.push(body.slice(colon + 1), body.slice(0, body.indexOf(':')));
  // "who wins the derby — Remo Stars, Shooting Stars or draw": the list after a dash.
  const dash = body.search(/\s[—–-]\s/);
  if (dash >= 0) segments.push(body.slice(dash + 3));
  const comma = body.lastIndexOf(',');
  if (comma >= 0) segments.push(body.slice(comma + 1));
  const firstWord = body.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!AUX_STARTS.has(firstWord)) segments.push(body);
  for (const seg of segments) {
    if (!/\b(or|vs\.?|versus)\b/i.test(seg)) continue;
    const items = splitOutcomes(seg);
    if (items.length >= 2 && items.length <= 10 && items.every((i) => i.split(/\s+/).length <= 5)) {
      if (items.some((i) => /^(who|what|which|will)\b/i.test(i))) continue;
      return items;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------
// stake_market

/** Yes/no words that are also prepositions or articles in a corridor language. */
const AMBIGUOUS_SIDES = new Set(['no', 'na', 'sa', 'si', 'ha', 'oo']);
/** "to" before a win word: "Arsenal to win", "Mengão pra ganhar", "le Sénégal pour gagner". */
const TO_WIN = new Set(['to', 'pra', 'para', 'pour', 'kwa', 'ku']);
/** "put 500 on them": the outcome has to be named. */
const PRONOUNS = new Set(['it', 'them', 'that', 'this', 'him', 'her', 'they', 'those', 'these', 'one', 'winner']);
/** Marks that close a clause: what follows is another sentence. */
const CLAUSE_MARKS = new Set([',', '.', '!', ';', '—', '–']);
const ARTICLE_WORDS = new Set(['el', 'la', 'le', 'les', 'los', 'las', 'o', 'os', 'the', 'a']);
/** Words after which a yes or no is the side staked on. */
const YES_NO_LINKS = new Set(['on', 'al', 'au', 'sur', 'no', 'na', 'pe', 'par', 'kwa', 'sa', 'for', 'que']);
/** Words that lead to a market's name without being part of it (Spanish "lo del América": the neuter article). */
// Spanish/Portuguese "a que sí gana…" ("betting that yes, … wins"): "que" opens the side and the market's words.
const MARKET_LINKS = new Set(['for', 'pour', 'of', 'per', 'about', 'lo', 'inside', 'que']);
const OUTCOME_STOPS = new Set(['in', 'inside', 'for', 'at', 'on', 'with', 'market', 'to', 'please', 'using', 'from', 'into', 'of', 'and', 'dans', 'pour', 'no', 'na', 'em', 'en', 'mein', 'kwenye', 'sa', 'para', 'de', 'del', 'do', 'da']);

export function buildStake(a: Analysis): Draft {
  const market = findMarketRef(a);
  const used = market ? rangeSet(market.start, market.end) : new Set<number>();
  if (market) {
    // "the Lagos rain market": the article and noun belong to the reference too.
    for (let i = market.start - 1; i >= 0 && ['the', 'my', 'this', 'that'].includes(a.lemmas[i]!); i--) used.add(i);
    for (let i = market.end; i < a.tokens.length && a.lemmas[i] === 'market'; i++) used.add(i);
  }
  const amount = pickAmount(a, used);
  if (amount?.negative || (amount && !/[1-9]/.test(amount.amount))) return { reply: replies.amountPositive };
  const taken = new Set([...used, ...moneyTokens(amount)]);
  const backed = market ? undefined : backedSide(a, taken);
  let outcome = backed?.outcome ?? stakeOutcome(a, taken);
  let ref = market ?? backed?.ref ?? unnamedMarketRef(a, taken, outcome);
  // "taya 200 sa Gilas, Yes!": a name after the link and a yes or no said apart from it: the name is the market's, the yes/no the side.
  if (!market && !backed && outcome && !YES_WORDS.has(outcome.toLowerCase()) && !NO_WORDS.has(outcome.toLowerCase())) {
    const named = new Set(outcome.toLowerCase().split(/\s+/));
    const said = a.tokens.findIndex((t, i) => !taken.has(i) && !named.has(t.norm) && isSaidSide(a, i, -1));
    if (said >= 0 && (!ref || ref.ref === outcome || a.tokens.slice(0, said).some((t) => t.kind === 'punct'))) {
      ref = { ref: outcome };
      outcome = canonicalOutcome(a.tokens[said]!.text);
    }
  }

  if (!ref) return { reply: replies.stakeNeedsMarket };
  if (!outcome || PRONOUNS.has(outcome.toLowerCase())) return { reply: replies.stakeNeedsOutcome(ref.ref) };
  if (!amount) return { reply: replies.stakeNeedsAmount(ref.ref) };
  return {
    call: {
      name: 'stake_market',
      input: {
        market: ref.ref,
        outcome,
        amount: amount.amount,
        ...(amount.currency ? { currency: amount.currency } : {}),
      },
    },
  };
}

/**
 * "put 50 on Arsenal winning the league", "aposta 50 no Flamengo campeão, Sim!": who wins names the
 * market (the name, the win word and the words after it up to the clause's end) and, unless a yes or
 * no is said too, the side ("Arsenal winning"): the service takes that as the outcome of that name, or
 * the yes of a yes/no market asking whether that side wins (markets/match.ts), and asks otherwise.
 */
function backedSide(a: Analysis, taken: ReadonlySet<number>): { outcome: string; ref: { ref: string } } | undefined {
  const found = backsAWinner(a);
  const b = found ? { ...found } : undefined;
  const link = (b?.name ?? 0) - 1;
  if (!b || [...Array(b.win - b.name).keys()].some((k) => taken.has(b.name + k) || YES_WORDS.has(a.tokens[b.name + k]!.norm) || NO_WORDS.has(a.tokens[b.name + k]!.norm))) return undefined;
  // "a que el América gana": the article is not part of the name.
  while (b.name < b.win - 1 && ARTICLE_WORDS.has(a.tokens[b.name]!.norm.toLowerCase())) b.name++;
  let end = b.win + 1;
  while (end < a.tokens.length && a.tokens[end]!.kind === 'word' && !taken.has(end) && !a.fillers.has(end) && end - b.name < 8) end++;
  // A yes or no said elsewhere ("…, Sim!"); "no", "na", "sa" are also prepositions ("aposta 50 no Flamengo"): only
  // capitalised or closing a clause are they the side.
  // "on Arsenal winning or Chelsea winning": two sides named, none chosen.
  for (let i = b.win + 1; i < end; i++) if (isWinWord(fold(a.tokens[i]!.norm))) return undefined;
  const said = a.tokens.findIndex((_, i) => (i < link || i >= end) && !taken.has(i) && isSaidSide(a, i, link));
  const outcome = said >= 0 ? canonicalOutcome(a.tokens[said]!.text) : span(a, b.name, b.win + 1);
  // "no Mengão pra ganhar o Brasileirão": the "to" before the win word names nothing.
  const to = TO_WIN.has(fold(a.tokens[b.win - 1]!.norm)) && b.win - 1 > b.name;
  const name = span(a, b.name, to ? b.win - 1 : b.win);
  return { outcome: said >= 0 ? outcome : `${name} ${a.tokens[b.win]!.text}`, ref: { ref: `${name} ${span(a, b.win, end)}` } };
}

/** A yes or no said as the side; "no", "na", "sa" are also prepositions: only capitalised (and not the link at `link`). */
function isSaidSide(a: Analysis, i: number, link: number): boolean {
  const t = a.tokens[i]!;
  return t.kind === 'word' && t.norm.length > 1 && (YES_WORDS.has(t.norm) || NO_WORDS.has(t.norm)) && (!AMBIGUOUS_SIDES.has(t.norm) || (/^\p{Lu}/u.test(t.text) && i !== link));
}

/**
 * "aposta 30 reais no Sim no Flamengo": no word "market", but after the verb, the amount, the
 * outcome, connectors and fillers, one short run of words is left: that names the market.
 */
function unnamedMarketRef(a: Analysis, taken: ReadonlySet<number>, outcome: string | undefined): { ref: string } | undefined {
  const outcomeWords = new Set((outcome ?? '').toLowerCase().split(/\s+/).map((w) => fold(w)));
  // "on No for Arsenal", "sur Oui pour la CAN": the linker before the market's words is not one of them.
  const rest = a.tokens
    .map((t, i) => ({ t, i }))
    .filter(({ t, i }) => t.kind === 'word' && !taken.has(i) && !a.fillers.has(i) && !VERB_LEMMAS.has(a.lemmas[i]!) && !CONNECTORS.has(fold(t.norm)) && !MARKET_LINKS.has(fold(t.norm)) && !outcomeWords.has(fold(t.norm)) && !YES_WORDS.has(t.norm) && !NO_WORDS.has(t.norm));
  // "bota 30 no Não pro Flamengo, esse time tá horrível": a clause after a comma or full stop is the writer's
  // comment, not the market's name. The run stops there; the comment's words stay unplaced, so the reading
  // holds the stake for confirmation rather than asking "which market?" of a clear stake.
  const cut = rest.findIndex((r, k) => k > 0 && a.tokens.slice(rest[k - 1]!.i + 1, r.i).some((x) => x.kind === 'punct' && CLAUSE_MARKS.has(x.text)));
  if (cut > 0) rest.splice(cut);
  // Up to six: the service still finds a market only when every one of them is in its question (or means a word of it).
  if (!rest.length || rest.length > 6) return undefined;
  const first = rest[0]!.i;
  const last = rest[rest.length - 1]!.i;
  // One run: between its words only connectors ("la", "de", "do").
  for (let i = first; i <= last; i++) if (!rest.some((r) => r.i === i) && !(a.tokens[i]!.kind === 'word' && CONNECTORS.has(fold(a.tokens[i]!.norm)))) return undefined;
  return { ref: span(a, first, last + 1) };
}

function stakeOutcome(a: Analysis, used: ReadonlySet<number>): string | undefined {
  const opts = { used, stopWords: OUTCOME_STOPS };
  // Hindi postposition: "Nigeria pe", "Yes par".
  const post = a.tokens.findIndex((t, i) => i > 0 && (t.norm === 'pe' || t.norm === 'par') && !used.has(i - 1) && a.tokens[i - 1]!.kind === 'word');
  if (a.lang === 'hi' && post > 0) return canonicalOutcome(a.tokens[post - 1]!.text);
  // A yes/no right after its linker ("al Sí en la Liga MX", "sur Non pour la CAN") is the outcome,
  // before any later "en/on …" (there the market is named).
  const linked = a.tokens.findIndex((t, i) => !used.has(i) && t.kind === 'word' && t.norm.length > 1 && (YES_WORDS.has(t.norm) || NO_WORDS.has(t.norm)) && YES_NO_LINKS.has(fold(a.tokens[i - 1]?.norm ?? '')));
  if (linked >= 0) return canonicalOutcome(a.tokens[linked]!.text);
  for (let i = 0; i < a.tokens.length; i++) {
    const l = a.lemmas[i]!;
    const next = a.tokens[i + 1]?.norm ?? '';
    // Spanish/Portuguese/French "a Nigeria", "à Oui": the outcome follows "a" after the amount.
    const romanceTo = l === 'to' && ['es', 'pt', 'fr'].includes(a.lang) && a.tokens[i + 1]?.kind === 'word';
    // "for Yes", and "stake 2k for Nigeria" (a capitalised name that is not the market's).
    const forName = l === 'for' && a.tokens[i + 1]?.kind === 'word' && !used.has(i + 1) && /^\p{Lu}/u.test(a.tokens[i + 1]!.text) && a.lemmas[i + 2] !== 'market';
    // "on No for Arsenal": a yes/no right after "on" is the outcome, even where "no" is also a preposition.
    if (a.tokens[i]!.norm === 'on' && !used.has(i + 1) && a.tokens[i + 1]?.kind === 'word' && next.length > 1 && (YES_WORDS.has(next) || NO_WORDS.has(next))) return canonicalOutcome(a.tokens[i + 1]!.text);
    if (l === 'on' || romanceTo || ((l === 'for' || l === 'vote') && (YES_WORDS.has(next) || NO_WORDS.has(next))) || forName) {
      const t = freeText(a, i + 1, opts);
      if (t && !used.has(t.start) && !ARTICLE_WORDS.has(t.text.toLowerCase())) return canonicalOutcome(stripOutcomeTail(withoutArticle(t.text)));
    }
  }
  const yn = a.tokens.findIndex((t, i) => !used.has(i) && t.kind === 'word' && (YES_WORDS.has(t.norm) || NO_WORDS.has(t.norm)) && t.norm.length > 1);
  if (yn >= 0) return canonicalOutcome(a.tokens[yn]!.norm);
  // "back Arsenal with 1000 in mkt_x", "bet Arsenal 500"
  const verb = a.lemmas.findIndex((l) => ['back', 'bet', 'stake', 'wager', 'punt', 'pick', 'choose'].includes(l));
  if (verb >= 0 && !used.has(verb + 1)) {
    const t = freeText(a, verb + 1, opts);
    if (t && a.tokens[t.start]!.kind === 'word') return canonicalOutcome(stripOutcomeTail(t.text));
  }
  return undefined;
}

/** "sur le Sénégal", "al América", "on the Yes": the article is not part of the outcome's name. */
function withoutArticle(text: string): string {
  const m = /^(\S+)\s+(\S.*)$/u.exec(text);
  return m && ARTICLE_WORDS.has(m[1]!.toLowerCase()) ? m[2]! : text;
}

/** "Arsenal to win", "yes it will", "Arsenal winning" -> the outcome itself. */
function stripOutcomeTail(text: string): string {
  return text
    .replace(/\s+(?:to\s+win|wins?|winning|won|will\s+win|it\s+will|happens|is\s+(?:the\s+)?(?:winner|correct|right)|was\s+(?:the\s+)?(?:winner|correct|right))$/i, '')
    .replace(/^(?:the\s+)?(?:option|outcome|answer)\s+/i, '')
    .replace(/\s+(?:side|option|outcome)$/i, '')
    .trim();
}

// ---------------------------------------------------------------------------------------
// resolve_market / cancel_market / list_markets

const RESOLVE_MARKERS = new Set(['as', 'is', 'was', 'to', 'with', '=', ':', 'outcome', 'result', 'winner', 'answer', 'declare', 'resolve', 'be', '-', 'favour', 'favor', 'avec', 'como', 'con', 'kama', 'bilang', 'na']);
const RESOLVE_STOPS = new Set(['in', 'for', 'on', 'of', 'market', 'please', 'and', 'as', 'is', 'was', 'the', 'winner']);

export function buildResolve(a: Analysis): Draft {
  const market = findMarketRef(a);
  if (!market) return { reply: replies.resolveNeedsMarket };
  const used = rangeSet(market.start, market.end);
  for (let i = market.start - 1; i >= 0 && ['the', 'my', 'this', 'that'].includes(a.lemmas[i]!); i--) used.add(i);
  for (let i = market.end; i < a.tokens.length && a.lemmas[i] === 'market'; i++) used.add(i);
  const outcome = resolveOutcome(a, used);
  if (!outcome) return { reply: replies.resolveNeedsOutcome(market.ref) };
  return { call: { name: 'resolve_market', input: { market: market.ref, outcome } } };
}

function resolveOutcome(a: Analysis, used: ReadonlySet<number>): string | undefined {
  const found: string[] = [];
  for (let i = 0; i < a.tokens.length; i++) {
    if (used.has(i) || !RESOLVE_MARKERS.has(a.lemmas[i]!)) continue;
    let from = i + 1;
    while (a.tokens[from] && ['the', ':', '-', 'of'].includes(a.tokens[from]!.norm) && !used.has(from)) from++;
    if (used.has(from)) continue;
    const t = freeText(a, from, { used, stopWords: RESOLVE_STOPS });
    if (t && a.tokens[t.start]?.kind !== 'punct') {
      const o = stripOutcomeTail(t.text);
      if (o && !['winner', 'outcome', 'result', 'answer', 'market'].includes(o.toLowerCase()) && !PRONOUNS.has(o.toLowerCase())) found.push(o);
    }
  }
  if (found.length) return canonicalOutcome(found[found.length - 1]!);
  // "Arsenal won mkt_x", "yes won"
  const won = a.lemmas.findIndex((l, i) => (l === 'won' || a.tokens[i]!.norm === 'wins' || a.tokens[i]!.norm === 'happened') && !used.has(i));
  if (won > 0) {
    let s = won;
    while (s - 1 >= 0 && !used.has(s - 1) && a.tokens[s - 1]!.kind === 'word' && !FILLER_WORDS.has(a.lemmas[s - 1]!) && !['the', 'in', 'of', 'for', 'resolve'].includes(a.lemmas[s - 1]!)) s--;
    if (s < won) return canonicalOutcome(span(a, s, won));
  }
  const yn = a.tokens.findIndex((t, i) => !used.has(i) && t.kind === 'word' && (YES_WORDS.has(t.norm) || NO_WORDS.has(t.norm)) && t.norm.length > 1);
  if (yn >= 0) return canonicalOutcome(a.tokens[yn]!.norm);
  return undefined;
}

export function buildCancel(a: Analysis): Draft {
  const market = findMarketRef(a);
  if (!market) return { reply: replies.cancelNeedsMarket };
  return { call: { name: 'cancel_market', input: { market: market.ref } } };
}

const STATUS_WORDS: Readonly<Record<string, 'open' | 'closed' | 'resolved' | 'cancelled'>> = wordTable({
  open: 'open', active: 'open', live: 'open', ongoing: 'open', current: 'open', running: 'open', available: 'open', opened: 'open',
  now: 'open', currently: 'open', still: 'open',
  wazi: 'open', ouverts: 'open', ouvert: 'open', ouvertes: 'open', abertos: 'open', aberto: 'open', abertas: 'open', aberta: 'open', abiertos: 'open', abierto: 'open', abiertas: 'open', abierta: 'open', activos: 'open', khule: 'open', chalu: 'open',
  closed: 'closed', ended: 'closed', expired: 'closed', finished: 'closed',
  resolved: 'resolved', settled: 'resolved', decided: 'resolved', resolve: 'resolved', settle: 'resolved',
  cancelled: 'cancelled', canceled: 'cancelled', cancel: 'cancelled', voided: 'cancelled', void: 'cancelled',
});

export function buildList(a: Analysis): Draft {
  const status = a.tokens.map((t, i) => STATUS_WORDS[t.norm] ?? STATUS_WORDS[a.lemmas[i]!]).find((s) => s !== undefined);
  return { call: { name: 'list_markets', input: status ? { status } : {} } };
}
