import path from 'node:path';
import { Low } from 'lowdb';
import { BLOCK_ROWS, BlockJSONFile, LOG_BYTES, type DbData } from './block-json-file.js';
import type { DiskStats } from './writer-thread.js';
import { checkRange, rangeOf } from './range.js';
import {
  StoreConflictError,
  type ReadTable,
  type Row,
  type Store,
  type TableDef,
  type Tx,
  type WriteTable,
  type TransactionOptions,
  type InsertOrGet,
  type Subscription,
} from './types.js';
import { deepFreeze } from './row-values.js';
import { TableState } from './lowdb-table-state.js';
import { TxTable, TxWriteTable } from './lowdb-tx-table.js';
import { noteWrite } from '../lib/write-watch.js';

/**
 * Writes that may be on their way to disk at once. One: a write costs an fdatasync, so
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

  /**
   * `opts.logBytes`: commit log size after which a commit writes blocks again (a checkpoint);
   * 0 makes every commit a checkpoint (the block format's own tests use it).
   */
  static async open(dataDir: string, fileName = 'db.json', opts: { logBytes?: number } = {}): Promise<LowdbStore> {
    const adapter = new BlockJSONFile(path.join(dataDir, fileName), BLOCK_ROWS, opts.logBytes ?? LOG_BYTES);
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
      diskStats: { syncs: 0, files: 0 },
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

  // Options are moot here but `deferDurability`: transactions run one at a time, which is the strongest isolation.
  async transaction<R>(fn: (tx: Tx) => Promise<R>, opts?: TransactionOptions): Promise<R> {
    // A write may be beginning (the agent's store-error boundary, lib/write-watch.ts).
    if (opts?.recordsNoAction !== true) noteWrite();
    if (this.closed) throw new Error('store is closed');
    const previous = this.lock;
    let release!: () => void;
    this.lock = new Promise<void>((r) => (release = r));
    await previous;
    const overlays = new Map<string, TxTable<Row>>();
    const handles = new Map<string, TxWriteTable<Row>>();
    const committed: Array<() => void> = [];
    let result: R;
    const state = { open: true };
    try {
      const tx: Tx = {
        afterCommit: (fn) => {
          committed.push(fn);
        },
        publish: async (channel, payload) => {
          committed.push(() => this.emit(channel, payload));
        },
        table: <T extends Row>(def: TableDef<T>): WriteTable<T> => {
          let h = handles.get(def.name) as TxWriteTable<T> | undefined;
          if (!h) {
            const o = new TxTable<T>(this.state(def));
            overlays.set(def.name, o as unknown as TxTable<Row>);
            h = new TxWriteTable<T>(o, state);
            handles.set(def.name, h as unknown as TxWriteTable<Row>);
          }
          return h;
        },
      };
      result = await fn(tx);
    } catch (e) {
      state.open = false;
      release();
      throw e;
    }
    state.open = false;
    let changed = false;
    for (const o of overlays.values()) {
      if (o.changes.size === 0) continue;
      o.commit();
      changed = true;
    }
    release();
    // Deferred: the next flush (any later durable commit, or sync) writes it with its own.
    if (changed && opts?.deferDurability) this.unflushed = true;
    else if (changed) await this.flush();
    for (const fn of committed) fn();
    return result;
  }

  /** Commits made since the last flush began that asked for none (`deferDurability`). */
  private unflushed = false;
  /** The write on its way to disk, if any. */
  private writing: Promise<void> | undefined;

  sync(): Promise<void> {
    if (this.unflushed || this.queuedFlush) return this.flush();
    return this.writing ?? Promise.resolve();
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
      // This write takes every commit so far, deferred ones included.
      this.unflushed = false;
      const writing = this.db.write();
      this.writing = writing;
      try {
        await writing;
      } catch (e) {
        // Nothing of it counts (block-json-file.ts): the next flush writes it again.
        this.unflushed = true;
        throw e;
      } finally {
        if (this.writing === writing) this.writing = undefined;
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
    return { live: true, solo: true, close: async () => void set.delete(fn) };
  }

  /** What the store's writer thread has done so far: fdatasync/fsync calls and files written (for tests and benches). */
  diskStats(): DiskStats {
    return this.file.diskStats;
  }

  async ping(): Promise<boolean> {
    return !this.closed;
  }

  async close(): Promise<void> {
    await this.lock;
    await this.queuedFlush?.catch(() => undefined);
    if (this.unflushed) await this.flush().catch(() => undefined);
    this.closed = true;
    // Waits for the write in flight, then stops the writer thread.
    await this.file.close();
  }
}
