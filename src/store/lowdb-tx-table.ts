import { checkRange, rangeOf } from './range.js';
import { StoreConflictError, type FindOptions, type InsertOrGet, type Row, type Where, type WriteTable } from './types.js';
import { cloneRow, deepFreeze, definedEntries, field, filterField, patchedRow, uniqueKey } from './row-values.js';
import type { TableState } from './lowdb-table-state.js';

/**
 * A transaction's view of one table: its changes are kept aside (copy-on-write) and only
 * applied at commit, so nobody outside the transaction ever reads a write that may still
 * be rolled back, and a rollback is simply dropping the overlay.
 */
export class TxTable<T extends Row> {
  /** id -> new row, or null when removed in this transaction. */
  readonly changes = new Map<string, T | null>();
  /** Ids inserted in this transaction, in order (they go to the end of the table). */
  readonly inserted: string[] = [];

  constructor(readonly base: TableState<T>) {
    this.ownKeys = base.uniques.map(() => new Map());
  }

  get(id: string): T | undefined {
    const c = this.changes.get(id);
    return c === undefined ? this.base.get(id) : (c ?? undefined);
  }

  count(where: Where<T> = {}): number {
    return this.changes.size === 0 ? this.base.count(where) : this.find(where).length;
  }

  find(where: Where<T> = {}, opts: FindOptions = {}): T[] {
    if (this.changes.size === 0) return this.base.find(where, opts);
    // Rare path (a read after a write to the same table in one transaction): rebuild the
    // table's order with the overlay merged in, then apply the cursor, filter and limit.
    const ordered: T[] = [];
    for (const r of this.base.rows) {
      const c = this.changes.get(r.id);
      if (c === undefined) ordered.push(r);
      else if (c) ordered.push(c);
    }
    for (const id of this.inserted) ordered.push(this.changes.get(id)!);
    if (opts.order === 'desc') ordered.reverse();
    let start = 0;
    if (opts.after !== undefined) {
      start = ordered.findIndex((r) => r.id === opts.after) + 1;
      if (start === 0) return [];
    }
    const entries = definedEntries(where);
    const anyOf = opts.anyOf;
    const limit = opts.limit ?? Infinity;
    const out: T[] = [];
    for (let i = start; i < ordered.length && out.length < limit; i++) {
      const r = ordered[i]!;
      if (entries.every(([f, v]) => filterField(r, f, this.base.def.version) === v) && (!anyOf || anyOf.values.includes(field(r, anyOf.field)))) out.push(r);
    }
    return out;
  }

  /** Unique keys of the rows this transaction wrote, per unique group (key -> id). */
  private readonly ownKeys: Map<string, string>[];

  /** Throws StoreConflictError if `row` would break a unique group (ignoring row `self`). */
  private checkUnique(row: T, self?: string): void {
    this.base.uniques.forEach((u, g) => {
      const k = uniqueKey(row, u.fields);
      if (k === undefined) return;
      const holder = u.keys.get(k);
      // A committed holder this transaction changed only counts if it still has the key.
      if (holder !== undefined && holder !== self) {
        const now = this.get(holder);
        if (now && uniqueKey(now, u.fields) === k) throw new StoreConflictError(this.base.def.name, u.fields, holder);
      }
      const own = this.ownKeys[g]!.get(k);
      if (own !== undefined && own !== self) throw new StoreConflictError(this.base.def.name, u.fields, own);
    });
  }

  /** Records that row `id` changed from `before` to `after` (either may be absent). */
  private track(id: string, before: T | undefined, after: T | undefined): void {
    this.base.uniques.forEach((u, g) => {
      const keys = this.ownKeys[g]!;
      const ok = before && uniqueKey(before, u.fields);
      if (ok !== undefined && keys.get(ok) === id) keys.delete(ok);
      const nk = after && uniqueKey(after, u.fields);
      if (nk !== undefined) keys.set(nk, id);
    });
  }

