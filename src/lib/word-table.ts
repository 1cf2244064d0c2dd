/**
 * A lookup table keyed by words people type. Without a prototype, a word such as
 * "constructor" or "__proto__" finds nothing instead of Object.prototype's member (which once
 * made the local engine read "constructor" as a month and throw).
 */
export function wordTable<T>(entries: Record<string, T>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
