import type { Lang } from './language.js';
import { fold } from './lexicon-i18n.js';

/**
 * Numbers written in words, in every corridor language, up to the millions: "twenty",
 * "two thousand five hundred", "elfu tatu", "deux mille", "dois mil", "veinte",
 * "do hazaar", "dalawang libo". A run of number words reads as one exact integer (or
 * x.5 with "dhai"/"dedh"), or not at all; a run that does not parse as one number is left
 * as words and so is never an amount.
 */

type Word = { value: number; kind: 'unit' | 'hundred' | 'scale' | 'link' | 'half' };

const u = (value: number): Word => ({ value, kind: 'unit' });
const h = (value: number): Word => ({ value, kind: 'hundred' });
const s = (value: number): Word => ({ value, kind: 'scale' });
const LINK: Word = { value: 0, kind: 'link' };

function units(spec: string, start = 0, step = 1): Record<string, Word> {
  const out: Record<string, Word> = {};
  spec.split(/\s+/).filter(Boolean).forEach((w, i) => {
    for (const alt of w.split('/')) out[alt] = u(start + i * step);
  });
  return out;
}

const EN: Record<string, Word> = {
  ...units('zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'),
  ...units('twenty thirty forty/fourty fifty sixty seventy eighty ninety', 20, 10),
  hundred: h(100),
  thousand: s(1000),
  million: s(1_000_000),
  and: LINK,
};

const FR: Record<string, Word> = {
  ...units('zero un/une deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize'),
  ...units('vingt trente quarante cinquante soixante', 20, 10),
  cent: h(100),
  cents: h(100),
  mille: s(1000),
  mil: s(1000),
  million: s(1_000_000),
  millions: s(1_000_000),
  et: LINK,
};

const ES: Record<string, Word> = {
  ...units('cero uno/un/una dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciseis diecisiete dieciocho diecinueve veinte veintiuno/veintiun veintidos veintitres veinticuatro veinticinco veintiseis veintisiete veintiocho veintinueve'),
  ...units('treinta cuarenta cincuenta sesenta setenta ochenta noventa', 30, 10),
  ...units('cien/ciento doscientos/doscientas trescientos/trescientas cuatrocientos/cuatrocientas quinientos/quinientas seiscientos/seiscientas setecientos/setecientas ochocientos/ochocientas novecientos/novecientas', 100, 100),
  mil: s(1000),
  millon: s(1_000_000),
  millones: s(1_000_000),
  y: LINK,
};

const PT: Record<string, Word> = {
  ...units('zero um/uma dois/duas tres quatro cinco seis sete oito nove dez onze doze treze catorze/quatorze quinze dezesseis/dezasseis dezessete/dezassete dezoito dezenove/dezanove vinte'),
  ...units('trinta quarenta cinquenta sessenta setenta oitenta noventa', 30, 10),
  ...units('cem/cento duzentos/duzentas trezentos/trezentas quatrocentos/quatrocentas quinhentos/quinhentas seiscentos/seiscentas setecentos/setecentas oitocentos/oitocentas novecentos/novecentas', 100, 100),
  mil: s(1000),
  milhao: s(1_000_000),
  milhoes: s(1_000_000),
  e: LINK,
};

const HI: Record<string, Word> = {
  ...units('ek do teen/tin char/chaar paanch/panch/paach chhe/che/chheh saat/sat aath/ath nau das gyarah/gyara barah/bara terah/tera chaudah/chauda pandrah/pandra solah/sola satrah/satra atharah/athara unnees/unnis bees/bis', 1),
  pachees: u(25), pachis: u(25),
  tees: u(30), tis: u(30), chalees: u(40), chalis: u(40), pachaas: u(50), pachas: u(50), saath: u(60), sattar: u(70), assi: u(80), nabbe: u(90),
  sau: h(100),
  hazaar: s(1000), hazar: s(1000), hajar: s(1000), hazaar_: s(1000),
  lakh: s(100_000), lac: s(100_000), lakhs: s(100_000),
  crore: s(10_000_000), karod: s(10_000_000),
  dhai: { value: 2.5, kind: 'half' },
  dedh: { value: 1.5, kind: 'half' },
  sadhe: { value: 0.5, kind: 'half' },
};

