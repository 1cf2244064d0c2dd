import path from 'node:path';
import { Low } from 'lowdb';
import { BlockJSONFile, type DbData } from './block-json-file.js';
import { checkRange, rangeOf } from './range.js';
import {
  StoreConflictError,
  type FindOptions,
  type ReadTable,
  type Row,
  type Store,
  type TableDef,
  type Tx,
  type Where,
  type WriteTable,
  type TransactionOptions,
  type InsertOrGet,
  type Subscription,
} from './types.js';

/**
 * Committed state of one table, mirrored into lowdb's data object (`rows` is the very array
 * lowdb serialises). Rows are frozen, so an update replaces the object instead of changing it.
 */
class TableState<T extends Row> {
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
    for (const f of def.indexes ?? []) {
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
    const entries = definedEntries(where);
    const matches = (r: T) => entries.every(([f, v]) => field(r, f) === v);
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

/**
 * A transaction's view of one table: its changes are kept aside (copy-on-write) and only
 * applied at commit, so nobody outside the transaction ever reads a write that may still
 * be rolled back, and a rollback is simply dropping the overlay.
 */
class TxTable<T extends Row> {
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
    const limit = opts.limit ?? Infinity;
    const out: T[] = [];
    for (let i = start; i < ordered.length && out.length < limit; i++) {
      const r = ordered[i]!;
      if (entries.every(([f, v]) => field(r, f) === v)) out.push(r);
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
    if (expect && !definedEntries(expect).every(([f, v]) => field(old, f) === v)) return undefined;
    const next = deepFreeze(cloneRow({ ...old, ...patch, id: old.id })) as T;
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

function field(row: object, f: string): unknown {
  return (row as Record<string, unknown>)[f];
}

function definedEntries(where: object): [string, unknown][] {
  return Object.entries(where).filter(([, v]) => v !== undefined);
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

function uniqueKey(row: object, fields: readonly string[]): string | undefined {
  const values = fields.map((f) => field(row, f));
  if (values.some((v) => v === undefined || v === null)) return undefined;
  return JSON.stringify(values);
}

/**
 * A private deep copy of a row, so the caller cannot change it after the write. Rows are
 * JSON data, so plain objects and arrays are copied by hand (structuredClone costs several
 * times more and was the store's largest per-insert cost); anything else falls back to it.
 */
function cloneRow<V>(value: V): V {
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

function deepFreeze<V>(value: V): V {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Writes that may be on their way to disk at once. One: a write costs a few fsyncs, so
 * commits that arrive meanwhile wait for it and then share the next write (group commit).
 */
const MAX_FLUSHES_IN_FLIGHT = 1;

/**
 * lowdb-backed Store. Transactions run one at a time (a promise-chain mutex) against a
 * private overlay that is applied in one synchronous step at commit; concurrent
 * transactions then share one coalesced flush to disk (group commit) before each resolves.
 * Readers outside a transaction see committed state only (possibly a moment before it is on
 * disk; the writer is only answered once it is).
 */
export class LowdbStore implements Store {
  private readonly states = new Map<string, TableState<Row>>();
  private readonly readers = new Map<string, ReadTable<Row>>();
  private lock: Promise<void> = Promise.resolve();
  private queuedFlush: Promise<void> | null = null;
  private inFlight = 0;
  private readonly slotFreed: Array<() => void> = [];
  private closed = false;

  private constructor(
    private readonly db: Low<DbData>,
    private readonly file: BlockJSONFile,
  ) {}

  static async open(dataDir: string, fileName = 'db.json'): Promise<LowdbStore> {
    const adapter = new BlockJSONFile(path.join(dataDir, fileName));
    const db = new Low<DbData>(adapter, { version: 1, tables: {} });
    await db.read();
    db.data ??= { version: 1, tables: {} };
    db.data.tables ??= {};
    // Rows are frozen from here on: the adapter reuses the block file of unchanged rows.
    for (const rows of Object.values(db.data.tables)) for (const r of rows) deepFreeze(r);
    // A file in the older single-file format becomes blocks now, not at the first commit.
    if (adapter.needsRewrite) await db.write();
    return new LowdbStore(db, adapter);
  }

  /**
   * A store that lives in memory only (nothing is written anywhere): for fast domain tests.
   * Same code paths as the file store, minus the disk.
   */
  static inMemory(): LowdbStore {
    const adapter = {
      read: async () => null,
      write: async () => {},
      changed: () => {},
      close: async () => {},
      needsRewrite: false,
    } as unknown as BlockJSONFile;
    return new LowdbStore(new Low<DbData>(adapter, { version: 1, tables: {} }), adapter);
  }

  private state<T extends Row>(def: TableDef<T>): TableState<T> {
    let s = this.states.get(def.name);
    if (!s) {
      const rows = (this.db.data.tables[def.name] ??= []);
      s = new TableState<Row>(def as unknown as TableDef<Row>, rows, (pos, shifted) => this.file.changed(def.name, pos, shifted));
      this.states.set(def.name, s);
    }
    return s as unknown as TableState<T>;
  }

  table<T extends Row>(def: TableDef<T>): ReadTable<T> {
    // One handle per table: reads are hot and the handle holds no per-call state.
    let handle = this.readers.get(def.name) as ReadTable<T> | undefined;
    if (!handle) {
      const s = this.state(def);
      handle = {
        get: async (id) => s.get(id),
        findOne: async (where) => s.find(where, { limit: 1 })[0],
        findMany: async (where, opts) => s.find(where, opts),
        count: async (where) => s.count(where),
        // In memory, through the equality index: the pass reads only the rows it gets back.
        findRange: async (where, range) => (checkRange(s.def, where, range), rangeOf(s.find(where), range)),
      };
      this.readers.set(def.name, handle as unknown as ReadTable<Row>);
    }
    return handle;
  }

  // Options are moot here: transactions run one at a time, which is the strongest isolation.
  async transaction<R>(fn: (tx: Tx) => Promise<R>, _opts?: TransactionOptions): Promise<R> {
    if (this.closed) throw new Error('store is closed');
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((r) => (release = r));
    await previous;
    const overlays = new Map<string, TxTable<Row>>();
    const committed: Array<() => void> = [];
    let result: R;
    let open = true;
    try {
      const tx: Tx = {
        afterCommit: (fn) => {
          committed.push(fn);
        },
        publish: async (channel, payload) => {
          committed.push(() => this.emit(channel, payload));
        },
        table: <T extends Row>(def: TableDef<T>): WriteTable<T> => {
          let o = overlays.get(def.name) as TxTable<T> | undefined;
          if (!o) {
            o = new TxTable<T>(this.state(def));
            overlays.set(def.name, o as unknown as TxTable<Row>);
          }
          const t = o;
          // A tx handle kept past the end of its transaction must not write behind the lock.
          const live = () => {
            if (!open) throw new Error(`transaction on ${def.name} already finished`);
          };
          return {
            get: async (id) => t.get(id),
            findOne: async (where) => t.find(where, { limit: 1 })[0],
            findMany: async (where, opts) => t.find(where, opts),
            count: async (where) => t.count(where),
            findRange: async (where, range) => (checkRange(t.base.def, where, range), rangeOf(t.find(where), range)),
            insert: async (row) => (live(), t.insert(row)),
            insertOrGet: async (row) => {
              live();
              try {
                return { inserted: true, row: t.insert(row) };
              } catch (e) {
                const existing = e instanceof StoreConflictError ? t.get(e.existingId) : undefined;
                if (!existing) throw e;
                return { inserted: false, existing };
              }
            },
            update: async (id, patch, expect) => (live(), t.update(id, patch as Partial<T>, expect)),
            remove: async (id) => (live(), t.remove(id)),
          };
        },
      };
      result = await fn(tx);
    } catch (e) {
      open = false;
      release();
      throw e;
    }
    open = false;
    let changed = false;
    for (const o of overlays.values()) {
      if (o.changes.size === 0) continue;
      o.commit();
      changed = true;
    }
    release();
    if (changed) await this.flush();
    for (const fn of committed) fn();
    return result;
  }

  write<T extends Row, R>(def: TableDef<T>, fn: (table: WriteTable<T>) => Promise<R>): Promise<R> {
    return this.transaction((tx) => fn(tx.table(def)));
  }

  /**
   * Resolves once everything committed before the call is on disk. Commits that arrive
   * while a write is being prepared join the next one (group commit); up to
   * MAX_FLUSHES_IN_FLIGHT writes overlap (the adapter runs them in call order).
   */
  private flush(): Promise<void> {
    if (this.queuedFlush) return this.queuedFlush;
    const queued = (async () => {
      // Always yield first: until this flush starts, later commits can still join it.
      await null;
      while (this.inFlight >= MAX_FLUSHES_IN_FLIGHT) await new Promise<void>((r) => this.slotFreed.push(r));
      this.queuedFlush = null;
      this.inFlight++;
      try {
        await this.db.write();
      } finally {
        this.inFlight--;
        this.slotFreed.shift()?.();
      }
    })();
    this.queuedFlush = queued;
    return queued;
  }

  // One process owns a lowdb data dir, so leases and counters need no persistence.
  private readonly leases = new Map<string, { owner: string; expiresAt: number }>();
  private readonly counters = new Map<string, { hits: number; resetAt: number }>();

  async lease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const held = this.leases.get(name);
    if (held && held.owner !== owner && held.expiresAt > now) return false;
    this.leases.set(name, { owner, expiresAt: now + ttlMs });
    return true;
  }

  async leaseOwner(name: string): Promise<string | undefined> {
    const held = this.leases.get(name);
    return held && held.expiresAt > Date.now() ? held.owner : undefined;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    if (this.leases.get(name)?.owner === owner) this.leases.delete(name);
  }

  async countHit(key: string, windowMs: number): Promise<{ hits: number; resetAt: Date }> {
    const now = Date.now();
    let c = this.counters.get(key);
    if (!c || c.resetAt <= now) {
      // Forget finished windows now and then, so the map stays the size of the live ones.
      if (this.counters.size > 10_000) for (const [k, v] of this.counters) if (v.resetAt <= now) this.counters.delete(k);
      c = { hits: 0, resetAt: now + windowMs };
      this.counters.set(key, c);
    }
    c.hits++;
    return { hits: c.hits, resetAt: new Date(c.resetAt) };
  }

  insertOrGet<T extends Row>(def: TableDef<T>, row: T): Promise<InsertOrGet<T>> {
    return this.transaction((tx) => tx.table(def).insertOrGet(row));
  }

  // One process: a channel is an in-process list of listeners, always live.
  private readonly channels = new Map<string, Set<(payload: string | undefined) => void>>();

  private emit(channel: string, payload: string): void {
    for (const fn of this.channels.get(channel) ?? []) fn(payload);
  }

  async subscribe(channel: string, fn: (payload: string | undefined) => void): Promise<Subscription> {
    let set = this.channels.get(channel);
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(fn);
    return { live: true, close: async () => void set.delete(fn) };
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    await this.lock;
    await this.queuedFlush?.catch(() => undefined);
    this.closed = true;
    // Waits for the write in flight, then stops the writer thread.
    await this.file.close();
  }
}
