import type { AccountLabel, BillerCatalogue, BillerCategory } from './biller-schema.js';
import { wordTable } from '../lib/word-table.js';

/**
 * The biller alias index: what the local parser and findBiller match people's words against
 * (names, aliases, category and country hint words), built once per catalogue.
 */
/** Case, space and punctuation-insensitive key: "Ikeja-Electric" and "ikeja electric" meet. */
export function billerKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** Aliases that name a kind of bill rather than a company; a brand name beats them. */
const GENERIC_ALIAS_KEYS = new Set(['nepa', 'phcn', 'tokens', 'token', 'umeme', 'light', 'prepaid', 'electricity']);

/** Words that hint at a category when people name a biller loosely ("MTN airtime", "DStv subscription"). */
export const CATEGORY_HINT_WORDS: Readonly<Record<string, BillerCategory>> = wordTable({
  electricity: 'electricity',
  electric: 'electricity',
  power: 'electricity',
  light: 'electricity',
  meter: 'electricity',
  token: 'electricity',
  tokens: 'electricity',
  units: 'electricity',
  kwh: 'electricity',
  prepaid: 'electricity',
  postpaid: 'electricity',
  airtime: 'airtime',
  credit: 'airtime',
  line: 'airtime',
  talktime: 'airtime',
  data: 'internet',
  internet: 'internet',
  wifi: 'internet',
  broadband: 'internet',
  fibre: 'internet',
  fiber: 'internet',
  bundle: 'internet',
  bundles: 'internet',
  tv: 'tv',
  decoder: 'tv',
  smartcard: 'tv',
  iuc: 'tv',
  bouquet: 'tv',
  cable: 'tv',
  water: 'water',
});

/** Country names people add ("DStv Kenya"); keys are billerKey()s so "South Africa" works. */
export const COUNTRY_HINT_WORDS: Readonly<Record<string, string>> = wordTable({
  nigeria: 'NG',
  naija: 'NG',
  kenya: 'KE',
  ghana: 'GH',
  southafrica: 'ZA',
  mzansi: 'ZA',
});

export type BillerRef = {
  id: string;
  name: string;
  country: string;
  category: BillerCategory;
  currency: string;
  accountLabel: AccountLabel;
  accountPattern: string;
  /** billerKey()s of the name and aliases, used to break ties by shared words. */
  words: ReadonlySet<string>;
};

export type BillerAliasEntry = {
  key: string;
  /** The alias as written in the catalogue (first spelling seen), e.g. "MTN". */
  label: string;
  generic: boolean;
  billerIds: readonly string[];
};

export type BillerAliasIndex = {
  billers: ReadonlyMap<string, BillerRef>;
  /** billerKey(alias or name) -> entry. */
  entries: ReadonlyMap<string, BillerAliasEntry>;
  /** billerKey(id) -> id. */
  ids: ReadonlyMap<string, string>;
  /** Longest alias in message tokens (digits and letters split, as a tokenizer would). */
  maxTokens: number;
};

export type BillerHint = { category?: BillerCategory | undefined; country?: string | undefined };

function aliasTokenCount(alias: string): number {
  return alias.split(/[^A-Za-z0-9]+|(?<=\d)(?=[A-Za-z])|(?<=[A-Za-z])(?=\d)/).filter(Boolean).length;
}

export function billerAliasIndex(catalogue: BillerCatalogue): BillerAliasIndex {
  const billers = new Map<string, BillerRef>();
  const entries = new Map<string, { key: string; label: string; generic: boolean; billerIds: string[] }>();
  const ids = new Map<string, string>();
  let maxTokens = 1;
  for (const b of catalogue.billers) {
    const phrases = [b.name, ...b.aliases];
    const words = new Set<string>();
    for (const p of phrases) for (const w of p.split(/[^A-Za-z0-9]+/)) if (w) words.add(billerKey(w));
    billers.set(b.id, {
      id: b.id,
      name: b.name,
      country: b.country,
      category: b.category,
      currency: b.currency,
      accountLabel: b.account.label,
      accountPattern: b.account.pattern,
      words,
    });
    ids.set(billerKey(b.id), b.id);
    for (const phrase of phrases) {
      const key = billerKey(phrase);
      if (!key) continue;
      maxTokens = Math.max(maxTokens, aliasTokenCount(phrase));
      // A generic plural alias is said in the singular too: "stima token" as "tokens" (KPLC's in Kenya).
      const keys = GENERIC_ALIAS_KEYS.has(key) && key.endsWith('s') && GENERIC_ALIAS_KEYS.has(key.slice(0, -1)) ? [key, key.slice(0, -1)] : [key];
      for (const k of keys) {
        const entry = entries.get(k) ?? { key: k, label: phrase, generic: GENERIC_ALIAS_KEYS.has(k), billerIds: [] };
        if (!entry.billerIds.includes(b.id)) entry.billerIds.push(b.id);
        entries.set(k, entry);
      }
    }
  }
  return { billers, entries, ids, maxTokens };
}

