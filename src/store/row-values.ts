/**
 * Small helpers on rows as plain JSON data, shared by both stores: a field's value, the set
 * fields of an equality filter, a unique group's key, a private copy and a deep freeze.
 */

export function field(row: object, f: string): unknown {
  return (row as Record<string, unknown>)[f];
}

/**
 * A field's value as a filter compares it: the table's row version (TableDef.version) of a row
 * written before the table had one is absent and counts as 0, as the store's bump counts it
 * (a compare-and-set naming version 0 matches such a row, and no row once written since).
 */
export function filterField(row: object, f: string, version: string | undefined): unknown {
  const v = (row as Record<string, unknown>)[f];
  return v === undefined && f === version ? 0 : v;
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
    put(out, k, v);
  }
  return out as V;
}

/**
 * `deepFreeze(cloneRow({ ...old, ...patch, id: old.id }))` without copying what `old` already
 * holds frozen: a committed row is deep-frozen, so its plain nested values are shared with the
 * new version as they are (only the patch's values are copied and frozen). An update copied the
 * whole row, nested parts too, on every write (issue 23, seventh round).
 */
export function patchedRow<T extends { id: string }>(old: T, patch: Partial<T>): T {
  const out: Record<string, unknown> = {};
  // The spread's key order: old's keys where they were (patched values in place), then the
  // patch's new keys; `id` stays old's.
  for (const k of Object.keys(old)) {
    if (k === 'id') put(out, k, old.id);
    else if (hasOwn(patch, k)) put(out, k, deepFreeze(cloneRow((patch as Record<string, unknown>)[k])));
    else {
      const v = (old as Record<string, unknown>)[k];
      put(out, k, v !== null && typeof v === 'object' && !(Object.isFrozen(v) && isPlain(v)) ? deepFreeze(cloneRow(v)) : v);
    }
  }
  for (const k of Object.keys(patch)) if (!hasOwn(old, k)) put(out, k, deepFreeze(cloneRow((patch as Record<string, unknown>)[k])));
  return Object.freeze(out) as T;
}

const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** `out[k] = v`, except that a "__proto__" key stays data (as in cloneRow). */
function put(out: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  else out[k] = v;
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return Array.isArray(v) || proto === Object.prototype || proto === null;
}

export function deepFreeze<V>(value: V): V {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
