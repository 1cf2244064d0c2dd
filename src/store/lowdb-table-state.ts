import type { FindOptions, Row, TableDef, Where } from './types.js';
import { deepFreeze, definedEntries, field, filterField, uniqueKey } from './row-values.js';

/**
 * Committed state of one table, mirrored into lowdb's data object (`rows` is the very array
 * lowdb serialises). Rows are frozen, so an update replaces the object instead of changing it.
 */
export class TableState<T extends Row> {
  readonly pos = new Map<string, number>();
  readonly indexes = new Map<string, Map<unknown, Set<string>>>();
  readonly uniques: { fields: readonly string[]; keys: Map<string, string> }[] = [];

  constructor(
    readonly def: TableDef<T>,
    readonly rows: T[],
    /** Told the position of every row written (and whether later rows moved), for the file. */
    private readonly changed: (pos: number, shifted?: boolean) => void,
  ) {
    rows.forEach((r, i) => {
      deepFreeze(r);
      this.pos.set(r.id, i);
    });
    for (const g of def.indexes ?? []) {
      // Per-field sets here: a group (an index for PostgreSQL's planner) gives its first field
      // one, as its leading column narrows an equality filter on PostgreSQL.
      const f = typeof g === 'string' ? g : g[0];
      if (f === undefined || this.indexes.has(f)) continue;
      const idx = new Map<unknown, Set<string>>();
      this.indexes.set(f, idx);
      for (const r of rows) addToIndex(idx, field(r, f), r.id);
    }
    for (const fields of def.unique ?? []) {
      const keys = new Map<string, string>();
      for (const r of rows) {
        const k = uniqueKey(r, fields);
        if (k !== undefined) keys.set(k, r.id);
      }
      this.uniques.push({ fields, keys });
    }
  }

  get(id: string): T | undefined {
    const i = this.pos.get(id);
    return i === undefined ? undefined : this.rows[i];
  }

  count(where: Where<T> = {}): number {
    return definedEntries(where).length === 0 ? this.rows.length : this.find(where).length;
  }

  find(where: Where<T> = {}, opts: FindOptions = {}): T[] {
    if (opts.anyOf) return this.findAnyOf(where, opts, opts.anyOf);
    const entries = definedEntries(where);
    const matches = (r: T) => entries.every(([f, v]) => filterField(r, f, this.def.version) === v);
    const desc = opts.order === 'desc';
    const limit = opts.limit ?? Infinity;
    if (limit <= 0) return [];
    let afterPos: number | undefined;
    if (opts.after !== undefined) {
      afterPos = this.pos.get(opts.after);
      if (afterPos === undefined) return [];
    }
    const inRange = (p: number) => afterPos === undefined || (desc ? p < afterPos : p > afterPos);

    // A filter that names a whole unique group hits at most one row.
    for (const u of this.uniques) {
      if (u.fields.length !== entries.length || !u.fields.every((f) => entries.some(([e, v]) => e === f && v !== null))) continue;
      const id = u.keys.get(uniqueKey(where, u.fields) ?? '');
      const row = id === undefined ? undefined : this.get(id);
      return row && matches(row) && inRange(this.pos.get(row.id)!) ? [row] : [];
    }

    // The smallest index set narrows the scan; a set that covers much of the table is not
    // worth sorting, so the rows are scanned in order instead (stopping at `limit`).
    let ids: Set<string> | undefined;
    for (const [f, v] of entries) {
      const idx = this.indexes.get(f);
      if (!idx) continue;
      const set = idx.get(v);
      if (!set || set.size === 0) return [];
      if (!ids || set.size < ids.size) ids = set;
    }
    const out: T[] = [];
    if (ids && ids.size * 4 < this.rows.length) {
      const positions = [...ids].map((id) => this.pos.get(id)!).sort((a, b) => (desc ? b - a : a - b));
      for (const p of positions) {
        if (out.length >= limit) break;
        const r = this.rows[p]!;
        if (inRange(p) && matches(r)) out.push(r);
      }
      return out;
    }
    const n = this.rows.length;
    let k = afterPos === undefined ? (desc ? n - 1 : 0) : desc ? afterPos - 1 : afterPos + 1;
    for (; k >= 0 && k < n && out.length < limit; k += desc ? -1 : 1) {
      const r = this.rows[k]!;
      if (matches(r)) out.push(r);
    }
    return out;
  }

  /** `find` for each value (each through its index), merged in table order, then the limit. */
  private findAnyOf(where: Where<T>, opts: FindOptions, anyOf: NonNullable<FindOptions['anyOf']>): T[] {
    const one = { ...opts, anyOf: undefined };
    const rows = [...new Set(anyOf.values)].flatMap((v) => this.find({ ...where, [anyOf.field]: v }, one));
    const at = (r: T) => this.pos.get(r.id)!;
    rows.sort(opts.order === 'desc' ? (a, b) => at(b) - at(a) : (a, b) => at(a) - at(b));
    return opts.limit === undefined ? rows : rows.slice(0, Math.max(0, opts.limit));
  }

  /** Which row holds the unique key of `row` for group `u`, if any. */
  holder(u: (typeof this.uniques)[number], row: object): string | undefined {
    const k = uniqueKey(row, u.fields);
    return k === undefined ? undefined : u.keys.get(k);
  }

  // The apply* methods run only at commit, after the transaction validated every change.
  applyInsert(row: T): void {
    this.rows.push(row);
    this.pos.set(row.id, this.rows.length - 1);
    this.changed(this.rows.length - 1);
    for (const u of this.uniques) {
      const k = uniqueKey(row, u.fields);
      if (k !== undefined) u.keys.set(k, row.id);
    }
    for (const [f, idx] of this.indexes) addToIndex(idx, field(row, f), row.id);
  }

  applyUpdate(next: T): void {
    const at = this.pos.get(next.id)!;
    const old = this.rows[at]!;
    this.rows[at] = next;
    this.changed(at);
    for (const u of this.uniques) {
      const ok = uniqueKey(old, u.fields);
      if (ok !== undefined && u.keys.get(ok) === old.id) u.keys.delete(ok);
      const nk = uniqueKey(next, u.fields);
      if (nk !== undefined) u.keys.set(nk, next.id);
    }
    for (const [f, idx] of this.indexes) {
      const ov = field(old, f);
      const nv = field(next, f);
      if (ov !== nv) {
        removeFromIndex(idx, ov, old.id);
        addToIndex(idx, nv, next.id);
      }
    }
  }

  applyRemove(id: string): void {
    const at = this.pos.get(id);
    if (at === undefined) return;
    const old = this.rows[at]!;
    this.rows.splice(at, 1);
    this.changed(at, true);
    this.pos.delete(id);
    for (let i = at; i < this.rows.length; i++) this.pos.set(this.rows[i]!.id, i);
    for (const u of this.uniques) {
      const k = uniqueKey(old, u.fields);
      if (k !== undefined && u.keys.get(k) === id) u.keys.delete(k);
    }
    for (const [f, idx] of this.indexes) removeFromIndex(idx, field(old, f), id);
  }
}

function addToIndex(idx: Map<unknown, Set<string>>, value: unknown, id: string): void {
  let set = idx.get(value);
  if (!set) idx.set(value, (set = new Set()));
  set.add(id);
}

function removeFromIndex(idx: Map<unknown, Set<string>>, value: unknown, id: string): void {
  const set = idx.get(value);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) idx.delete(value);
}
