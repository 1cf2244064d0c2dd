/**
 * The store interface every domain module uses. lowdb implements it today; a PostgreSQL
 * implementation can replace it without touching the domain modules: tables are named,
 * filters are equality only, updates can carry an expectation (compare-and-set) and
 * multi-row writes happen inside `transaction`.
 */
export type Row = { readonly id: string };

/** Equality filter on top-level fields. */
export type Where<T> = { [K in keyof T]?: T[K] };

export interface FindOptions {
  /** Insertion order; 'desc' is newest first. */
  order?: 'asc' | 'desc';
  limit?: number;
  /** Cursor: start after the row with this id (in the chosen order). */
  after?: string;
  /**
   * Rows whose `field` equals one of `values` (besides `where`), in the same order, cursor and
   * limit: one index range per value, merged (PostgreSQL: a UNION ALL of ordered, limited scans
   * of an index on `where`'s fields and `field`), so a page reads about `limit` rows per value
   * instead of every row of the set (GET /v1/payments?status=expired, issue 23).
   */
  anyOf?: { field: string; values: readonly unknown[] };
}

/**
 * A range read (`ReadTable.findRange`): the rows matching an equality filter whose `field` is
 * present and at most `atMost`, in `(field, id)` order, a page at a time. Background passes
 * (expiry sweep, settlement reconciler) use it to read only the rows that are due, through an
 * index, however many other rows the table holds. The pair (equality field, `field`) must be
 * declared in the table's `ranges`.
 */
export interface RangeQuery {
  field: string;
  /** Upper bound, inclusive (strings compare as text, so ISO timestamps compare as times); unset: no bound. */
  atMost?: string;
  /** Cursor: the `field` value and id of the last row of the previous page. */
  after?: { value: unknown; id: string };
  limit: number;
}

export interface TableDef<T extends Row> {
  readonly name: string;
  /** Groups of fields whose combined values must be unique (rows missing a field are exempt). */
  readonly unique?: ReadonlyArray<ReadonlyArray<keyof T & string>>;
  /**
   * Fields with an equality index, in insertion order. A group of fields is one index on all of
   * them (PostgreSQL: equality on every field, then insertion order), for a filter that names
   * them all where one field alone matches too many rows (a merchant's test-mode rows among a
   * million live ones); lowdb's in-memory indexes are per field: a group gives its first field one.
   */
  readonly indexes?: ReadonlyArray<(keyof T & string) | ReadonlyArray<keyof T & string>>;
  /** `[equality field, range field]` pairs with an index for `findRange` (one equality field, then the range). */
  readonly ranges?: ReadonlyArray<readonly [keyof T & string, keyof T & string]>;
  /**
   * A number field the store bumps by one on every update of a row, whatever the patch says (in
   * the update's own statement on PostgreSQL): a compare-and-set that names the value read sees
   * any write since that read, even two within one millisecond, which an `updatedAt` cannot.
   * A row without it counts as 0.
   */
  readonly version?: keyof T & string;
  /** Phantom field carrying the row type. */
  readonly __row?: T;
}

/** Every table defined so far, by name (the PostgreSQL store checks its migrations against them). */
const definedTables = new Map<string, TableDef<Row>>();

export function defineTable<T extends Row>(def: Omit<TableDef<T>, '__row'>): TableDef<T> {
  definedTables.set(def.name, def as TableDef<Row>);
  return def;
}

/** The tables defined by the modules loaded so far. */
export function knownTables(): TableDef<Row>[] {
  return [...definedTables.values()];
}

export interface ReadTable<T extends Row> {
  get(id: string): Promise<T | undefined>;
  findOne(where: Where<T>): Promise<T | undefined>;
  findMany(where?: Where<T>, opts?: FindOptions): Promise<T[]>;
  count(where?: Where<T>): Promise<number>;
  /** Rows matching `where` (one field, declared with `range.field` in `ranges`) in a range; see RangeQuery. */
  findRange(where: Where<T>, range: RangeQuery): Promise<T[]>;
}

