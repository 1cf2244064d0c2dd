import type { Lang } from './language.js';
import { wordTable } from '../../lib/word-table.js';

/**
 * The number words of each corridor language, by what they do in a number: a unit ("five",
 * "cinq", "lima"), a hundred ("quinientos"), a scale ("thousand", "hazaar", "libo"), a link
 * ("and", "y", "na"). The reader (./number-words.ts) reads a run of them as one integer.
 */

/**
 * `half`: a whole multiplier of the next hundred or scale ("dhai sau" 250, "dedh lakh" 150,000);
 * `quarter`: a share added to the unit after it, or to one when a hundred or scale follows at once
 * ("saadhe teen sau" 350, "sawa sau" 125, "paune do hazaar" 1,750, "paune sau" 75).
 */
export type Word = { value: number; kind: 'unit' | 'hundred' | 'scale' | 'link' | 'half' | 'quarter'; /** `quarter` only: a unit must follow ("saadhe") */ needsUnit?: boolean };

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

const EN: Readonly<Record<string, Word>> = wordTable({
  ...units('zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen'),
  ...units('twenty thirty forty/fourty fifty sixty seventy eighty ninety', 20, 10),
  hundred: h(100),
  thousand: s(1000),
  million: s(1_000_000),
  and: LINK,
});

const FR: Readonly<Record<string, Word>> = wordTable({
  ...units('zero un/une deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize'),
  ...units('vingt trente quarante cinquante soixante', 20, 10),
  cent: h(100),
  cents: h(100),
  mille: s(1000),
  mil: s(1000),
  million: s(1_000_000),
  millions: s(1_000_000),
  et: LINK,
});

const ES: Readonly<Record<string, Word>> = wordTable({
  ...units('cero uno/un/una dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce quince dieciseis diecisiete dieciocho diecinueve veinte veintiuno/veintiun veintidos veintitres veinticuatro veinticinco veintiseis veintisiete veintiocho veintinueve'),
  ...units('treinta cuarenta cincuenta sesenta setenta ochenta noventa', 30, 10),
  ...units('cien/ciento doscientos/doscientas trescientos/trescientas cuatrocientos/cuatrocientas quinientos/quinientas seiscientos/seiscientas setecientos/setecientas ochocientos/ochocientas novecientos/novecientas', 100, 100),
  mil: s(1000),
  millon: s(1_000_000),
  millones: s(1_000_000),
  y: LINK,
});

const PT: Readonly<Record<string, Word>> = wordTable({
  ...units('zero um/uma dois/duas tres quatro cinco seis sete oito nove dez onze doze treze catorze/quatorze quinze dezesseis/dezasseis dezessete/dezassete dezoito dezenove/dezanove vinte'),
  ...units('trinta quarenta cinquenta sessenta setenta oitenta noventa', 30, 10),
  ...units('cem/cento duzentos/duzentas trezentos/trezentas quatrocentos/quatrocentas quinhentos/quinhentas seiscentos/seiscentas setecentos/setecentas oitocentos/oitocentas novecentos/novecentas', 100, 100),
  mil: s(1000),
  milhao: s(1_000_000),
  milhoes: s(1_000_000),
  e: LINK,
});

const HI: Readonly<Record<string, Word>> = wordTable({
  ...units('ek do teen/tin char/chaar paanch/panch/paach chhe/che/chheh saat/sat aath/ath nau das gyarah/gyara barah/bara terah/tera chaudah/chauda pandrah/pandra solah/sola satrah/satra atharah/athara unnees/unnis bees/bis', 1),
  pachees: u(25), pachis: u(25),
  tees: u(30), tis: u(30), chalees: u(40), chalis: u(40), pachaas: u(50), pachas: u(50), saath: u(60), sattar: u(70), assi: u(80), nabbe: u(90),
  sau: h(100),
  hazaar: s(1000), hazar: s(1000), hajar: s(1000), hazaar_: s(1000),
  lakh: s(100_000), lac: s(100_000), lakhs: s(100_000),
  crore: s(10_000_000), karod: s(10_000_000),
  dhai: { value: 2.5, kind: 'half' }, dhaai: { value: 2.5, kind: 'half' }, adhai: { value: 2.5, kind: 'half' }, dhayi: { value: 2.5, kind: 'half' },
  dedh: { value: 1.5, kind: 'half' }, derh: { value: 1.5, kind: 'half' }, dhed: { value: 1.5, kind: 'half' }, deedh: { value: 1.5, kind: 'half' },
  sadhe: { value: 0.5, kind: 'quarter', needsUnit: true }, saadhe: { value: 0.5, kind: 'quarter', needsUnit: true }, sade: { value: 0.5, kind: 'quarter', needsUnit: true }, saade: { value: 0.5, kind: 'quarter', needsUnit: true },
  sawa: { value: 0.25, kind: 'quarter' }, sava: { value: 0.25, kind: 'quarter' }, sawaa: { value: 0.25, kind: 'quarter' }, savaa: { value: 0.25, kind: 'quarter' },
  paune: { value: -0.25, kind: 'quarter' }, pone: { value: -0.25, kind: 'quarter' }, paunay: { value: -0.25, kind: 'quarter' },
});

export const TL: Readonly<Record<string, Word>> = wordTable({
  ...units('isa dalawa tatlo apat lima anim pito walo siyam sampu', 1),
  ...units('dalawampu tatlumpu apatnapu limampu animnapu pitumpu walumpu siyamnapu', 20, 10),
  daan: h(100), raan: h(100), sandaan: { value: 100, kind: 'unit' },
  libo: s(1000), sanlibo: { value: 1000, kind: 'unit' },
  milyon: s(1_000_000),
  at: LINK,
  na: LINK,
});

export const TABLES: Partial<Record<Lang, Record<string, Word>>> = { en: EN, pcm: EN, fr: FR, es: ES, pt: PT, hi: HI, tl: TL };

/** Swahili puts the multiplier after the scale word: "elfu tatu" = 3000, "mia tano" = 500. */
export const SW_UNITS: Readonly<Record<string, number>> = wordTable({
  sifuri: 0, moja: 1, mbili: 2, tatu: 3, nne: 4, tano: 5, sita: 6, saba: 7, nane: 8, tisa: 9,
  kumi: 10, ishirini: 20, thelathini: 30, arobaini: 40, hamsini: 50, sitini: 60, sabini: 70, themanini: 80, tisini: 90,
});
export const SW_SCALES: Readonly<Record<string, number>> = wordTable({ mia: 100, elfu: 1000, thao: 1000, laki: 100_000, milioni: 1_000_000 });

/** Words that are also articles or common words: a number only when another number word follows. */
export const WEAK: Partial<Record<Lang, ReadonlySet<string>>> = {
  en: new Set(['one']),
  pcm: new Set(['one']),
  fr: new Set(['un', 'une']),
  es: new Set(['un', 'una', 'uno']),
  pt: new Set(['um', 'uma', 'e']),
  hi: new Set(['do', 'ek', 'sat', 'tin', 'che', 'nau', 'bis', 'tis', 'das', 'sola', 'bara', 'ath', 'saath']),
  tl: new Set(['isa', 'at', 'anim', 'pito']),
};

