import type { RangeQuery, ReadTable, Row, TableDef, Where } from './types.js';

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

/**
 * A range read page by page (the paged loop every background pass needs): `range.limit` rows at
 * a time, each page read after the last row of the one before (its `range.field` value and id),
 * until a short page. `range.after`, when given, is where the first page starts (a lower bound).
 * Yields the non-empty pages; the next page is read only when asked for, so a pass that changes
 * the rows of one page does so before the next is read.
 */
export async function* rangePages<T extends Row>(table: Pick<ReadTable<T>, 'findRange'>, where: Where<T>, range: RangeQuery): AsyncGenerator<T[]> {
  for (let after = range.after; ; ) {
    const page = await table.findRange(where, { ...range, after });
    if (page.length > 0) yield page;
    if (page.length < range.limit) return;
    const last = page[page.length - 1]!;
    after = { value: (last as Record<string, unknown>)[range.field], id: last.id };
  }
}

/** Every row of a range read, read a page at a time (rangePages). */
export async function rangeAll<T extends Row>(table: Pick<ReadTable<T>, 'findRange'>, where: Where<T>, range: RangeQuery): Promise<T[]> {
  const out: T[] = [];
  for await (const page of rangePages(table, where, range)) out.push(...page);
  return out;
}
