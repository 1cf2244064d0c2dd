/**
 * Small helpers on rows as plain JSON data, shared by both stores: a field's value, the set
 * fields of an equality filter, a unique group's key, a private copy and a deep freeze.
 */

export function field(row: object, f: string): unknown {
  return (row as Record<string, unknown>)[f];
}

export function definedEntries(where: object): [string, unknown][] {
  return Object.entries(where).filter(([, v]) => v !== undefined);
}

export function uniqueKey(row: object, fields: readonly string[]): string | undefined {
  const values = fields.map((f) => field(row, f));
  if (values.some((v) => v === undefined || v === null)) return undefined;
  return JSON.stringify(values);
}

/**
 * A private deep copy of a row, so the caller cannot change it after the write. Rows are
 * JSON data, so plain objects and arrays are copied by hand (structuredClone costs several
 * times more and was the store's largest per-insert cost); anything else falls back to it.
 */
export function cloneRow<V>(value: V): V {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneRow) as V;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = cloneRow((value as Record<string, unknown>)[k]);
    // A "__proto__" key (JSON.parse makes it an own property; metadata keys are user input)
    // must stay data: plain assignment would set the copy's prototype instead.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    else out[k] = v;
  }
  return out as V;
}

export function deepFreeze<V>(value: V): V {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
