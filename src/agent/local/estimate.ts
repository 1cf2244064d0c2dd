import type { Analysis } from './analysis.js';
import type { MoneyMention } from './amounts.js';
import { fold } from './lexicon-i18n.js';

/**
 * An amount the writer did not fix (issue h16): an estimate ("about 5k", "environ 5000", "uns 50",
 * "como 500", "lagbhag 500", "mga 500") or a bound ("up to 100", "at most 100", "jusqu'à 5000",
 * "até 50", "hasta 500", "hadi 500") written right before it, or a rounding after it ("5k or so",
 * "100ish", "500 hivi", "500 ke aas paas"). The figure is a guess or a ceiling, never the amount to
 * move or to ask for: a money-moving call holds (reading.ts), a payment link asks how much
 * (build-payment-link.ts). Phrases are folded (no accents), in the eight corridor languages.
 */
const BEFORE: readonly (readonly string[])[] = [
  // en / pcm
  'about', 'around', 'roughly', 'approx', 'approximately', 'circa', 'nearly', 'almost', 'abt', 'arnd',
  'up to', 'upto', 'at most', 'at least', 'no more than', 'not more than', 'less than', 'more than', 'max', 'maximum', 'min', 'minimum', 'not above', 'not over',
  // fr
  'environ', 'a peu pres', 'pres de', 'presque', "jusqu'a", 'jusqu a', 'jusqua', 'au plus', 'au moins', 'moins de', 'plus de', 'dans les',
  // pt
  'uns', 'umas', 'cerca de', 'mais ou menos', 'tipo', 'quase', 'ate', 'no maximo', 'no minimo', 'aproximadamente', 'aprox', 'uns tipo',
  // es
  'unos', 'unas', 'como', 'mas o menos', 'aproximadamente', 'alrededor de', 'casi', 'hasta', 'maximo', 'minimo', 'cerca de',
  // sw
  'karibu', 'takriban', 'hadi', 'mpaka', 'angalau', 'zaidi ya', 'chini ya', 'kama',
  // hi
  'lagbhag', 'takreeban', 'kareeb', 'qareeb', 'zyada se zyada', 'kam se kam',
  // tl
  'mga', 'halos', 'hanggang', 'humigit kumulang', 'di bababa sa', 'mahigit', 'lagpas',
].map((p) => p.split(' '));
/** After the amount: "5k or so", "500 give or take", "500 hivi", "500 ke aas paas", "500 tak", "500 pataas". */
const AFTER: readonly (readonly string[])[] = [
  'or so', 'give or take', 'or thereabouts', 'ish', 'or more', 'or less', 'max', 'tops', 'at most', 'at least',
  'environ', 'a peu pres', 'maximum', 'minimum', 'max', 'au plus',
  'mais ou menos', 'no maximo', 'no minimo', 'por ai',
  'mas o menos', 'aprox', 'maximo', 'minimo',
  'hivi', 'hivi hivi', 'na kitu',
  'ke aas paas', 'ke aaspaas', 'ke kareeb', 'tak',
  'pataas', 'pababa',
].map((p) => p.split(' '));

/** Token indices of the estimate or bound around `mention`, or none: the amount is exact. */
export function estimateAround(a: Analysis, mention: Pick<MoneyMention, 'first' | 'end' | 'index'>): number[] {
  const t = a.tokens;
  // The word as typed, folded; and its lemma, which drops a French elision ("d'environ" -> "environ").
  const is = (i: number, w: string) => {
    const x = t[i];
    if (!x || (x.kind !== 'word' && x.kind !== 'symbol' && x.kind !== 'punct')) return false;
    return fold(x.norm).replace(/[’]/g, "'") === w || (x.kind === 'word' && fold(a.lemmas[i] ?? '') === w && /^(?:d|qu)['’]/i.test(x.text));
  };
  // "~5000", "±5000": a sign of approximation glued before the figure.
  if (mention.first > 0 && ['~', '±', '≈'].includes(t[mention.first - 1]!.text)) return [mention.first - 1];
  if (/^(~|±|≈)/.test(t[mention.index]?.text ?? '') || /ish$/i.test(t[mention.end - 1]?.text ?? '')) return [mention.index];
  for (const p of BEFORE) {
    const start = mention.first - p.length;
    if (start < 0) continue;
    // "jusqu'à" may be one token or two ("jusqu'", "à").
    if (p.every((w, k) => is(start + k, w))) return p.map((_, k) => start + k);
  }
  // "jusqu'à 5000" typed as one token before the amount.
  if (mention.first > 0 && /^jusqu.?a$/.test(fold(t[mention.first - 1]!.norm))) return [mention.first - 1];
  for (const p of AFTER) {
    if (p.every((w, k) => is(mention.end + k, w))) return p.map((_, k) => mention.end + k);
  }
  return [];
}
