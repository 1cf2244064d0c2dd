import { createHash } from 'node:crypto';
import pg from 'pg';
import {
  StoreConflictError,
  type FindOptions,
  type RangeQuery,
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
} from '../types.js';
import { PgNotifier } from './notify.js';
import { checkRange } from '../range.js';
import { migrate } from './migrate.js';
import { fieldExpr, ident, indexSpecs, presentExpr } from './schema.js';

/**
 * The Store on PostgreSQL (DATABASE_URL). Every transaction runs at SERIALIZABLE, so the
 * domain's read-check-write code (balance checks, reference dedupe, compare-and-set) keeps
 * the guarantee it has on lowdb, where transactions run one at a time: the outcome is that of
 * some serial order. A transaction PostgreSQL aborts for a serialization failure or deadlock
 * is run again from the start (transaction bodies do no outside I/O, so this is safe), up to
 * MAX_ATTEMPTS times. Unique groups are real unique indexes; a duplicate insert is found with
 * ON CONFLICT DO NOTHING, which leaves the transaction usable, and answered with the same
 * StoreConflictError (naming the row that holds the key) as lowdb gives.
 */

const MAX_ATTEMPTS = 30;
const RETRYABLE = new Set(['40001', '40P01']);
/** A body guarded by unique keys reads the winner on its second run; a third is a real conflict. */
const KEY_TAKEN_ATTEMPTS = 3;
/** Any fixed 64-bit number, shared by every instance (see `attempt`). */
const RETRY_LOCK = 7_243_100_002;

export interface PgStoreOptions {
  /** Pool size per instance (each open transaction holds one connection). */
  poolMax?: number;
  /** Run the migrations at open (default true). */
  migrate?: boolean;
  /** For tests: called with the attempt number whenever a transaction is retried. */
  onRetry?: (attempt: number, code: string) => void;
}

type Client = pg.PoolClient | pg.Pool;

/** An error PostgreSQL gives: the SQLSTATE is in `code`. */
function sqlState(e: unknown): string | undefined {
  return e && typeof e === 'object' && 'code' in e && typeof (e as { code: unknown }).code === 'string'
    ? (e as { code: string }).code
    : undefined;
}

class RetryTransaction extends Error {
  readonly code = '40001';
  constructor(why: string) {
    super(`transaction must be retried: ${why}`);
  }
}

