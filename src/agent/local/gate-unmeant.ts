import type { Analysis } from './analysis.js';
import { fold } from './lexicon-i18n.js';
import { hasPhrase, NOT_NEEDED } from './gate-phrases.js';
import { MONEY_VERBS, SW_NEGATIVE, words } from './gate-words.js';

/**
 * Moves the writer names but does not mean (lead, sixteenth round): a move said to be not needed, and a
 * share of a figure given where the amount goes. Read by the gate (gate.ts): a negation, an amount that
 * could not be read.
 */

/** Verbs that make what a tool makes (a link, a market), for "no need to make the link". */
const MAKING_VERBS = words('make making create creating generate do fazer faz faca criar cria crie gerar hacer haz hagas crear crea genera faire fais fait creer cree generer tengeneza tengenezea unda fanya banao banana banado bana gawa gawin gumawa');
/** What the tools act on: a named object makes "forget the …" and "no need for the …" about a move. */
const TOOL_NOUNS = words(`
link links paylink invoice checkout bill bills airtime token tokens recharge market bet stake refund transfer payment money cash
lien facture credit marche pari mise remboursement virement paiement argent
conta boleto credito mercado aposta reembolso transferencia pagamento dinheiro grana pix
enlace liga factura apuesta transferencia pago plata lana dinero
kiungo bili salio soko bet malipo pesa hela
bill recharge paisa paise
link bayarin load taya bayad pera
`);
/** Words that say nothing of which move is meant ("no need TO send", "pas besoin D'envoyer"). */
const LINKING_WORDS = words('to for of the a an any that this it again even also more just de d du des la le les l un une ce cette o os um uma esse essa el los las una ese esa del al ya kwa za wa ki ka ke ko ne na mo ang ng yung sa pa na nang');

/**
 * "no need to send 5k to @amaka", "forget the 5000 link", "@rahul ko 500 bhejne ki zaroorat nahi": the
 * writer says a move is not needed. Read clause by clause: the first word after the phrase that is
 * not a linking word says what is not needed (a money or making verb, a tool's object, an amount, a
 * person: a negation; any other word, as in "no need to wait, send 5k": that word's); with nothing
 * after it (Hindi and French put it last: "…bhejne ki zaroorat nahi"), the clause before it does.
 */