const TL: Record<string, Word> = {
  ...units('isa dalawa tatlo apat lima anim pito walo siyam sampu', 1),
  ...units('dalawampu tatlumpu apatnapu limampu animnapu pitumpu walumpu siyamnapu', 20, 10),
  daan: h(100), raan: h(100), sandaan: { value: 100, kind: 'unit' },
  libo: s(1000), sanlibo: { value: 1000, kind: 'unit' },
  milyon: s(1_000_000),
  at: LINK,
  na: LINK,
};

const TABLES: Partial<Record<Lang, Record<string, Word>>> = { en: EN, pcm: EN, fr: FR, es: ES, pt: PT, hi: HI, tl: TL };

/** Swahili puts the multiplier after the scale word: "elfu tatu" = 3000, "mia tano" = 500. */
const SW_UNITS: Record<string, number> = {
  sifuri: 0, moja: 1, mbili: 2, tatu: 3, nne: 4, tano: 5, sita: 6, saba: 7, nane: 8, tisa: 9,
  kumi: 10, ishirini: 20, thelathini: 30, arobaini: 40, hamsini: 50, sitini: 60, sabini: 70, themanini: 80, tisini: 90,
};
const SW_SCALES: Record<string, number> = { mia: 100, elfu: 1000, thao: 1000, laki: 100_000, milioni: 1_000_000 };

/** Words that are also articles or common words: a number only when another number word follows. */
const WEAK: Partial<Record<Lang, ReadonlySet<string>>> = {
  en: new Set(['one']),
  pcm: new Set(['one']),
  fr: new Set(['un', 'une']),
  es: new Set(['un', 'una', 'uno']),
  pt: new Set(['um', 'uma', 'e']),
  hi: new Set(['do', 'ek', 'sat', 'tin', 'che', 'nau', 'bis', 'tis', 'das', 'sola', 'bara', 'ath', 'saath']),
  tl: new Set(['isa', 'at', 'anim', 'pito']),
};

export type SpelledNumber = { value: string; length: number; /** one weak word ("un", "do") on its own */ weak: boolean };

/** Splits hyphenated and linker forms into words: "twenty-five", "quatre-vingt", "dalawang". */
export function numberWordParts(word: string, lang: Lang): string[] {
  const w = fold(word.toLowerCase());
  const parts = w.split(/[-‐]/).filter(Boolean);
  if (lang === 'tl') {
    // The linker -ng: "dalawang libo", "limang daan", "isang".
    return parts.map((p) => (p.endsWith('ng') && TL[p.slice(0, -2)] ? p.slice(0, -2) : p));
  }
  return parts;
}

function isNumberWord(word: string, lang: Lang): boolean {
  if (lang === 'sw') return word in SW_UNITS || word in SW_SCALES || word === 'na';
  const t = TABLES[lang];
  if (!t) return false;
  if (lang === 'fr' && word === 'vingts') return true;
  return word in t;
}

/**
 * Reads the longest run of number words starting at `words[0]` (already split into parts,
 * one entry per token). Returns the value and how many tokens it used, or undefined.
 */
