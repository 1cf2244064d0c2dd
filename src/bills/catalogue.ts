import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseUnits } from 'viem';
import { z } from 'zod';
import { fail, type Fail, type Ok, type Result } from '../lib/results.js';
import { withCallingCode } from '../lib/phone.js';

/**
 * The biller catalogue (data/billers.json): who can be paid, how their customer numbers
 * look, and the words people use for them. Pure lookups over the parsed file; only
 * `loadBillerCatalogue` touches the disk.
 */

export const BillerCategory = z.enum(['electricity', 'airtime', 'water', 'tv', 'internet']);
export type BillerCategory = z.infer<typeof BillerCategory>;

export const AccountLabel = z.enum([
  'Meter number',
  'Account number',
  'Smartcard number',
  'IUC number',
  'Phone number',
  'Customer number',
]);
export type AccountLabel = z.infer<typeof AccountLabel>;

/** Amounts in the catalogue are decimal strings in the biller's currency (never floats). */
const CatalogueAmount = z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'must be a decimal string with at most 2 decimals');

const RegexSource = z.string().min(2).refine((s) => {
  try {
    new RegExp(s);
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');

export const BillerAccount = z.object({
  label: AccountLabel,
  /** Tested against the number with spaces, dashes, dots and brackets removed. */
  pattern: RegexSource,
  /** Human description of the format, used in error messages ("11 digits"). */
  hint: z.string().min(1).max(80),
  example: z.string().min(3).max(32),
});
export type BillerAccount = z.infer<typeof BillerAccount>;

export const BillerTariff = z.object({
  unit: z.literal('kWh'),
  pricePerUnit: CatalogueAmount,
});
export type BillerTariff = z.infer<typeof BillerTariff>;

export const Biller = z.object({
  id: z.string().regex(/^[a-z]{2}-[a-z0-9-]+$/, 'must look like "ng-ikedc-prepaid"'),
  name: z.string().min(2).max(80),
  country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166 alpha-2 code'),
  category: BillerCategory,
  currency: z.string().regex(/^[A-Z]{3}$/),
  aliases: z.array(z.string().min(1).max(60)).min(1),
  account: BillerAccount,
  minAmount: CatalogueAmount,
  maxAmount: CatalogueAmount,
  /** Prepaid electricity: the purchase returns a token to key into the meter. */
  returnsToken: z.boolean().optional(),
  tariff: BillerTariff.optional(),
  /** Key the chain module derives the on-chain collection address from. */
  collectionWallet: z.string().regex(/^billers\/[a-z0-9-]+$/),
});
export type Biller = z.infer<typeof Biller>;

/** Minor-unit digits of the currencies billers charge in. */
export const BILLER_CURRENCY_DECIMALS: Readonly<Record<string, number>> = { NGN: 2, KES: 2, GHS: 2, ZAR: 2 };

/** Country of each biller currency; also used to turn a stated currency into a country hint. */
export const CURRENCY_COUNTRY: Readonly<Record<string, string>> = { NGN: 'NG', KES: 'KE', GHS: 'GH', ZAR: 'ZA' };

export const BillerCatalogue = z
  .object({
    version: z.literal(1),
    billers: z.array(Biller).min(1),
  })
  .superRefine((cat, ctx) => {
    const seen = new Set<string>();
    cat.billers.forEach((b, i) => {
      const at = (field: string) => ['billers', i, field];
      if (seen.has(b.id)) ctx.addIssue({ code: 'custom', path: at('id'), message: `duplicate biller id ${b.id}` });
      seen.add(b.id);
      if (CURRENCY_COUNTRY[b.currency] !== b.country) {
        ctx.addIssue({ code: 'custom', path: at('currency'), message: `${b.id}: ${b.currency} is not the currency of ${b.country}` });
      }
      if (b.collectionWallet !== `billers/${b.id}`) {
        ctx.addIssue({ code: 'custom', path: at('collectionWallet'), message: `${b.id}: collectionWallet must be billers/${b.id}` });
      }
      if (!new RegExp(b.account.pattern).test(cleanAccount(b.account.example))) {
        ctx.addIssue({ code: 'custom', path: at('account'), message: `${b.id}: example does not match pattern` });
      }
      const decimals = BILLER_CURRENCY_DECIMALS[b.currency] ?? 2;
      if (parseUnits(b.minAmount, decimals) > parseUnits(b.maxAmount, decimals)) {
        ctx.addIssue({ code: 'custom', path: at('minAmount'), message: `${b.id}: minAmount is above maxAmount` });
      }
      if (b.tariff && parseUnits(b.tariff.pricePerUnit, decimals) <= 0n) {
        ctx.addIssue({ code: 'custom', path: at('tariff'), message: `${b.id}: tariff must be positive` });
      }
    });
  });
export type BillerCatalogue = z.infer<typeof BillerCatalogue>;

const DEFAULT_CATALOGUE_PATH = fileURLToPath(new URL('../../data/billers.json', import.meta.url));

/** Reads and validates the catalogue. A broken shipped file is a deployment bug, so this throws with the zod issues. */
export function loadBillerCatalogue(path: string = DEFAULT_CATALOGUE_PATH): BillerCatalogue {
  const raw: unknown = JSON.parse(readFileSync(path, 'utf8'));
  const parsed = BillerCatalogue.safeParse(raw);
  if (!parsed.success) {
    throw new Error(`invalid biller catalogue ${path}: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}

// ---------------------------------------------------------------------------------------
// Alias index: what the local parser and findBiller match people's words against.

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
export const CATEGORY_HINT_WORDS: Readonly<Record<string, BillerCategory>> = {
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
};

/** Country names people add ("DStv Kenya"); keys are billerKey()s so "South Africa" works. */
export const COUNTRY_HINT_WORDS: Readonly<Record<string, string>> = {
  nigeria: 'NG',
  naija: 'NG',
  kenya: 'KE',
  ghana: 'GH',
  southafrica: 'ZA',
  mzansi: 'ZA',
};

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
      const entry = entries.get(key) ?? { key, label: phrase, generic: GENERIC_ALIAS_KEYS.has(key), billerIds: [] };
      if (!entry.billerIds.includes(b.id)) entry.billerIds.push(b.id);
      entries.set(key, entry);
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

// ---------------------------------------------------------------------------------------
// findBiller

export type FindBillerResult =
  | Ok<{ biller: Biller }>
  | Fail<'unknown_biller'>
  | (Fail<'ambiguous_biller'> & { candidates: Array<Pick<Biller, 'id' | 'name' | 'country' | 'category'>> });

const indexCache = new WeakMap<BillerCatalogue, BillerAliasIndex>();
function cachedIndex(catalogue: BillerCatalogue): BillerAliasIndex {
  let idx = indexCache.get(catalogue);
  if (!idx) {
    idx = billerAliasIndex(catalogue);
    indexCache.set(catalogue, idx);
  }
  return idx;
}

function splitKeys(text: string): string[] {
  return text
    .split(/[^\p{L}\p{N}]+|(?<=\d)(?=\p{L})|(?<=\p{L})(?=\d)/u)
    .map(billerKey)
    .filter(Boolean);
}

/**
 * Finds a biller by id, name or alias, ignoring case, spaces and punctuation. An exact
 * alias wins; otherwise alias phrases inside the text ("my MTN line") are used; then a
 * prefix of a name ("Ikeja Elec"). Hints (category, country) only ever narrow a tie.
 */
export function findBiller(catalogue: BillerCatalogue, nameOrAlias: string, hint: BillerHint = {}): FindBillerResult {
  const index = cachedIndex(catalogue);
  const key = billerKey(nameOrAlias);
  if (!key) return fail('unknown_biller', 'Say which biller to pay, e.g. "IKEDC", "KPLC" or "DStv".', 'biller');
  const byId = (id: string) => catalogue.billers.find((b) => b.id === id)!;

  const idHit = index.ids.get(key);
  if (idHit) return { ok: true, biller: byId(idHit) };

  const keys = splitKeys(nameOrAlias);
  const wordHint = hintsFromWords(keys);
  const merged = {
    category: hint.category ?? wordHint.category,
    country: hint.country ?? wordHint.country,
    words: keys,
  };

  let candidates: BillerRef[] = [];
  const exact = index.entries.get(key);
  if (exact) {
    candidates = narrowBillers(index, exact.billerIds, merged);
  } else {
    const picked = billersFromMatches(index, scanAliases(index, keys), merged);
    if (picked) candidates = picked.candidates;
    else if (key.length >= 3) {
      const ids = new Set<string>();
      for (const e of index.entries.values()) if (e.key.startsWith(key)) e.billerIds.forEach((id) => ids.add(id));
      candidates = narrowBillers(index, [...ids], merged);
    }
  }
  if (candidates.length === 1) return { ok: true, biller: byId(candidates[0]!.id) };
  if (candidates.length === 0) {
    return fail('unknown_biller', `I don't know a biller called "${nameOrAlias.trim()}".`, 'biller');
  }
  return {
    ...fail('ambiguous_biller', `"${nameOrAlias.trim()}" could be ${candidates.map((c) => c.name).join(', ')}. Which one?`, 'biller'),
    candidates: candidates.map((c) => ({ id: c.id, name: c.name, country: c.country, category: c.category })),
  };
}

// ---------------------------------------------------------------------------------------
// Account numbers and amounts

function cleanAccount(raw: string): string {
  return raw.trim().replace(/[\s\-().]/g, '');
}

/**
 * Checks a customer number against the biller's format. Separators are dropped; phone
 * numbers come back in E.164 (+2348031234567) so every later step sees one spelling.
 */
export function validateAccountNumber(
  biller: Biller,
  raw: string,
): Result<{ accountNumber: string }, 'invalid_account_number'> {
  let cleaned = cleanAccount(raw);
  if (biller.account.label !== 'Phone number') cleaned = cleaned.toUpperCase();
  if (!new RegExp(biller.account.pattern).test(cleaned)) {
    return fail(
      'invalid_account_number',
      `${biller.name} needs a ${biller.account.label.toLowerCase()} of ${biller.account.hint}, e.g. ${biller.account.example}.`,
      'account_number',
    );
  }
  if (biller.account.label === 'Phone number') cleaned = withCallingCode(cleaned, biller.country);
  return { ok: true, accountNumber: cleaned };
}

/** Minor units of a decimal amount in the biller's currency, inside the biller's limits. */
export function checkBillAmount(
  biller: Biller,
  amount: string,
): Result<{ amountMinor: bigint }, 'invalid_amount' | 'amount_below_minimum' | 'amount_above_maximum'> {
  const decimals = BILLER_CURRENCY_DECIMALS[biller.currency] ?? 2;
  const m = /^(\d{1,12})(?:\.(\d+))?$/.exec(amount.trim());
  if (!m || (m[2] !== undefined && m[2].replace(/0+$/, '').length > decimals)) {
    return fail('invalid_amount', `Amount must be a positive number with at most ${decimals} decimals.`, 'amount');
  }
  const amountMinor = parseUnits(amount.trim(), decimals);
  if (amountMinor <= 0n) return fail('invalid_amount', 'Amount must be greater than zero.', 'amount');
  if (amountMinor < parseUnits(biller.minAmount, decimals)) {
    return fail('amount_below_minimum', `The minimum for ${biller.name} is ${biller.minAmount} ${biller.currency}.`, 'amount');
  }
  if (amountMinor > parseUnits(biller.maxAmount, decimals)) {
    return fail('amount_above_maximum', `The maximum for ${biller.name} is ${biller.maxAmount} ${biller.currency}.`, 'amount');
  }
  return { ok: true, amountMinor };
}
