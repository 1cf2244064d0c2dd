import type pg from 'pg';
import { StoreConflictError, type FindOptions, type InsertOrGet, type RangeQuery, type Row, type Where, type WriteTable } from '../types.js';
import { checkRange } from '../range.js';
import { deepFreeze, definedEntries } from '../row-values.js';
import { fieldExpr, literal, presentExpr } from './schema.js';
import { RetryTransaction, sqlState } from './retry-rules.js';
import type { TableSql } from './table-sql.js';
import type { TouchOf } from './member-footprints.js';

export function decode<T>(doc: unknown): T {
  return deepFreeze(doc as T);
}

/** `insertOrGet` on `run` (a transaction's client, or the pool for one autocommit statement). */
export async function insertOrGetWith<T extends Row>(sql: TableSql<T>, run: Run, row: T): Promise<InsertOrGet<T>> {
  const doc = JSON.stringify(row);
  const q = sql.insertOrGet(row, doc);
  const r = await run<{ doc: T | null }>(q.text, q.params, sql.prepared(q.text));
  if (r.rows.length === 0) throw new RetryTransaction(`unique key on ${sql.def.name} taken concurrently`);
  const got = r.rows[0]!.doc;
  // Inserted: the row is what was sent (parsed back from the same JSON, not read back over the wire).
  return got === null ? { inserted: true, row: decode<T>(JSON.parse(doc)) } : { inserted: false, existing: decode<T>(got) };
}

/**
 * What `doc = (doc - drop) || set` stores, from the row before: its keys in order less `drop`,
 * each in `set` with the value sent (parsed from the same JSON), then `set`'s new keys. PostgreSQL
 * merges top-level keys exactly so; only the key order differs (jsonb's own), as on lowdb.
 */
function applied<T>(before: T, drop: readonly string[], set: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  const gone = new Set(drop);
  for (const [k, v] of Object.entries(before as Record<string, unknown>)) {
    if (Object.hasOwn(set, k)) out[k] = set[k];
    else if (!gone.has(k)) out[k] = v;
  }
  for (const k of Object.keys(set)) if (!Object.hasOwn(out, k)) out[k] = set[k];
  return decode<T>(out as T);
}

/** A string no stored row can hold (PostgreSQL text and jsonb refuse NUL; lowdb would simply find nothing). */
const hasNul = (v: unknown): boolean => typeof v === 'string' && v.includes('\u0000');

export type Run = <R extends pg.QueryResultRow>(text: string, values: unknown[], name?: string) => Promise<pg.QueryResult<R>>;

/**
 * Told, before each statement of a commit group's member is issued, which rows it may read or
 * write (member-footprints.ts: members run side by side only while none reads or writes what
 * another writes): a read or write of `table#id`, a write of `table!fields=values` for each unique
 * key an insert claims, a scan of a table for a statement whose rows cannot be named beforehand
 * (a find, a count), or opaque for one that frees a unique key (a remove, an update of a unique
 * field, which also takes a savepoint).
 */
export type Touch = (what: TouchOf) => void;

export class PgTable<T extends Row> implements WriteTable<T> {
  private readonly getSql: string;
  private readonly insertSql: string;

  constructor(
    private readonly sql: TableSql<T>,
    private readonly run: Run,
    private readonly inTx: boolean,
    /** In a transaction: holds a statement for its next round trip (deferred-writes.ts). */
    private readonly later?: (text: string, values: unknown[], name?: string) => void,
    /** Outside transactions: reads by id grouped with concurrent ones (get-batcher.ts). */
    private readonly getBatched?: (id: string) => Promise<T | undefined>,
    private readonly touch?: Touch,
  ) {
    this.getSql = `SELECT doc FROM ${this.sql.t} WHERE id = $1`;
    // RETURNING 1, not the doc: the row is what was sent (as insertOrGetWith answers it), so the
    // server does not send it back nor the driver parse it again (a settle's attempt row and
    // webhook event, each a few hundred bytes to kilobytes of JSON; issue 23, ninth round), and
    // its keys keep the order they were given, as on lowdb (jsonb's own order would differ).
    this.insertSql = `INSERT INTO ${this.sql.t} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT DO NOTHING RETURNING 1`;
  }