export function readNumberWords(tokens: readonly string[], lang: Lang): SpelledNumber | undefined {
  const table = lang === 'sw' ? undefined : TABLES[lang];
  if (lang !== 'sw' && !table) return undefined;
  // Longest prefix of tokens whose parts are all number words.
  const parts: string[][] = [];
  for (const tok of tokens) {
    const p = numberWordParts(tok, lang);
    if (!p.length || !p.every((x) => isNumberWord(x, lang))) break;
    parts.push(p);
  }
  // Two amounts side by side ("do hazaar do hazaar", "five hundred five hundred"): when the whole
  // run is not one number but splits into two that are, the first ends where the second starts;
  // never the longest prefix, which would glue a word of the second onto the first (2,002,000).
  const whole = parts.length > 1 ? readRun(parts, lang) : undefined;
  if (parts.length > 1 && !whole) {
    for (let k = parts.length - 1; k > 0; k--) {
      const second = parts[k]![0]!;
      if (startsNoNumber(second, lang)) continue;
      const head = readRun(parts.slice(0, k), lang);
      if (head && readRun(parts.slice(k), lang)) return head;
    }
  }
  for (let n = parts.length; n > 0; n--) {
    const flat = parts.slice(0, n).flat();
    // A run may not start or end with a linking word ("and", "na", "y").
    const first = flat[0]!;
    const last = flat[flat.length - 1]!;
    if (isLink(first, lang) || isLink(last, lang)) continue;
    const weak = flat.length === 1 && Boolean(WEAK[lang]?.has(first));
    const value = lang === 'sw' ? readSwahili(flat) : readAdditive(flat, lang);
    if (value !== undefined && value > 0) return { value: formatValue(value), length: n, weak };
  }
  return undefined;
}

/** The whole of `parts` read as one number, or undefined. */
function readRun(parts: readonly string[][], lang: Lang): SpelledNumber | undefined {
  const flat = parts.flat();
  if (isLink(flat[0]!, lang) || isLink(flat[flat.length - 1]!, lang)) return undefined;
  const value = lang === 'sw' ? readSwahili(flat) : readAdditive(flat, lang);
  if (value === undefined || value <= 0) return undefined;
  return { value: formatValue(value), length: parts.length, weak: flat.length === 1 && Boolean(WEAK[lang]?.has(flat[0]!)) };
}

/** A word no number starts with in English order: a bare "thousand", "hundred" or "and" continues one. */
function startsNoNumber(word: string, lang: Lang): boolean {
  if (lang === 'sw') return word === 'na';
  const kind = TABLES[lang]?.[word]?.kind;
  return kind === 'scale' || kind === 'hundred' || kind === 'link';
}

function unitsAdd(prev: number, next: number, lang: Lang): boolean {
  const place = 10 ** String(next).length;
  if (prev > next && prev % place === 0) return true;
  // "soixante-dix" (70), "quatre-vingt-douze" (92).
  return lang === 'fr' && (prev === 60 || prev === 80) && next >= 10 && next < 20;
}

function isLink(word: string, lang: Lang): boolean {
  return lang === 'sw' ? word === 'na' : TABLES[lang]?.[word]?.kind === 'link';
}

function formatValue(v: number): string {
  // Values are integers or halves below 10^10: exact in a double.
  return Number.isInteger(v) ? String(v) : v.toFixed(1).replace(/\.0$/, '');
}

/**
 * English-order grammar (units, then hundred, then a scale), used by every language but
 * Swahili: total = sum of (group x scale), scales strictly decreasing.
 */
function readAdditive(words: readonly string[], lang: Lang): number | undefined {
  const table = TABLES[lang]!;
  let total = 0;
  let group = 0;
  let lastScale = Infinity;
  let groupHasHundred = false;
  let prevKind: Word['kind'] | undefined;
  let prevValue = 0;
  let half: number | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    // "quatre-vingt(s)" = 80: vingt multiplies a preceding quatre.
    if (lang === 'fr' && (w === 'vingt' || w === 'vingts') && prevKind === 'unit' && prevValue === 4) {
      group += 76; // 4 already counted
      prevKind = 'unit';
      prevValue = 80;
      continue;
    }
    const word = table[w];
    if (!word) return undefined;
    switch (word.kind) {
      case 'link':
        // "and" joins; the word before it still decides what may follow.
        continue;
      case 'half':
        if (half !== undefined || group !== 0) return undefined;
        half = word.value;
        break;
      case 'unit': {
        if (half !== undefined) return undefined;
        // Units add up only from larger to smaller places: "twenty five", "doscientos cincuenta", not "five twenty".
        if (prevKind === 'unit' && !unitsAdd(prevValue, word.value, lang)) return undefined;
        if (prevKind === 'hundred' && word.value >= 100) return undefined;
        group += word.value;
        break;
      }
      case 'hundred': {
        if (groupHasHundred) return undefined;
        group = (group === 0 ? 1 : group) * word.value;
        groupHasHundred = true;
        break;
      }
      case 'scale': {
        let mult = group === 0 ? 1 : group;
        if (half !== undefined) {
          if (group !== 0) return undefined;
          mult = half;
          half = undefined;
        }
        if (word.value >= lastScale) return undefined;
        total += mult * word.value;
        lastScale = word.value;
        group = 0;
        groupHasHundred = false;
        break;
      }
    }
    prevKind = word.kind;
    prevValue = word.value;
  }
  if (half !== undefined) return undefined;
  return total + group;
}

