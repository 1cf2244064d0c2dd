import { fail, type Fail, type Ok } from '../lib/results.js';
import { billerAliasIndex, billerKey, billersFromMatches, hintsFromWords, narrowBillers, scanAliases, type BillerAliasIndex, type BillerHint, type BillerRef } from './biller-aliases.js';
import type { Biller, BillerCatalogue } from './biller-schema.js';

/** Finding a biller by what a person calls it. */
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