/**
 * Narrows candidate billers with soft hints: a hint that would leave nothing is ignored
 * (a Kenyan user can still pay a Nigerian biller they name unambiguously).
 */
export function narrowBillers(
  index: BillerAliasIndex,
  billerIds: readonly string[],
  hint: BillerHint & { words?: readonly string[] },
): BillerRef[] {
  let c = billerIds.map((id) => index.billers.get(id)).filter((b): b is BillerRef => b !== undefined);
  if (c.length > 1 && hint.category) {
    const f = c.filter((b) => b.category === hint.category);
    if (f.length) c = f;
  }
  if (c.length > 1 && hint.country) {
    const f = c.filter((b) => b.country === hint.country);
    if (f.length) c = f;
  }
  if (c.length > 1 && hint.words?.length) {
    const score = (b: BillerRef) => hint.words!.filter((w) => b.words.has(w)).length;
    const best = Math.max(...c.map(score));
    if (best > 0) c = c.filter((b) => score(b) === best);
  }
  return c;
}

export type AliasMatch = { start: number; end: number; entry: BillerAliasEntry };

/**
 * Finds alias phrases in a token sequence: every span of up to maxTokens tokens whose
 * concatenated key is an alias ("city power", "citypower" and "9 mobile" all match).
 * Overlapping matches keep the longest; among equal spans, the earliest.
 */
export function scanAliases(index: BillerAliasIndex, tokenKeys: readonly string[]): AliasMatch[] {
  const found: AliasMatch[] = [];
  for (let i = 0; i < tokenKeys.length; i++) {
    if (!tokenKeys[i]) continue;
    let key = '';
    for (let j = i; j < Math.min(tokenKeys.length, i + index.maxTokens); j++) {
      const k = tokenKeys[j];
      if (!k) break;
      key += k;
      const entry = index.entries.get(key);
      if (entry) found.push({ start: i, end: j + 1, entry });
    }
  }
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
  const kept: AliasMatch[] = [];
  for (const m of found) {
    if (kept.some((k) => m.start < k.end && k.start < m.end)) continue;
    kept.push(m);
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** Hints carried by the words of a biller phrase itself ("MTN Ghana airtime"). */
export function hintsFromWords(keys: readonly string[]): BillerHint {
  const hint: BillerHint = {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const two = k + (keys[i + 1] ?? '');
    hint.category ??= CATEGORY_HINT_WORDS[k];
    hint.country ??= COUNTRY_HINT_WORDS[k] ?? COUNTRY_HINT_WORDS[two];
  }
  return hint;
}

/**
 * Picks billers from alias matches: brand aliases beat generic ones ("IKEDC tokens" is
 * IKEDC), longer matches beat shorter, and several brand matches must agree.
 */
export function billersFromMatches(
  index: BillerAliasIndex,
  matches: readonly AliasMatch[],
  hint: BillerHint & { words?: readonly string[] },
): { candidates: BillerRef[]; match: AliasMatch } | undefined {
  if (!matches.length) return undefined;
  const brand = matches.filter((m) => !m.entry.generic);
  const pool = brand.length ? brand : [...matches];
  const longest = Math.max(...pool.map((m) => m.end - m.start));
  const top = pool.filter((m) => m.end - m.start === longest);
  let ids: readonly string[] = top[0]!.entry.billerIds;
  for (const m of top.slice(1)) {
    const both = ids.filter((id) => m.entry.billerIds.includes(id));
    ids = both.length ? both : [...new Set([...ids, ...m.entry.billerIds])];
  }
  return { candidates: narrowBillers(index, ids, hint), match: top[0]! };
}