  insert(row: T): T {
    if (this.changes.has(row.id) || this.base.get(row.id)) {
      throw new StoreConflictError(this.base.def.name, ['id'], row.id);
    }
    const frozen = deepFreeze(cloneRow(row));
    this.checkUnique(frozen);
    this.changes.set(frozen.id, frozen);
    this.inserted.push(frozen.id);
    this.track(frozen.id, undefined, frozen);
    return frozen;
  }

  update(id: string, patch: Partial<T>, expect: Where<T> | undefined): T | undefined {
    const old = this.get(id);
    if (!old) return undefined;
    if (expect && !definedEntries(expect).every(([f, v]) => filterField(old, f, this.base.def.version) === v)) return undefined;
    // Every write bumps the row's version (TableDef.version), whatever the patch says.
    const v = this.base.def.version;
    const next = patchedRow(old, v ? ({ ...patch, [v]: (((old as Record<string, unknown>)[v] as number | undefined) ?? 0) + 1 } as Partial<T>) : patch);
    this.checkUnique(next, id);
    this.changes.set(id, next);
    this.track(id, old, next);
    return next;
  }

  remove(id: string): boolean {
    const old = this.get(id);
    if (!old) return false;
    const i = this.inserted.indexOf(id);
    if (i >= 0) {
      this.inserted.splice(i, 1);
      this.changes.delete(id);
    } else {
      this.changes.set(id, null);
    }
    this.track(id, old, undefined);
    return true;
  }

  /** Applies the overlay to the committed state; cannot fail (every change was validated). */
  commit(): void {
    const fresh = new Set(this.inserted);
    for (const [id, r] of this.changes) if (r === null) this.base.applyRemove(id);
    for (const [id, r] of this.changes) if (r && !fresh.has(id)) this.base.applyUpdate(r);
    for (const id of this.inserted) this.base.applyInsert(this.changes.get(id)!);
  }
}

/**
 * A transaction's handle on one table (`tx.table(def)`), one per table per transaction. A class
 * rather than an object of arrow functions made at each `tx.table` call: a settle opens several
 * transactions, each asking for its tables several times (issue 23, seventh round).
 */
export class TxWriteTable<T extends Row> implements WriteTable<T> {
  constructor(
    private readonly t: TxTable<T>,
    private readonly state: { open: boolean },
  ) {}

  private live(): void {
    if (!this.state.open) throw new Error(`transaction on ${this.t.base.def.name} already finished`);
  }
  async get(id: string): Promise<T | undefined> {
    return this.t.get(id);
  }
  async findOne(where: Where<T>): Promise<T | undefined> {
    return this.t.find(where, { limit: 1 })[0];
  }
  async findMany(where?: Where<T>, opts?: FindOptions): Promise<T[]> {
    return this.t.find(where, opts);
  }
  async count(where?: Where<T>): Promise<number> {
    return this.t.count(where);
  }
  async findRange(...[where, range]: Parameters<WriteTable<T>['findRange']>): ReturnType<WriteTable<T>['findRange']> {
    return (checkRange(this.t.base.def, where, range), rangeOf(this.t.find(where), range));
  }
  async insert(row: T): Promise<T> {
    return (this.live(), this.t.insert(row));
  }
  async insertOrGet(row: T): Promise<InsertOrGet<T>> {
    this.live();
    try {
      return { inserted: true, row: this.t.insert(row) };
    } catch (e) {
      const existing = e instanceof StoreConflictError ? this.t.get(e.existingId) : undefined;
      if (!existing) throw e;
      return { inserted: false, existing };
    }
  }
  async update(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<T | undefined> {
    return (this.live(), this.t.update(id, patch as Partial<T>, expect));
  }
  async updateWithBefore(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<{ before: T; after: T } | undefined> {
    this.live();
    const before = this.t.get(id);
    const after = before && this.t.update(id, patch as Partial<T>, expect);
    return before && after ? { before, after } : undefined;
  }
  async remove(id: string): Promise<boolean> {
    return (this.live(), this.t.remove(id));
  }
}