/** "elfu mbili na mia tano" = 2500, "laki moja" = 100000, "kumi na tano" = 15. */
function readSwahili(words: readonly string[]): number | undefined {
  let i = 0;
  const below100 = (): number | undefined => {
    const w = words[i];
    if (w === undefined || !(w in SW_UNITS)) return undefined;
    let v = SW_UNITS[w]!;
    i++;
    if (v >= 10 && v % 10 === 0 && words[i] === 'na' && words[i + 1] !== undefined && (SW_UNITS[words[i + 1]!] ?? 10) < 10) {
      v += SW_UNITS[words[i + 1]!]!;
      i += 2;
    }
    return v;
  };
  const below = (limit: number): number | undefined => {
    // A group under `limit`: "mia tano na kumi", "ishirini na tano", "mbili".
    const w = words[i];
    if (w === undefined) return undefined;
    if (w === 'mia' && limit > 100) {
      i++;
      const m = below100() ?? 1;
      let v = m * 100;
      if (words[i] === 'na' && words[i + 1] !== undefined && words[i + 1] !== 'mia' && words[i + 1]! in SW_UNITS) {
        i++;
        v += below100()!;
      }
      return v;
    }
    return below100();
  };
  let total = 0;
  let lastScale = Infinity;
  while (i < words.length) {
    const w = words[i]!;
    if (w === 'na') {
      if (i === 0) return undefined;
      i++;
      continue;
    }
    const scale = SW_SCALES[w];
    if (scale !== undefined && scale >= 1000) {
      if (scale >= lastScale) return undefined;
      i++;
      const m = below(scale === 1000 || scale === 100_000 ? 1000 : 1000) ?? 1;
      total += m * scale;
      lastScale = scale;
      continue;
    }
    const v = below(lastScale === Infinity ? 1000 : Math.min(lastScale, 1000));
    if (v === undefined) return undefined;
    if (v >= lastScale) return undefined;
    total += v;
    lastScale = 1;
    if (i < words.length && words[i] !== 'na') return undefined;
  }
  return total;
}

/** Renders an integer in words (the property tests use this to write random amounts). */
export function toWords(n: number, lang: Lang): string {
  if (!Number.isInteger(n) || n <= 0 || n >= 1e9) throw new RangeError(`toWords: ${n}`);
  switch (lang) {
    case 'sw':
      return swWords(n);
    case 'fr':
      return scaled(n, frBelow1000, (m) => (m === 1 ? 'mille' : `${frBelow1000(m)} mille`), (m) => `${m === 1 ? 'un' : frBelow1000(m)} million${m > 1 ? 's' : ''}`);
    case 'es':
      return scaled(n, esBelow1000, (m) => (m === 1 ? 'mil' : `${esBelow1000(m)} mil`), (m) => (m === 1 ? 'un millon' : `${esBelow1000(m)} millones`));
    case 'pt':
      return scaled(n, ptBelow1000, (m) => (m === 1 ? 'mil' : `${ptBelow1000(m)} mil`), (m) => (m === 1 ? 'um milhao' : `${ptBelow1000(m)} milhoes`));
    case 'hi':
      return hiWords(n);
    case 'tl':
      return scaled(n, tlBelow1000, (m) => `${tlLinked(tlBelow1000(m))} libo`, (m) => `${tlLinked(tlBelow1000(m))} milyon`);
    default:
      return scaled(n, enBelow1000, (m) => `${enBelow1000(m)} thousand`, (m) => `${enBelow1000(m)} million`);
  }
}