  async get(id: string): Promise<T | undefined> {
    // PostgreSQL text cannot hold NUL, so no row has such an id; asking would be an error (22021).
    if (hasNul(id)) return undefined;
    if (this.getBatched) return this.getBatched(id);
    this.touchId(id, 'read');
    const r = await this.run<{ doc: T }>(this.getSql, [id], this.sql.prepared(this.getSql));
    return r.rows[0] ? decode<T>(r.rows[0].doc) : undefined;
  }

  async insertOrGet(row: T): Promise<InsertOrGet<T>> {
    this.writable();
    this.touchRow(row);
    return insertOrGetWith(this.sql, this.run, row);
  }

  async findOne(where: Where<T>): Promise<T | undefined> {
    return (await this.findMany(where, { limit: 1 }))[0];
  }

  async findMany(where: Where<T> = {}, opts: FindOptions = {}): Promise<T[]> {
    if (opts.limit !== undefined && opts.limit <= 0) return [];
    this.scanned();
    if (opts.anyOf) return this.findAnyOf(where, opts, opts.anyOf);
    if (hasNul(opts.after) || Object.values(where).some(hasNul)) return [];
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

  /**
   * One ordered, limited scan per value (each an index range on `where`'s fields, `field` and
   * seq), merged by seq: a page reads at most `limit` rows per value, never the whole set.
   */
  private async findAnyOf(where: Where<T>, opts: FindOptions, anyOf: NonNullable<FindOptions['anyOf']>): Promise<T[]> {
    const values = [...new Set(anyOf.values)];
    if (values.length === 0) return [];
    const params: unknown[] = [];
    const clauses = this.sql.where(where, params);
    const dir = opts.order === 'desc' ? 'DESC' : 'ASC';
    const cmp = dir === 'DESC' ? '<' : '>';
    // The cursor as a row comparison over the filter's fields, `field` and seq: the same rows as
    // `seq < cursor` (the other columns are equal by the filter), but an index condition only
    // for an index on exactly those columns, so the planner cannot walk the seq index backward
    // from the cursor filtering row by row instead (it did: 8,500 rows removed for a page of 11
    // when another merchant held most rows of the status; test/store/list-index.pg.test.ts).
    const entries = definedEntries(where ?? {});
    const rowCursor = opts.after !== undefined && !entries.some(([f]) => f === 'id');
    let cursor = '';
    if (opts.after !== undefined) {
      params.push(opts.after);
      cursor = `(SELECT seq FROM ${this.sql.t} WHERE id = $${params.length})`;
      if (!rowCursor) clauses.push(`seq ${cmp} ${cursor}`);
    }
    const rowValues = rowCursor
      ? entries.map(([, v]) => {
          params.push(JSON.stringify(v));
          return `$${params.length}::jsonb`;
        })
      : [];
    let limit = '';
    if (opts.limit !== undefined && Number.isFinite(opts.limit)) {
      params.push(Math.floor(opts.limit));
      limit = ` LIMIT $${params.length}`;
    }
    const f = fieldExpr(anyOf.field);
    const branches = values.map((v) => {
      params.push(JSON.stringify(v));
      const all = [...clauses, `${f} = $${params.length}::jsonb`];
      if (rowCursor) {
        const lhs = [...entries.map(([name]) => fieldExpr(name)), f, 'seq'];
        all.push(`(${lhs.join(', ')}) ${cmp} (${[...rowValues, `$${params.length}::jsonb`, cursor].join(', ')})`);
      }
      return `(SELECT doc, seq FROM ${this.sql.t} WHERE ${all.join(' AND ')} ORDER BY seq ${dir}${limit})`;
    });
    const text = `SELECT doc FROM (${branches.join(' UNION ALL ')}) u ORDER BY seq ${dir}${limit}`;
    const r = await this.run<{ doc: T }>(text, params);
    return r.rows.map((row) => decode<T>(row.doc));
  }

  async findRange(where: Where<T>, range: RangeQuery): Promise<T[]> {
    checkRange(this.sql.def, where, range);
    this.scanned();
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
    this.scanned();
    const params: unknown[] = [];
    const clauses = this.sql.where(where, params);
    const text = `SELECT count(*)::int AS n FROM ${this.sql.t}${clauses.length ? ` WHERE ${clauses.join(' AND ')}` : ''}`;
    const r = await this.run<{ n: number }>(text, params);
    return r.rows[0]!.n;
  }

  private writable(): void {
    if (!this.inTx) throw new Error('writes go through store.transaction');
  }

  private touchId(id: string, kind: 'read' | 'write'): void {
    this.touch?.({ kind, table: this.sql.def.name, key: `${this.sql.def.name}#${id}` });
  }

  /** A statement whose rows cannot be named beforehand: every row of the table. */
  private scanned(): void {
    this.touch?.({ kind: 'scan', table: this.sql.def.name });
  }

  /** An insert's row: its id and every unique key it claims. */
  private touchRow(row: T): void {
    if (!this.touch) return;
    this.touchId(row.id, 'write');
    for (const fields of this.sql.def.unique ?? []) {
      const values = fields.map((f) => (row as Record<string, unknown>)[f]);
      if (values.some((v) => v === undefined || v === null)) continue;
      this.touch({ kind: 'write', table: this.sql.def.name, key: `${this.sql.def.name}!${fields.join(',')}=${JSON.stringify(values)}` });
    }
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
    this.touchRow(row);
    const doc = JSON.stringify(row);
    const r = await this.run(this.insertSql, [row.id, doc], this.sql.prepared(this.insertSql));
    const sent = JSON.parse(doc) as T;
    if (r.rows.length === 0) throw await this.conflictFor(sent);
    return decode<T>(sent);
  }

  /**
   * `insert` sent with the transaction's next statement or its COMMIT (WriteTable.insertLater).
   * No ON CONFLICT: a key taken after all fails the statement, and so the transaction.
   */
  insertLater(row: T): T {
    this.writable();
    if (!this.later) throw new Error('insertLater outside a transaction');
    this.touchRow(row);
    const doc = JSON.stringify(row);
    const text = `INSERT INTO ${this.sql.t} (id, doc) VALUES ($1, $2::jsonb)`;
    this.later(text, [row.id, doc], this.sql.prepared(text));
    return decode<T>(JSON.parse(doc) as T);
  }

  /**
   * The row stored as given, new or replacing the one with its id, sent with the transaction's
   * next statement or its COMMIT (WriteTable.putLater). A unique group could be taken by another
   * row and a version would have to be bumped: neither is one statement, so refused.
   */
  putLater(row: T): void {
    this.writable();
    if (!this.later) throw new Error('putLater outside a transaction');
    if ((this.sql.def.unique?.length ?? 0) > 0 || this.sql.def.version) throw new Error(`putLater on ${this.sql.def.name}, which has unique groups or a version`);
    this.touchId(row.id, 'write');
    const text = `INSERT INTO ${this.sql.t} (id, doc) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc`;
    this.later(text, [row.id, JSON.stringify(row)], this.sql.prepared(text));
  }

  async update(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<T | undefined> {
    return (await this.write(id, patch, expect, false))?.after;
  }

  async updateWithBefore(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): Promise<{ before: T; after: T } | undefined> {
    const r = await this.write(id, patch, expect, true);
    return r && { before: r.before!, after: r.after };
  }

  /**
   * The UPDATE; with `withBefore` it also returns the row as it was: a subquery in RETURNING
   * reads with the statement's snapshot, which does not see the statement's own change (and a
   * concurrent change to the row fails a serializable transaction), so no read goes first.
   */
  /**
   * `update` sent with the transaction's next statement or its COMMIT (WriteTable.updateLater).
   * Not for a patch of a unique field: its conflict needs the savepoint and the answer of `update`.
   */
  updateLater(id: string, patch: Partial<Omit<T, 'id'>>, expect?: Where<T>): void {
    this.writable();
    if (!this.later) throw new Error('updateLater outside a transaction');
    // No RETURNING: nobody reads the answer, so the server sends no row description and row for
    // it, and the driver parses none (three per settle; issue 23, thirteenth round).
    const u = this.updateSql(id, patch, expect, undefined);
    if (u.touchesUnique) throw new Error(`updateLater of a unique field of ${this.sql.def.name}`);
    this.touchId(id, 'write');
    // Named like `update`'s texts: prepared on the session when it rides in a round trip of several (sql-prepared.ts).
    this.later(u.text, u.params, this.sql.prepared(u.text));
  }

  private updateSql(id: string, patch: Partial<Omit<T, 'id'>>, expect: Where<T> | undefined, returning: string | undefined) {
    const set: Record<string, unknown> = {};
    const drop: string[] = [];
    const version = this.sql.def.version;
    for (const [k, v] of Object.entries(patch)) {
      if (k === 'id' || k === version) continue;
      if (v === undefined) drop.push(k);
      else set[k] = v;
    }
    const setJson = JSON.stringify(set);
    const params: unknown[] = [id, drop, setJson];
    const clauses = ['id = $1', ...this.sql.where(expect, params)];
    // The row's version bumped in the same statement (TableDef.version): no read, no round trip.
    const patched = version ? `jsonb_set((doc - $2::text[]) || $3::jsonb, ARRAY[${literal(version)}], to_jsonb(COALESCE((doc ->> ${literal(version)})::bigint, 0) + 1))` : '(doc - $2::text[]) || $3::jsonb';
    const text = `UPDATE ${this.sql.t} SET doc = ${patched} WHERE ${clauses.join(' AND ')}${returning === undefined ? '' : ` RETURNING ${returning}`}`;
    const touchesUnique = Object.keys(set).some((k) => this.sql.uniqueFields.has(k));
    return { text, params, touchesUnique, set, drop, setJson };
  }

  private async write(id: string, patch: Partial<Omit<T, 'id'>>, expect: Where<T> | undefined, withBefore: boolean): Promise<{ before?: T; after: T } | undefined> {
    this.writable();
    // With the row before, the server sends only that: the row after is `(before - drop) || set`,
    // built here from the same values (`applied`), not sent and parsed a second time (a settle's
    // claim and `settled` each sent two whole payments; issue 23, tenth round).
    const returning = withBefore ? `(SELECT o.doc FROM ${this.sql.t} o WHERE o.id = $1) AS before` : 'doc';
    const { text, params, touchesUnique, set, drop, setJson } = this.updateSql(id, patch, expect, returning);
    // A unique field changed takes a savepoint, which a member beside others cannot have.
    if (touchesUnique) this.touch?.({ kind: 'opaque' });
    else this.touchId(id, 'write');
    const decoded = (r: pg.QueryResult<{ doc?: T; before?: T }>) => {
      const row = r.rows[0];
      if (!row) return undefined;
      if (!withBefore) return { after: decode<T>(row.doc) };
      const before = decode<T>(row.before);
      const set = JSON.parse(setJson) as Record<string, unknown>;
      // The statement bumped the row's version (TableDef.version): the row after says so too.
      const version = this.sql.def.version;
      if (version) set[version] = Number((before as Record<string, unknown>)[version] ?? 0) + 1;
      return { before, after: applied(before, drop, set) };
    };
    // A patch that touches a unique field may collide: a savepoint keeps the transaction usable.
    // Prepared: `id = $1` decides the plan whatever the values (parsed and planned once per connection).
    const name = this.sql.prepared(text);
    if (!touchesUnique) return decoded(await this.run<{ doc?: T; before?: T }>(text, params, name));
    await this.run('SAVEPOINT sp_unique', []);
    try {
      const r = await this.run<{ doc?: T; before?: T }>(text, params, name);
      await this.run('RELEASE SAVEPOINT sp_unique', []);
      return decoded(r);
    } catch (e) {
      if (sqlState(e) !== '23505') throw e;
      await this.run('ROLLBACK TO SAVEPOINT sp_unique', []);
      const current = await this.get(id);
      throw await this.conflictFor({ ...(current ?? {}), ...set, id } as T, id);
    }
  }

  async remove(id: string): Promise<boolean> {
    this.writable();
    // It frees the row's unique keys, which another member's insert could meet: not nameable.
    this.touch?.({ kind: 'opaque' });
    const r = await this.run(`DELETE FROM ${this.sql.t} WHERE id = $1`, [id]);
    return (r.rowCount ?? 0) > 0;
  }
}