function deepFreeze<V>(value: V): V {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function definedEntries(where: object): [string, unknown][] {
  return Object.entries(where).filter(([, v]) => v !== undefined);
}

/** SQL for one table; built once per TableDef. */
class TableSql<T extends Row> {
  readonly t: string;
  readonly uniqueFields: Set<string>;

  constructor(readonly def: TableDef<T>) {
    this.t = ident(def.name);
    this.uniqueFields = new Set((def.unique ?? []).flat());
  }

  private readonly names = new Map<string, string>();

  /**
   * A name for a prepared statement whose plan does not depend on its values (a lookup by id or
   * by a whole unique key): parsed and planned once per connection instead of per call.
   */
  prepared(text: string): string {
    let n = this.names.get(text);
    if (!n) this.names.set(text, (n = `sp_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
    return n;
  }

  /**
   * One statement: insert `row` unless its id or a unique key is taken; if taken, the holder's
   * doc (visible to this statement's snapshot). `doc` NULL means inserted; no row means the key
   * is held by a row this snapshot cannot see yet (a concurrent commit).
   */
  insertOrGet(row: Row, doc: string): { text: string; params: unknown[] } {
    const params: unknown[] = [row.id, doc];
    const holders = ['id = $1'];
    for (const fields of this.def.unique ?? []) {
      const values = fields.map((f) => (row as Record<string, unknown>)[f]);
      if (values.some((v) => v === undefined || v === null)) continue;
      holders.push(this.where(Object.fromEntries(fields.map((f, i) => [f, values[i]])) as Where<T>, params).join(' AND '));
    }
    // One branch per key, each an index lookup (an OR of them got a sequential scan as the
    // generic plan of the prepared statement); none runs when the insert went through.
    const lookups = holders.map((h) => `SELECT doc FROM ${this.t} WHERE NOT EXISTS (SELECT 1 FROM ins) AND ${h}`);
    const text =
      `WITH ins AS (INSERT INTO ${this.t} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT DO NOTHING RETURNING 1) ` +
      `SELECT NULL::jsonb AS doc FROM ins UNION ALL (${lookups.join(' UNION ALL ')} LIMIT 1)`;
    return { text, params };
  }

  /** Whether `where` pins at most one row: the id, or every field of a unique group (non-null). */
  singleRow(where: Where<T> | undefined): boolean {
    const w = (where ?? {}) as Record<string, unknown>;
    if (typeof w.id === 'string') return true;
    return (this.def.unique ?? []).some((fields) => fields.every((f) => w[f] !== undefined && w[f] !== null));
  }

  /** WHERE clauses for an equality filter; values travel as jsonb parameters. */
  where(where: Where<T> | undefined, params: unknown[]): string[] {
    const clauses: string[] = [];
    for (const [f, v] of definedEntries(where ?? {})) {
      if (f === 'id' && typeof v === 'string') {
        params.push(v);
        clauses.push(`id = $${params.length}`);
        continue;
      }
      params.push(JSON.stringify(v));
      clauses.push(`${fieldExpr(f)} = $${params.length}::jsonb`);
      // Spelled like the partial unique index's predicate, so the planner can use that index.
      if (v !== null && this.uniqueFields.has(f)) clauses.push(presentExpr(f));
    }
    return clauses;
  }
}

function decode<T>(doc: unknown): T {
  return deepFreeze(doc as T);
}

/** `insertOrGet` on `run` (a transaction's client, or the pool for one autocommit statement). */
async function insertOrGetWith<T extends Row>(sql: TableSql<T>, run: Run, row: T): Promise<InsertOrGet<T>> {
  const doc = JSON.stringify(row);
  const q = sql.insertOrGet(row, doc);
  const r = await run<{ doc: T | null }>(q.text, q.params, sql.prepared(q.text));
  if (r.rows.length === 0) throw new RetryTransaction(`unique key on ${sql.def.name} taken concurrently`);
  const got = r.rows[0]!.doc;
  // Inserted: the row is what was sent (parsed back from the same JSON, not read back over the wire).
  return got === null ? { inserted: true, row: decode<T>(JSON.parse(doc)) } : { inserted: false, existing: decode<T>(got) };
}

type Run = <R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) => Promise<pg.QueryResult<R>>;

class PgTable<T extends Row> implements WriteTable<T> {
  private readonly getSql: string;

  constructor(
    private readonly sql: TableSql<T>,
    private readonly run: Run,
    private readonly inTx: boolean,
  ) {
    this.getSql = `SELECT doc FROM ${this.sql.t} WHERE id = $1`;
  }

  async get(id: string): Promise<T | undefined> {
    const r = await this.run<{ doc: T }>(this.getSql, [id], this.sql.prepared(this.getSql));
    return r.rows[0] ? decode<T>(r.rows[0].doc) : undefined;
  }

  async insertOrGet(row: T): Promise<InsertOrGet<T>> {
    this.writable();
    return insertOrGetWith(this.sql, this.run, row);
  }

  async findOne(where: Where<T>): Promise<T | undefined> {
    return (await this.findMany(where, { limit: 1 }))[0];
  }

  async findMany(where: Where<T> = {}, opts: FindOptions = {}): Promise<T[]> {
    if (opts.limit !== undefined && opts.limit <= 0) return [];
    const params: unknown[] = [];
    const clauses = this.sql.where(where, params);
    const desc = opts.order === 'desc';
    if (opts.after !== undefined) {
      params.push(opts.after);
      // An unknown cursor compares with NULL: no rows, as on lowdb.
      clauses.push(`seq ${desc ? '<' : '>'} (SELECT seq FROM ${this.sql.t} WHERE id = $${params.length})`);
    }
    let text = `SELECT doc FROM ${this.sql.t}`;
    if (clauses.length) text += ` WHERE ${clauses.join(' AND ')}`;
    // A filter naming the id or a whole unique group matches at most one row: no ORDER BY,
    // which would tempt the planner to walk the seq index and filter (a full scan when the
    // key is new, as for every reference dedupe of a new payment).
    if (!this.sql.singleRow(where)) text += ` ORDER BY seq ${desc ? 'DESC' : 'ASC'}`;
    if (opts.limit !== undefined && Number.isFinite(opts.limit)) {
      params.push(Math.floor(opts.limit));
      text += ` LIMIT $${params.length}`;
    }
    const r = await this.run<{ doc: T }>(text, params);
    return r.rows.map((row) => decode<T>(row.doc));
  }

  async findRange(where: Where<T>, range: RangeQuery): Promise<T[]> {
    checkRange(this.sql.def, where, range);
    const params: unknown[] = [];
    const clauses = this.sql.where(where, params);
    const f = fieldExpr(range.field);
    // Spelled like the partial range index (schema.ts), so this is one index range scan.
    clauses.push(presentExpr(range.field));
    if (range.atMost !== undefined) {
      params.push(JSON.stringify(range.atMost));
      clauses.push(`${f} <= $${params.length}::jsonb`);
    }
    if (range.after !== undefined) {
      params.push(JSON.stringify(range.after.value), range.after.id);
      clauses.push(`(${f}, id) > ($${params.length - 1}::jsonb, $${params.length})`);
    }
    params.push(Math.floor(range.limit));
    const text = `SELECT doc FROM ${this.sql.t} WHERE ${clauses.join(' AND ')} ORDER BY ${f}, id LIMIT $${params.length}`;
    const r = await this.run<{ doc: T }>(text, params);
    return r.rows.map((row) => decode<T>(row.doc));
  }

  async count(where: Where<T> = {}): Promise<number> {
    const params: unknown[] = [];
    const clauses = this.sql.where(where, params);
    const text = `SELECT count(*)::int AS n FROM ${this.sql.t}${clauses.length ? ` WHERE ${clauses.join(' AND ')}` : ''}`;
    const r = await this.run<{ n: number }>(text, params);
    return r.rows[0]!.n;
  }

  private writable(): void {
    if (!this.inTx) throw new Error('writes go through store.transaction');
  }


  /** The row holding the key that `row` collides with, for the StoreConflictError. */
  private async conflictFor(row: T, self?: string): Promise<StoreConflictError> {
    if (self === undefined && (await this.get(row.id))) return new StoreConflictError(this.sql.def.name, ['id'], row.id);
    for (const fields of this.sql.def.unique ?? []) {
      const values = fields.map((f) => (row as Record<string, unknown>)[f]);
      if (values.some((v) => v === undefined || v === null)) continue;
      const where = Object.fromEntries(fields.map((f, i) => [f, values[i]])) as Where<T>;
      const holder = await this.findOne(where);
      if (holder && holder.id !== self) return new StoreConflictError(this.sql.def.name, fields, holder.id);
    }
    // The key is held by a row this transaction cannot see yet (a concurrent commit).
    throw new RetryTransaction(`unique key on ${this.sql.def.name} taken concurrently`);
  }

  async insert(row: T): Promise<T> {
    this.writable();
    const doc = JSON.stringify(row);
    const r = await this.run<{ doc: T }>(
      `INSERT INTO ${this.sql.t} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT DO NOTHING RETURNING doc`,
      [row.id, doc],
    );
    if (r.rows.length === 0) throw await this.conflictFor(JSON.parse(doc) as T);
    return decode<T>(r.rows[0]!.doc);
  }

  async update(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<T | undefined> {
    this.writable();
    const set: Record<string, unknown> = {};
    const drop: string[] = [];
    for (const [k, v] of Object.entries(patch)) {
      if (k === 'id') continue;
      if (v === undefined) drop.push(k);
      else set[k] = v;
    }
    const params: unknown[] = [id, drop, JSON.stringify(set)];
    const clauses = ['id = $1', ...this.sql.where(expect, params)];
    const text = `UPDATE ${this.sql.t} SET doc = (doc - $2::text[]) || $3::jsonb WHERE ${clauses.join(' AND ')} RETURNING doc`;
    // A patch that touches a unique field may collide: a savepoint keeps the transaction usable.
    const touchesUnique = Object.keys(set).some((k) => this.sql.uniqueFields.has(k));
    if (!touchesUnique) {
      const r = await this.run<{ doc: T }>(text, params);
      return r.rows[0] ? decode<T>(r.rows[0].doc) : undefined;
    }
    await this.run('SAVEPOINT sp_unique', []);
    try {
      const r = await this.run<{ doc: T }>(text, params);
      await this.run('RELEASE SAVEPOINT sp_unique', []);
      return r.rows[0] ? decode<T>(r.rows[0].doc) : undefined;
    } catch (e) {
      if (sqlState(e) !== '23505') throw e;
      await this.run('ROLLBACK TO SAVEPOINT sp_unique', []);
      const current = await this.get(id);
      throw await this.conflictFor({ ...(current ?? {}), ...set, id } as T, id);
    }
  }

  async remove(id: string): Promise<boolean> {
    this.writable();
    const r = await this.run(`DELETE FROM ${this.sql.t} WHERE id = $1`, [id]);
    return (r.rowCount ?? 0) > 0;
  }
}

export class PgStore implements Store {
  private readonly sql = new Map<string, TableSql<Row>>();
  private readonly readers = new Map<string, ReadTable<Row>>();
  private closed = false;

  private constructor(
    readonly pool: pg.Pool,
    /** Index names per table, as the database has them (read once at open). */
    private readonly catalog: Map<string, Set<string>>,
    private readonly opts: PgStoreOptions,
    private readonly notifier: PgNotifier,
  ) {}

  static async open(databaseUrl: string, opts: PgStoreOptions = {}): Promise<PgStore> {
    const pool = new pg.Pool({ connectionString: databaseUrl, max: opts.poolMax ?? 10 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => undefined);
    try {
      if (opts.migrate !== false) await migrate(pool);
      const r = await pool.query<{ tablename: string; indexname: string }>(
        `SELECT tablename, indexname FROM pg_indexes WHERE schemaname = current_schema()`,
      );
      const catalog = new Map<string, Set<string>>();
      for (const row of r.rows) {
        let s = catalog.get(row.tablename);
        if (!s) catalog.set(row.tablename, (s = new Set()));
        s.add(row.indexname);
      }
      return new PgStore(pool, catalog, opts, new PgNotifier(databaseUrl));
    } catch (e) {
      await pool.end().catch(() => undefined);
      throw e;
    }
  }

  /** The SQL for a table, after checking once that a migration created it with every index it declares. */
  private tableSql<T extends Row>(def: TableDef<T>): TableSql<T> {
    let s = this.sql.get(def.name);
    if (!s) {
      const have = this.catalog.get(def.name);
      if (!have) {
        throw new Error(`PostgreSQL store: no table "${def.name}"; add a migration (npm run db:migration) under src/store/pg/migrations`);
      }
      for (const spec of indexSpecs(def as unknown as TableDef<Row>)) {
        if (!have.has(spec.name)) {
          throw new Error(`PostgreSQL store: table "${def.name}" lacks index ${spec.name}; add a migration (npm run db:migration)`);
        }
      }
      s = new TableSql<Row>(def as unknown as TableDef<Row>);
      this.sql.set(def.name, s);
    }
    return s as unknown as TableSql<T>;
  }

  // Unnamed statements: PostgreSQL plans each with its actual values. A named (prepared)
  // statement soon gets a generic plan, which for `status = $1 ORDER BY seq` walks the seq
  // index through every row instead of using the status index.
  private runner(client: Client): Run {
    return <R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) =>
      name ? client.query<R>({ name, text, values }) : client.query<R>(text, values);
  }

  table<T extends Row>(def: TableDef<T>): ReadTable<T> {
    let handle = this.readers.get(def.name) as ReadTable<T> | undefined;
    if (!handle) {
      handle = new PgTable<T>(this.tableSql(def), this.runner(this.pool), false);
      this.readers.set(def.name, handle as unknown as ReadTable<Row>);
    }
    return handle;
  }

  async transaction<R>(fn: (tx: Tx) => Promise<R>, opts: TransactionOptions = {}): Promise<R> {
    // Guarded by unique keys (TransactionOptions): READ COMMITTED, so concurrent creates of one
    // merchant do not abort each other over shared index pages (each such abort cost a retry
    // behind RETRY_LOCK); a key taken meanwhile shows as a StoreConflictError from the insert's
    // ON CONFLICT, and the body runs again, reading the winner.
    const isolation = opts.guardedByUniqueKeys ? 'READ COMMITTED' : 'SERIALIZABLE';
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw new Error('store is closed');
      const client = await this.pool.connect();
      let outcome: { ok: true; value: R } | { ok: false; error: unknown };
      let broken = false;
      // Callbacks of this attempt only: a retried body registers its own again.
      const committed: Array<() => void> = [];
      try {
        outcome = { ok: true, value: await this.attempt(client, fn, committed, attempt > 1, isolation) };
      } catch (e) {
        outcome = { ok: false, error: e };
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
      }
      client.release(broken);
      if (outcome.ok) {
        for (const cb of committed) cb();
        return outcome.value;
      }
      const keyTaken = opts.guardedByUniqueKeys === true && outcome.error instanceof StoreConflictError;
      const code = keyTaken ? '23505' : sqlState(outcome.error);
      if (!code || !(RETRYABLE.has(code) || keyTaken) || attempt >= (keyTaken ? KEY_TAKEN_ATTEMPTS : MAX_ATTEMPTS)) throw outcome.error;
      this.opts.onRetry?.(attempt, code);
      // Spread the retries so the same transactions do not collide again in step.
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, 2 * attempt)));
    }
  }

  /** One try of a transaction on `client`: BEGIN, the body, COMMIT; throws on any failure. */
  private async attempt<R>(
    client: pg.PoolClient,
    fn: (tx: Tx) => Promise<R>,
    committed: Array<() => void>,
    retry: boolean,
    isolation: 'SERIALIZABLE' | 'READ COMMITTED',
  ): Promise<R> {
    let open = true;
    // The first database error in this transaction: PostgreSQL answers COMMIT of a failed
    // transaction with a rollback, not an error, so the failure is remembered here. A unique
    // violation caught at a savepoint (update) leaves the transaction usable and is not one.
    let failed: unknown;
    const run = this.runner(client);
    const tables = new Map<string, PgTable<Row>>();
    const tx: Tx = {
      afterCommit: (cb) => {
        committed.push(cb);
      },
      publish: async (channel, payload) => {
        if (!open) throw new Error('transaction already finished');
        // Delivered to every listening session when this transaction commits.
        await run('SELECT pg_notify($1, $2)', [channel, payload]);
      },
      table: <T extends Row>(def: TableDef<T>): WriteTable<T> => {
        let t = tables.get(def.name) as PgTable<T> | undefined;
        if (!t) {
          const live = async <Q extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) => {
            if (!open) throw new Error(`transaction on ${def.name} already finished`);
            try {
              return await run<Q>(text, values, name);
            } catch (e) {
              if (!(sqlState(e) === '23505' && text.startsWith('UPDATE'))) failed ??= e;
              throw e;
            }
          };
          t = new PgTable<T>(this.tableSql(def), live, true);
          tables.set(def.name, t as unknown as PgTable<Row>);
        }
        return t;
      },
    };
    try {
      await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
      // A retried transaction queues behind the other retried ones (across instances), so a
      // burst of conflicting transactions drains instead of colliding again and again.
      if (retry) await client.query('SELECT pg_advisory_xact_lock($1)', [RETRY_LOCK]);
      let result: R;
      try {
        result = await fn(tx);
      } catch (e) {
        // A retryable database failure that the body turned into another error is still retried.
        throw failed !== undefined && RETRYABLE.has(sqlState(failed) ?? '') ? failed : e;
      }
      if (failed !== undefined) throw failed;
      open = false;
      await client.query('COMMIT');
      return result;
    } finally {
      open = false;
    }
  }

  write<T extends Row, R>(def: TableDef<T>, fn: (table: WriteTable<T>) => Promise<R>): Promise<R> {
    return this.transaction((tx) => fn(tx.table(def)));
  }

  // Leases and counters are single statements (INSERT ... ON CONFLICT DO UPDATE), atomic on
  // their own, on the database's clock so that instances with skewed clocks agree.
  async lease(name: string, owner: string, ttlMs: number): Promise<boolean> {
    const r = await this.pool.query(
      `INSERT INTO store_leases (name, owner, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
       WHERE store_leases.owner = EXCLUDED.owner OR store_leases.expires_at <= clock_timestamp()
       RETURNING owner`,
      [name, owner, Math.max(1, Math.round(ttlMs))],
    );
    return (r.rowCount ?? 0) > 0;
  }

  async leaseOwner(name: string): Promise<string | undefined> {
    const r = await this.pool.query<{ owner: string }>(
      'SELECT owner FROM store_leases WHERE name = $1 AND expires_at > clock_timestamp()',
      [name],
    );
    return r.rows[0]?.owner;
  }

  async releaseLease(name: string, owner: string): Promise<void> {
    await this.pool.query('DELETE FROM store_leases WHERE name = $1 AND owner = $2', [name, owner]);
  }

  async countHit(key: string, windowMs: number): Promise<{ hits: number; resetAt: Date }> {
    const r = await this.pool.query<{ hits: number; reset_at: Date }>(
      `INSERT INTO store_counters (key, hits, reset_at) VALUES ($1, 1, clock_timestamp() + $2 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN store_counters.reset_at <= clock_timestamp() THEN 1 ELSE store_counters.hits + 1 END,
         reset_at = CASE WHEN store_counters.reset_at <= clock_timestamp() THEN EXCLUDED.reset_at ELSE store_counters.reset_at END
       RETURNING hits, reset_at`,
      [key, Math.max(1, Math.round(windowMs))],
    );
    const row = r.rows[0]!;
    return { hits: row.hits, resetAt: row.reset_at };
  }

  async insertOrGet<T extends Row>(def: TableDef<T>, row: T): Promise<InsertOrGet<T>> {
    const sql = this.tableSql(def);
    // One autocommit statement: atomic on its own, no BEGIN/COMMIT round trips. A key held by a
    // concurrent commit this statement could not see is simply tried again.
    for (let attempt = 1; ; attempt++) {
      try {
        return await insertOrGetWith(sql, this.runner(this.pool), row);
      } catch (e) {
        if (!(e instanceof RetryTransaction) || attempt >= KEY_TAKEN_ATTEMPTS) throw e;
        this.opts.onRetry?.(attempt, '23505');
      }
    }
  }

  subscribe(channel: string, fn: (payload: string | undefined) => void): Promise<Subscription> {
    return this.notifier.subscribe(channel, fn);
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      await this.pool.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.notifier.close();
    await this.pool.end();
  }
}