function scaled(n: number, below: (n: number) => string, thousands: (m: number) => string, millions: (m: number) => string): string {
  const parts: string[] = [];
  const mil = Math.floor(n / 1e6);
  const th = Math.floor((n % 1e6) / 1000);
  const rest = n % 1000;
  if (mil) parts.push(millions(mil));
  if (th) parts.push(thousands(th));
  if (rest) parts.push(below(rest));
  return parts.join(' ');
}

const EN_U = 'zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'.split(' ');
const EN_T = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
function enBelow100(n: number): string {
  return n < 20 ? EN_U[n]! : `${EN_T[Math.floor(n / 10)]}${n % 10 ? `-${EN_U[n % 10]}` : ''}`;
}
function enBelow1000(n: number): string {
  const hd = Math.floor(n / 100);
  const r = n % 100;
  return [hd ? `${EN_U[hd]} hundred` : '', r ? (hd ? `and ${enBelow100(r)}` : enBelow100(r)) : ''].filter(Boolean).join(' ');
}

const FR_U = 'zero un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize'.split(' ');
function frBelow100(n: number): string {
  if (n <= 16) return FR_U[n]!;
  if (n < 20) return `dix-${FR_U[n - 10]}`;
  const T: Record<number, string> = { 2: 'vingt', 3: 'trente', 4: 'quarante', 5: 'cinquante', 6: 'soixante' };
  const t = Math.floor(n / 10);
  const r = n % 10;
  if (t <= 6) return r === 0 ? T[t]! : r === 1 ? `${T[t]} et un` : `${T[t]}-${FR_U[r]}`;
  if (t === 7) return n === 71 ? 'soixante et onze' : `soixante-${frBelow100(n - 60)}`;
  if (t === 8) return r === 0 ? 'quatre-vingts' : `quatre-vingt-${FR_U[r]}`;
  return `quatre-vingt-${frBelow100(n - 80)}`;
}
function frBelow1000(n: number): string {
  const hd = Math.floor(n / 100);
  const r = n % 100;
  const head = hd === 0 ? '' : hd === 1 ? 'cent' : `${FR_U[hd]} cent${r === 0 ? 's' : ''}`;
  return [head, r ? frBelow100(r) : ''].filter(Boolean).join(' ');
}

const ES_U = 'cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciseis diecisiete dieciocho diecinueve veinte veintiuno veintidos veintitres veinticuatro veinticinco veintiseis veintisiete veintiocho veintinueve'.split(' ');
const ES_T = ['', '', '', 'treinta', 'cuarenta', 'cincuenta', 'sesenta', 'setenta', 'ochenta', 'noventa'];
const ES_H = ['', 'ciento', 'doscientos', 'trescientos', 'cuatrocientos', 'quinientos', 'seiscientos', 'setecientos', 'ochocientos', 'novecientos'];
function esBelow1000(n: number): string {
  if (n === 100) return 'cien';
  const hd = Math.floor(n / 100);
  const r = n % 100;
  const rest = r === 0 ? '' : r < 30 ? ES_U[r]! : `${ES_T[Math.floor(r / 10)]}${r % 10 ? ` y ${ES_U[r % 10]}` : ''}`;
  return [ES_H[hd], rest].filter(Boolean).join(' ');
}

const PT_U = 'zero um dois tres quatro cinco seis sete oito nove dez onze doze treze catorze quinze dezesseis dezessete dezoito dezenove'.split(' ');
const PT_T = ['', '', 'vinte', 'trinta', 'quarenta', 'cinquenta', 'sessenta', 'setenta', 'oitenta', 'noventa'];
const PT_H = ['', 'cento', 'duzentos', 'trezentos', 'quatrocentos', 'quinhentos', 'seiscentos', 'setecentos', 'oitocentos', 'novecentos'];
function ptBelow1000(n: number): string {
  if (n === 100) return 'cem';
  const hd = Math.floor(n / 100);
  const r = n % 100;
  const rest = r === 0 ? '' : r < 20 ? PT_U[r]! : `${PT_T[Math.floor(r / 10)]}${r % 10 ? ` e ${PT_U[r % 10]}` : ''}`;
  return [PT_H[hd], rest].filter(Boolean).join(' e ');
}