export interface WriteTable<T extends Row> extends ReadTable<T> {
  /** Throws StoreConflictError on a duplicate id or unique violation. */
  insert(row: T): Promise<T>;
  /** Returns the new row, or undefined when the row is missing or `expect` does not hold. */
  update(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<T | undefined>;
  /**
   * `update` that also gives the row as it was just before (for listeners of a status change),
   * without a read first: one statement on PostgreSQL.
   */
  updateWithBefore(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<{ before: T; after: T } | undefined>;
  /**
   * `update` whose outcome the caller does not read (a compare-and-set that finds nothing to
   * change is fine): PostgreSQL sends it in the same round trip as the transaction's next
   * statement or its COMMIT. Every later statement of the transaction sees it; a failure fails
   * the transaction. Optional: call it through `updateUnread` (update-later.ts), which awaits
   * `update` where a store has none.
   */
  updateLater?(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): void;
  /**
   * `insert` of a row whose keys nobody else can hold (a fresh random id, no unique group taken
   * by design), whose answer the caller does not wait for: PostgreSQL sends it with the
   * transaction's next statement or its COMMIT, and answers the row as given at once. A key taken
   * after all fails the transaction (a database error, not a StoreConflictError). Optional: call
   * it through `insertUnread` (update-later.ts).
   */
  insertLater?(row: T): T;
  /**
   * The row stored as `row` exactly, inserted or replacing the whole row that holds its id, whose
   * answer the caller does not wait for: PostgreSQL sends it with the transaction's next
   * statement or its COMMIT (one `INSERT … ON CONFLICT (id) DO UPDATE`). Only for a table with no
   * unique groups and no version. Optional: call it through `putUnread` (update-later.ts).
   */
  putLater?(row: T): void;
  remove(id: string): Promise<boolean>;
  /**
   * Inserts `row`, or returns the row that already holds its id or one of its unique keys
   * (`existing`), without failing the transaction: an insert-or-dedupe in one statement on
   * PostgreSQL (INSERT ... ON CONFLICT DO NOTHING and the holder's read in one CTE).
   */
  insertOrGet(row: T): Promise<InsertOrGet<T>>;
}

export type InsertOrGet<T> = { inserted: true; row: T } | { inserted: false; existing: T };

/** A subscription to a store channel (`Store.subscribe`). */
export interface Subscription {
  /** False while notifications may be missed (the listening connection is down): trust no cache it keeps fresh. */
  readonly live: boolean;
  /** True when this process is the only one on the store (lowdb): a notice reaches nobody else. */
  readonly solo?: boolean;
  close(): Promise<void>;
}

export interface Tx {
  table<T extends Row>(def: TableDef<T>): WriteTable<T>;
  /**
   * Runs `fn` once this transaction has committed (never if it rolls back, once even if the
   * body is retried): for work that must see the committed rows, like waking a worker.
   */
  afterCommit(fn: () => void): void;
  /**
   * Tells every process subscribed to `channel` (`Store.subscribe`), once this transaction has
   * committed (PostgreSQL NOTIFY, delivered at commit, never on rollback).
   */
  publish(channel: string, payload: string): Promise<void>;
}

export interface TransactionOptions {
  /**
   * The body is right in any interleaving as long as its unique keys hold: it reads rows by a
   * unique key and inserts under that key (payment create: the idempotency key, the
   * `(account, reference)` pair), and nothing else it reads decides what it writes. A store may
   * then run it with weaker isolation and, when an insert meets a key a concurrent transaction
   * took, run the body again (it then reads the winner). Never for balance checks or anything
   * that reads a set to decide: those need the default. lowdb ignores it (it runs one at a time).
   */
  guardedByUniqueKeys?: boolean;
  /**
   * The body is short (a few statements on rows it names) and may share its commit with other
   * such transactions that arrive together: on PostgreSQL they run one after another inside one
   * database transaction (src/store/pg/commit-groups.ts), and a body may then run more than once
   * (as on a serialization retry), so it must do nothing outside the store. Each still commits
   * atomically and durably before its promise resolves, in some serial order; afterCommit and
   * publish keep their meaning. lowdb ignores it (its commits are grouped already).
   */
  shareCommit?: boolean;
  /**
   * The commit may become durable later, with the next durable commit on this store or
   * `sync()`, instead of before the promise resolves: its writes are visible at once, in the
   * same serial order, and a crash before then loses them (and nothing committed after them is
   * durable without them). Only for a record whose loss before any later durable commit harms
   * nobody: e.g. an agent transfer's hold, whose money leaves only after the relay journal's
   * durable commit (docs/performance.md, issue 23 eighth round). PostgreSQL ignores it (every
   * commit durable); lowdb skips the write (one fsync fewer on the caller's path).
   */
  deferDurability?: boolean;
  /**
   * The transaction records nothing of anyone's action (a cache channel's ping or notice, a
   * NOTIFY alone): the agent's store-error boundary (lib/write-watch.ts) does not count it as a
   * write begun. A channel pings every half second on PostgreSQL, so counting it turned a
   * confirm whose read failed before any write into "outcome unknown" on a loaded machine.
   */
  recordsNoAction?: boolean;
}

export interface Store {
  /** Committed rows (frozen: copy before changing). */
  table<T extends Row>(def: TableDef<T>): ReadTable<T>;
  /**
   * Runs `fn` alone; its writes become visible together and are durable on disk before the
   * returned promise resolves. If `fn` throws, none of its writes happen. Do no slow I/O inside.
   */
  transaction<R>(fn: (tx: Tx) => Promise<R>, opts?: TransactionOptions): Promise<R>;
  /** Resolves once every commit made before the call is durable (`deferDurability` ones too). */
  sync?(): Promise<void>;
  /** Shorthand for a one-table transaction. */
  write<T extends Row, R>(def: TableDef<T>, fn: (table: WriteTable<T>) => Promise<R>): Promise<R>;
  /**
   * Takes or renews the lease `name` for `owner` for `ttlMs` and says whether `owner` holds it:
   * false while another owner holds one that has not expired. Several instances on one
   * database coordinate work with it (docs/deploy.md); lowdb, one process, keeps it in memory.
   */
  lease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Who holds the lease `name` now (undefined when nobody, or it expired). */
  leaseOwner(name: string): Promise<string | undefined>;
  /** Gives the lease up early, if `owner` holds it. */
  releaseLease(name: string, owner: string): Promise<void>;
  /**
   * Counts one hit on `key` in a fixed window of `windowMs` that starts at the first hit, and
   * returns the hits so far in the window and when it ends. Exact across instances on PostgreSQL.
   */
  countHit(key: string, windowMs: number): Promise<{ hits: number; resetAt: Date }>;
  /** `insertOrGet` as a transaction of its own (on PostgreSQL one autocommit statement). */
  insertOrGet<T extends Row>(def: TableDef<T>, row: T): Promise<InsertOrGet<T>>;
  /**
   * The committed row `id` and the store's clock (epoch ms) read in one statement: on PostgreSQL
   * `clock_timestamp()`, the one clock instances sharing the database agree on (leases use it
   * too). Without it (lowdb: one process), the process clock is the store's.
   */
  getWithClock?<T extends Row>(def: TableDef<T>, id: string): Promise<{ row: T | undefined; now: number }>;
  /**
   * Calls `fn` with every payload published on `channel` by any process sharing the store, and
   * with `undefined` whenever some may have been missed (a reconnect): drop everything then.
   */
  subscribe(channel: string, fn: (payload: string | undefined) => void): Promise<Subscription>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export class StoreConflictError extends Error {
  constructor(
    readonly table: string,
    readonly fields: readonly string[],
    readonly existingId: string,
  ) {
    super(`${table}: duplicate ${fields.join('+')}`);
  }
}