export function isNotNeeded(a: Analysis): boolean {
  const folded = fold(a.text.toLowerCase());
  if (!hasPhrase(folded, NOT_NEEDED)) return false;
  const decisive = (w: string) => /\d/.test(w) || w.startsWith('@') || w.startsWith('+') || MONEY_VERBS.has(w) || MAKING_VERBS.has(w) || TOOL_NOUNS.has(w) || SW_NEGATIVE.test(w);
  for (const clause of folded.split(/[.;!?\n]+|,(?!\d)/)) {
    if (/\b(dont|don't|do not|never)\s+forget\b/.test(clause)) continue;
    const ws = clause.split(/[^\p{L}\p{N}@+_]+/u).filter(Boolean);
    const found = longestPhrase(ws);
    if (!found) continue;
    const after = ws.slice(found.end).filter((w) => !LINKING_WORDS.has(w));
    if (after.length ? decisive(after[0]!) : ws.slice(0, found.start).some(decisive)) return true;
  }
  return false;
}

/** NOT_NEEDED's phrases as word sequences (split as the clauses are). */
const NOT_NEEDED_WORDS = NOT_NEEDED.map((p) => p.split(/[^\p{L}\p{N}]+/u).filter(Boolean));

/** Where the longest phrase of NOT_NEEDED stands among the clause's words: [start, end). */
function longestPhrase(ws: readonly string[]): { start: number; end: number } | undefined {
  let best: { start: number; end: number } | undefined;
  for (let i = 0; i < ws.length; i++) {
    for (const p of NOT_NEEDED_WORDS) {
      if (best && p.length <= best.end - best.start) continue;
      if (p.every((w, k) => ws[i + k] === w)) best = { start: i, end: i + p.length };
    }
  }
  return best;
}

/** Shares of a whole, in the eight languages (folded): "half", "nusu", "moitié", "metade", "mitad", "aadha", "kalahati". */
const FRACTIONS = words('half halve quarter third nusu robo theluthi moitie quart tiers metade terco mitad tercio aadha aadhe aadhi adha adhe chauthai kalahati kalahating sangkapat');
const PERCENT_WORDS = words('percent per cent pourcent porcento porciento pct asilimia pratishat porsyento');
/** What may stand between a share and its whole: "half OF 10k", "nusu YA", "la moitié DE", "10k KA aadha". */
const SHARE_TIES = words('of the a de du des la le l da do del el o ya za wa ka ki ke ng sa my mi mon ma minha mio');

/**
 * "send half of 10k to @amaka", "refund 50% of pay_x", "tuma nusu ya 10k", "10k ka aadha bhej do": a share
 * of a figure, never the figure itself. The amount to move is the writer's to compute and say; the
 * words are quoted back as an amount that could not be read (nothing moves, nothing is held with the
 * whole as its amount).
 */
export function shareOfAnAmount(a: Analysis, quoted: ReadonlySet<number>): string | undefined {
  const t = a.tokens;
  const whole = (i: number) => {
    const x = t[i];
    return !!x && (x.kind === 'number' || x.kind === 'account_id' || /^(pay|pi|ch|in)_/i.test(x.text));
  };
  /** The first token past the ties from `i` in direction `dir` (at most three ties, never across punctuation). */
  const past = (i: number, dir: 1 | -1) => {
    let j = i + dir;
    for (let k = 0; k < 3 && t[j]?.kind === 'word' && SHARE_TIES.has(fold(t[j]!.norm)); k++) j += dir;
    return j;
  };
  for (let i = 0; i < t.length; i++) {
    if (quoted.has(i)) continue;
    const x = t[i]!;
    const f = fold(x.norm);
    const isPercent = x.kind === 'number' && (t[i + 1]?.text === '%' || PERCENT_WORDS.has(fold(t[i + 1]?.norm ?? '')));
    if (x.kind === 'word' && FRACTIONS.has(f)) {
      const ahead = past(i, 1);
      if (whole(ahead)) return a.text.slice(x.start, t[ahead]!.end);
      const behind = past(i, -1);
      if (behind < i - 1 && whole(behind)) return a.text.slice(t[behind]!.start, x.end);
    } else if (isPercent) {
      const ahead = past(i + 1, 1);
      if (ahead > i + 2 && whole(ahead)) return a.text.slice(x.start, t[ahead]!.end);
    } else if (x.kind === 'word' && f === 'asilimia' && t[i + 1]?.kind === 'number') {
      const ahead = past(i + 1, 1);
      if (ahead > i + 2 && whole(ahead)) return a.text.slice(x.start, t[ahead]!.end);
    }
  }
  return undefined;
}

const HALVES = words('half halve nusu moitie metade mitad aadha aadhe aadhi adha adhe kalahati kalahating');
const QUARTERS = words('quarter robo quart chauthai sangkapat');
const THIRDS = words('third theluthi tiers terco tercio');

/**
 * The share a message asks about, as a fraction: "half of 10k" 1/2, "a quarter of" 1/4, "20% of" 20/100.
 * Only for a question about a price (a quote moves nothing): the figure asked about is then the share,
 * never the whole. Undefined when no share of an amount is named, or it is not one of these.
 */
export function shareFraction(a: Analysis): { num: bigint; den: bigint } | undefined {
  if (!shareOfAnAmount(a, new Set())) return undefined;
  for (let i = 0; i < a.tokens.length; i++) {
    const x = a.tokens[i]!;
    const f = fold(x.norm);
    if (x.kind === 'word' && HALVES.has(f)) return { num: 1n, den: 2n };
    if (x.kind === 'word' && QUARTERS.has(f)) return { num: 1n, den: 4n };
    if (x.kind === 'word' && THIRDS.has(f)) return { num: 1n, den: 3n };
    const next = a.tokens[i + 1];
    if (x.kind === 'number' && /^\d{1,3}$/.test(x.text) && (next?.text === '%' || PERCENT_WORDS.has(fold(next?.norm ?? '')))) return { num: BigInt(x.text), den: 100n };
  }
  return undefined;
}

/** `amount` (a decimal string) times the fraction, exact to two decimals, or undefined. */
export function shareOfDecimal(amount: string, share: { num: bigint; den: bigint }): string | undefined {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(amount);
  if (!m) return undefined;
  const cents = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0') || '0');
  const scaled = cents * share.num;
  if (scaled % share.den !== 0n || scaled === 0n) return undefined;
  const v = scaled / share.den;
  const frac = v % 100n;
  return frac === 0n ? String(v / 100n) : `${v / 100n}.${String(frac).padStart(2, '0').replace(/0$/, '')}`;
}
