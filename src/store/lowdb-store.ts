import path from 'node:path';
import { Low } from 'lowdb';
import { AtomicJSONFile } from './atomic-json-file.js';
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
} from './types.js';

interface DbData {
  version: 1;
  tables: Record<string, Row[]>;
}

type Undo = () => void;

/** In-memory state of one table, mirrored into lowdb's data object. */
class TableState<T extends Row> {
  readonly pos = new Map<string, number>();
  readonly indexes = new Map<string, Map<unknown, Set<string>>>();
  readonly uniques: { fields: readonly string[]; keys: Map<string, string> }[] = [];

  constructor(
    readonly def: TableDef<T>,
    readonly rows: T[],
  ) {
    rows.forEach((r, i) => {
      deepFreeze(r);
      this.pos.set(r.id, i);
    });
    for (const f of def.indexes ?? []) {
      const idx = new Map<unknown, Set<string>>();
      this.indexes.set(f, idx);
      for (const r of rows) addToIndex(idx, (r as Record<string, unknown>)[f], r.id);
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

  find(where: Where<T> = {}, opts: FindOptions = {}): T[] {
    const entries = Object.entries(where).filter(([, v]) => v !== undefined);
    let candidates: T[] | undefined;
    for (const [field, value] of entries) {
      const idx = this.indexes.get(field);
      if (!idx) continue;
      const ids = idx.get(value);
      if (!ids) return [];
      const list = [...ids].map((id) => this.pos.get(id)!).sort((a, b) => a - b).map((i) => this.rows[i]!);
      if (!candidates || list.length < candidates.length) candidates = list;
    }
    const source = candidates ?? this.rows;
    const matches = (r: T) => entries.every(([f, v]) => (r as Record<string, unknown>)[f] === v);
    const desc = opts.order === 'desc';
    const limit = opts.limit ?? Infinity;
    const out: T[] = [];
    let skipping = opts.after !== undefined;
    const afterPos = opts.after !== undefined ? this.pos.get(opts.after) : undefined;
    if (skipping && afterPos === undefined) return [];
    for (let k = 0; k < source.length && out.length < limit; k++) {
      const r = source[desc ? source.length - 1 - k : k]!;
      if (skipping) {
        const p = this.pos.get(r.id)!;
        if (desc ? p >= afterPos! : p <= afterPos!) continue;
        skipping = false;
      }
      if (matches(r)) out.push(r);
    }
    return out;
  }

  insert(row: T, undo: Undo[]): T {
    if (this.pos.has(row.id)) throw new StoreConflictError(this.def.name, ['id'], row.id);
    const keys = this.uniques.map((u) => uniqueKey(row, u.fields));
    this.uniques.forEach((u, i) => {
      const k = keys[i];
      const existing = k === undefined ? undefined : u.keys.get(k);
      if (existing !== undefined) throw new StoreConflictError(this.def.name, u.fields, existing);
    });
    const frozen = deepFreeze(structuredClone(row));
    this.rows.push(frozen);
    this.pos.set(frozen.id, this.rows.length - 1);
    this.uniques.forEach((u, i) => keys[i] !== undefined && u.keys.set(keys[i]!, frozen.id));
    for (const [f, idx] of this.indexes) addToIndex(idx, (frozen as Record<string, unknown>)[f], frozen.id);
    undo.push(() => this.removeNow(frozen.id));
    return frozen;
  }

  update(id: string, patch: Partial<T>, expect: Where<T> | undefined, undo: Undo[]): T | undefined {
    const old = this.get(id);
    if (!old) return undefined;
    if (expect && !Object.entries(expect).every(([f, v]) => (old as Record<string, unknown>)[f] === v)) return undefined;
    const next = deepFreeze(structuredClone({ ...old, ...patch, id: old.id })) as T;
    this.uniques.forEach((u) => {
      const k = uniqueKey(next, u.fields);
      const holder = k === undefined ? undefined : u.keys.get(k);
      if (holder !== undefined && holder !== id) throw new StoreConflictError(this.def.name, u.fields, holder);
    });
    this.replace(old, next);
    undo.push(() => this.replace(next, old));
    return next;
  }

  remove(id: string, undo: Undo[]): boolean {
    const old = this.get(id);
    if (!old) return false;
    const at = this.pos.get(id)!;
    this.removeNow(id);
    undo.push(() => {
      this.rows.splice(at, 0, old);
      this.reindexPositions();
      this.uniques.forEach((u) => {
        const k = uniqueKey(old, u.fields);
        if (k !== undefined) u.keys.set(k, id);
      });
      for (const [f, idx] of this.indexes) addToIndex(idx, (old as Record<string, unknown>)[f], id);
    });
    return true;
  }

  private replace(old: T, next: T): void {
    this.rows[this.pos.get(old.id)!] = next;
    this.uniques.forEach((u) => {
      const ok = uniqueKey(old, u.fields);
      if (ok !== undefined && u.keys.get(ok) === old.id) u.keys.delete(ok);
      const nk = uniqueKey(next, u.fields);
      if (nk !== undefined) u.keys.set(nk, next.id);
    });
    for (const [f, idx] of this.indexes) {
      const ov = (old as Record<string, unknown>)[f];
      const nv = (next as Record<string, unknown>)[f];
      if (ov !== nv) {
        idx.get(ov)?.delete(old.id);
        addToIndex(idx, nv, next.id);
      }
    }
  }

  private removeNow(id: string): void {
    const at = this.pos.get(id);
    if (at === undefined) return;
    const old = this.rows[at]!;
    this.rows.splice(at, 1);
    this.reindexPositions();
    this.uniques.forEach((u) => {
      const k = uniqueKey(old, u.fields);
      if (k !== undefined && u.keys.get(k) === id) u.keys.delete(k);
    });
    for (const [f, idx] of this.indexes) idx.get((old as Record<string, unknown>)[f])?.delete(id);
  }

  private reindexPositions(): void {
    this.pos.clear();
    this.rows.forEach((r, i) => this.pos.set(r.id, i));
  }
}

function addToIndex(idx: Map<unknown, Set<string>>, value: unknown, id: string): void {
  let set = idx.get(value);
  if (!set) idx.set(value, (set = new Set()));
  set.add(id);
}

function uniqueKey(row: object, fields: readonly string[]): string | undefined {
  const values = fields.map((f) => (row as Record<string, unknown>)[f]);
  if (values.some((v) => v === undefined || v === null)) return undefined;
  return JSON.stringify(values);
}

function deepFreeze<V>(value: V): V {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * lowdb-backed Store. Transactions run one at a time (a promise-chain mutex); writes are
 * applied in memory with an undo log, and concurrent transactions share one coalesced
 * flush to disk (group commit) before each of them resolves.
 */
export class LowdbStore implements Store {
  private readonly states = new Map<string, TableState<Row>>();
  private lock: Promise<void> = Promise.resolve();
  private queuedFlush: Promise<void> | null = null;
  private runningFlush: Promise<void> | null = null;
  private closed = false;

  private constructor(private readonly db: Low<DbData>) {}

  static async open(dataDir: string, fileName = 'db.json'): Promise<LowdbStore> {
    const db = new Low<DbData>(new AtomicJSONFile<DbData>(path.join(dataDir, fileName)), { version: 1, tables: {} });
    await db.read();
    db.data ??= { version: 1, tables: {} };
    db.data.tables ??= {};
    return new LowdbStore(db);
  }

  private state<T extends Row>(def: TableDef<T>): TableState<T> {
    let s = this.states.get(def.name);
    if (!s) {
      const rows = (this.db.data.tables[def.name] ??= []);
      s = new TableState<Row>(def as unknown as TableDef<Row>, rows);
      this.states.set(def.name, s);
    }
    return s as unknown as TableState<T>;
  }

  table<T extends Row>(def: TableDef<T>): ReadTable<T> {
    const s = () => this.state(def);
    return {
      get: async (id) => s().get(id),
      findOne: async (where) => s().find(where, { limit: 1 })[0],
      findMany: async (where, opts) => s().find(where, opts),
      count: async (where) => s().find(where).length,
    };
  }

  async transaction<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    if (this.closed) throw new Error('store is closed');
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((r) => (release = r));
    await previous;
    const undo: Undo[] = [];
    let result: R;
    try {
      const tx: Tx = {
        table: <T extends Row>(def: TableDef<T>): WriteTable<T> => {
          const s = this.state(def);
          return {
            ...this.table(def),
            insert: async (row) => s.insert(row, undo),
            update: async (id, patch, expect) => s.update(id, patch as Partial<T>, expect, undo),
            remove: async (id) => s.remove(id, undo),
          };
        },
      };
      result = await fn(tx);
    } catch (e) {
      for (const u of undo.reverse()) u();
      release();
      throw e;
    }
    release();
    if (undo.length > 0) await this.flush();
    return result;
  }

  write<T extends Row, R>(def: TableDef<T>, fn: (table: WriteTable<T>) => Promise<R>): Promise<R> {
    return this.transaction((tx) => fn(tx.table(def)));
  }

  /** Resolves once everything committed before the call is on disk. */
  private flush(): Promise<void> {
    if (this.queuedFlush) return this.queuedFlush;
    const queued = (async () => {
      await this.runningFlush?.catch(() => undefined);
      this.queuedFlush = null;
      this.runningFlush = this.db.write();
      await this.runningFlush;
    })();
    this.queuedFlush = queued;
    return queued;
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    await this.lock;
    await this.queuedFlush?.catch(() => undefined);
    await this.runningFlush?.catch(() => undefined);
    this.closed = true;
  }
}
