import type { RangeQuery, Row, TableDef, Where } from './types.js';

/**
 * The part of `findRange` both stores share: checking that the query is one the table declared
 * (so PostgreSQL has an index for it), and the in-memory ordering lowdb applies.
 */
export function checkRange<T extends Row>(def: TableDef<T>, where: Where<T>, range: RangeQuery): string {
  const eq = Object.entries(where).filter(([, v]) => v !== undefined);
  if (eq.length !== 1) throw new Error(`findRange on ${def.name}: exactly one equality field, got ${eq.length}`);
  const pair = (def.ranges ?? []).find(([e, f]) => e === eq[0]![0] && f === range.field);
  if (!pair) throw new Error(`findRange on ${def.name}: (${eq[0]![0]}, ${range.field}) is not declared in ranges`);
  if (!(range.limit > 0)) throw new Error(`findRange on ${def.name}: limit must be positive`);
  return eq[0]![0];
}

/** Total order of a field's values: strings as text; anything else by its JSON text. */
function key(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

function compare(a: [unknown, string], b: [unknown, string]): number {
  const ka = key(a[0]);
  const kb = key(b[0]);
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

/** lowdb's findRange over the rows its equality index already narrowed to. */
export function rangeOf<T extends Row>(rows: readonly T[], range: RangeQuery): T[] {
  const f = (r: T) => (r as Record<string, unknown>)[range.field];
  const picked = rows.filter((r) => {
    const v = f(r);
    if (v === undefined || v === null) return false;
    if (range.atMost !== undefined && key(v) > range.atMost) return false;
    return range.after === undefined || compare([v, r.id], [range.after.value, range.after.id]) > 0;
  });
  picked.sort((a, b) => compare([f(a), a.id], [f(b), b.id]));
  return picked.slice(0, range.limit);
}
