import type { Lang } from './language.js';

/**
 * Integers written out in words in each corridor language, the inverse of the reader
 * (./number-words.ts): the property tests write random amounts with it and read them back.
 */

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