const HI_U = 'zero ek do teen char paanch chhe saat aath nau das gyarah barah terah chaudah pandrah solah satrah atharah unnees bees'.split(' ');
function hiBelow100(n: number): string {
  // Only the round tens and small numbers people type in Hinglish; others are digits.
  if (n <= 20) return HI_U[n]!;
  const T: Record<number, string> = { 30: 'tees', 40: 'chalees', 50: 'pachaas', 60: 'saath', 70: 'sattar', 80: 'assi', 90: 'nabbe', 25: 'pachees' };
  return T[n] ?? String(n);
}
function hiWords(n: number): string {
  const parts: string[] = [];
  const lakh = Math.floor(n / 100_000);
  const th = Math.floor((n % 100_000) / 1000);
  const hd = Math.floor((n % 1000) / 100);
  const r = n % 100;
  if (lakh) parts.push(`${hiBelow100(lakh)} lakh`);
  if (th) parts.push(`${hiBelow100(th)} hazaar`);
  if (hd) parts.push(`${HI_U[hd]} sau`);
  if (r) parts.push(hiBelow100(r));
  return parts.join(' ');
}

const TL_U = 'zero isa dalawa tatlo apat lima anim pito walo siyam'.split(' ');
const TL_T = ['', 'sampu', 'dalawampu', 'tatlumpu', 'apatnapu', 'limampu', 'animnapu', 'pitumpu', 'walumpu', 'siyamnapu'];
function tlLinked(word: string): string {
  // The linker goes on the last word: "dalawang", "apat na".
  const w = word.split(' ');
  const last = w.pop()!;
  const linked = /[aeiou]$/.test(last) ? `${last}ng` : `${last} na`;
  return [...w, linked].join(' ');
}
function tlBelow1000(n: number): string {
  const hd = Math.floor(n / 100);
  const r = n % 100;
  const parts: string[] = [];
  if (hd) parts.push(`${tlLinked(TL_U[hd]!)} daan`);
  if (r) {
    if (r < 10) parts.push(TL_U[r]!);
    else if (r % 10 === 0) parts.push(TL_T[r / 10]!);
    else if (r < 20) parts.push(String(r));
    else parts.push(`${tlLinked(TL_T[Math.floor(r / 10)]!)} ${TL_U[r % 10]}`);
  }
  return parts.join(' at ');
}

const SW_U = ['', 'moja', 'mbili', 'tatu', 'nne', 'tano', 'sita', 'saba', 'nane', 'tisa'];
const SW_T = ['', 'kumi', 'ishirini', 'thelathini', 'arobaini', 'hamsini', 'sitini', 'sabini', 'themanini', 'tisini'];
function swBelow100(n: number): string {
  const t = Math.floor(n / 10);
  const r = n % 10;
  if (!t) return SW_U[r]!;
  return r ? `${SW_T[t]} na ${SW_U[r]}` : SW_T[t]!;
}
function swBelow1000(n: number): string {
  const hd = Math.floor(n / 100);
  const r = n % 100;
  const parts: string[] = [];
  if (hd) parts.push(`mia ${SW_U[hd]}`);
  if (r) parts.push(swBelow100(r));
  return parts.join(' na ');
}
function swWords(n: number): string {
  const parts: string[] = [];
  const mil = Math.floor(n / 1e6);
  const th = Math.floor((n % 1e6) / 1000);
  const rest = n % 1000;
  if (mil) parts.push(`milioni ${swBelow1000(mil)}`);
  if (th) parts.push(`elfu ${swBelow1000(th)}`);
  if (rest) parts.push(swBelow1000(rest));
  return parts.join(' na ');
}
