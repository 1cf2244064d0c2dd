import type { Lang } from './language.js';
import { fold } from './lexicon-i18n.js';

/**
 * Numbers written in words, in every corridor language, up to the millions: "twenty",
 * "two thousand five hundred", "elfu tatu", "deux mille", "dois mil", "veinte",
 * "do hazaar", "dalawang libo". A run of number words reads as one exact integer (or
 * x.5 with "dhai"/"dedh"), or not at all; a run that does not parse as one number is left
 * as words and so is never an amount.
 */

import { SW_SCALES, SW_UNITS, TABLES, TL, WEAK, type Word } from './number-word-tables.js';

export { toWords } from './number-words-write.js';

export type SpelledNumber = { value: string; length: number; /** one weak word ("un", "do") on its own */ weak: boolean };

/** Splits hyphenated and linker forms into words: "twenty-five", "quatre-vingt", "dalawang". */
export function numberWordParts(word: string, lang: Lang): string[] {
  const w = fold(word.toLowerCase());
  const parts = w.split(/[-‐]/).filter(Boolean);
  if (lang === 'tl') {
    // The linker -ng: "dalawang libo", "limang daan", "isang"; "libo't" is "libo at" ("isang libo't limang daan").
    return parts.flatMap((p) => (/['’]t$/.test(p) && TL[p.slice(0, -2)] ? [p.slice(0, -2), 'at'] : [p])).map((p) => (p.endsWith('ng') && TL[p.slice(0, -2)] ? p.slice(0, -2) : p));
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

/**
 * A hundreds or scale word of another corridor language that is no number word of `lang`
 * ("doscientos" read with the Portuguese table, "sau" with the English one): a spelled run that
 * stops right before it may have been cut short, so it is no amount at all (never "mil" = 1000
 * of "mil doscientos").
 */
export function foreignNumberWord(word: string, lang: Lang): boolean {
  const w = fold(word.toLowerCase());
  if (isNumberWord(w, lang) || (lang !== 'en' && isNumberWord(w, 'en'))) return false;
  if (w in SW_SCALES && w !== 'thao') return true;
  return Object.values(TABLES).some((t) => {
    const x = t[w];
    return x !== undefined && (x.kind === 'hundred' || x.kind === 'scale' || (x.kind === 'unit' && x.value >= 100));
  });
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
  // "sawa", "paune", "saadhe": the share waits for the unit after it (or one) and is applied at the next hundred or scale.
  let quarter: { share: number; needsUnit: boolean } | undefined;
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
        if (half !== undefined || quarter || group !== 0) return undefined;
        half = word.value;
        break;
      case 'quarter':
        if (half !== undefined || quarter || group !== 0) return undefined;
        quarter = { share: word.value, needsUnit: Boolean(word.needsUnit) };
        break;
      case 'unit': {
        if (half !== undefined) return undefined;
        // "saadhe teen sau": one unit under ten, then the hundred or scale.
        if (quarter && (group !== 0 || word.value >= 10)) return undefined;
        // Units add up only from larger to smaller places: "twenty five", "doscientos cincuenta", not "five twenty".
        if (prevKind === 'unit' && !unitsAdd(prevValue, word.value, lang)) return undefined;
        if (prevKind === 'hundred' && word.value >= 100) return undefined;
        group += word.value;
        break;
      }
      case 'hundred': {
        if (groupHasHundred) return undefined;
        if (half !== undefined || quarter) {
          const m = shareOf(group);
          if (m === undefined) return undefined;
          group = m * word.value;
          groupHasHundred = true;
          break;
        }
        group = (group === 0 ? 1 : group) * word.value;
        groupHasHundred = true;
        break;
      }
      case 'scale': {
        let mult = group === 0 ? 1 : group;
        if (half !== undefined || quarter) {
          const m = shareOf(group);
          if (m === undefined) return undefined;
          mult = m;
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
  if (half !== undefined || quarter) return undefined;
  return total + group;

  /** The multiplier a pending "dhai"/"sawa"/"paune"/"saadhe" makes of the unit before the hundred or scale; clears it. */
  function shareOf(unit: number): number | undefined {
    if (half !== undefined) {
      if (unit !== 0) return undefined;
      const m = half;
      half = undefined;
      return m;
    }
    const q = quarter!;
    quarter = undefined;
    if (q.needsUnit && unit === 0) return undefined;
    const m = (unit === 0 ? 1 : unit) + q.share;
    return m > 0 ? m : undefined;
  }
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
