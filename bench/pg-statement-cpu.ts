/**
 * The PostgreSQL server's CPU per statement of a commit group, by how the group travels (issue 23,
 * fourteenth round). The store sends a group's statements as ONE simple-protocol query, each named
 * statement as `EXECUTE name('literal', …)` (deferred-writes.ts); the server lexes and parses the
 * whole text, and EXECUTE turns each literal into its parameter through the parser. The same
 * statements can travel in one round trip through the extended protocol instead: a Bind and an
 * Execute per statement of the session's prepared copy, one Sync at the end (a pipeline), where
 * each value goes to its type's input function directly. This measures both on the same rows, one
 * connection each, alternated: the claim's shape (a compare-and-set returning the row before) and
 * the held update after it, 32 of each per group between BEGIN and COMMIT. A third way sends the
 * simple query to a copy of the rows with two indexes instead of nine; a fourth sends the 32 held
 * updates as one UPDATE over a VALUES list; a fifth keeps the nine indexes with the seven on doc as
 * text (`->>`, COLLATE "C") instead of jsonb values. The per-statement figures divide by 66 in every way.
 *
 *   npx tsx bench/pg-statement-cpu.ts [groups per round=100] [rounds=4]
 *
 * Prints the backend's CPU per statement (/proc of the connection's backend) and this process's.
 */
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
// @ts-expect-error: the driver's own value conversion (no declarations for this file)
import pgUtils from 'pg/lib/utils.js';
import { ADMIN_URL, admin } from './pg-admin.js';
import { PgStore } from '../src/store/index.js';
import { escapeLiteral } from '../src/store/pg/deferred-writes.js';

const GROUPS = Number(process.argv[2] ?? 100);
const ROUNDS = Number(process.argv[3] ?? 4);
const MEMBERS = 32;
const db = `pg_statement_cpu_${randomBytes(3).toString('hex')}`;
await admin(`CREATE DATABASE ${db}`);
const u = new URL(ADMIN_URL);
u.pathname = `/${db}`;
const store = await PgStore.open(u.toString());
// A row per member of every group of every way (as in a burst, each payment claimed once): the same rows
// updated again and again would measure their dead versions instead.
const N = GROUPS * MEMBERS * ROUNDS * 5;
await store.close();
const ad = new pg.Client({ connectionString: u.toString() });
await ad.connect();
// The rows a create stores (about 760 bytes of JSON), through the migrations' table and indexes.
await ad.query(
  `INSERT INTO payments (id, doc) SELECT 'pay_' || g, jsonb_build_object('id', 'pay_' || g, 'accountId', 'acct_x', 'livemode', true, 'reference', 'r' || g,
     'status', 'pending', 'description', repeat('x', 400), 'amount', '2000000', 'currency', 'USD', 'createdAt', '2026-11-29T21:00:00.000Z',
     'updatedAt', '2026-11-29T21:00:00.000Z', 'expiresAt', '2026-11-29T23:00:00.000Z', 'version', 1) FROM generate_series(0, $1::int - 1) g`,
  [N],
);
// The same rows in a table with the primary key and `seq` only: what the other seven indexes of
// `payments` (all on expressions of doc) cost each update.
await ad.query('CREATE TABLE lean (LIKE payments INCLUDING ALL EXCLUDING INDEXES)');
await ad.query('ALTER TABLE lean ADD PRIMARY KEY (id)');
await ad.query('CREATE UNIQUE INDEX lean__seq ON lean (seq)');
await ad.query('INSERT INTO lean (id, doc) SELECT id, doc FROM payments');
// And with the seven expression indexes as text (`->>`, COLLATE "C") instead of jsonb values.
await ad.query('CREATE TABLE textix (LIKE lean INCLUDING ALL)');
for (const ix of (await ad.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'payments' AND indexdef LIKE '%doc ->%'`)).rows) {
  await ad.query(ix.indexdef.replace(/ON public\.payments/, 'ON public.textix').replace(/INDEX ("?)payments/, 'INDEX $1textix').replace(/\(doc -> ('\w+'::text)\)/g, '((doc ->> $1) COLLATE "C")').replace(/<> 'null'::jsonb/g, 'IS NOT NULL'));
}
await ad.query('INSERT INTO textix (id, doc) SELECT id, doc FROM payments');
await ad.query('VACUUM ANALYZE textix');
for (const [t, want] of [['payments', 9], ['lean', 2], ['textix', 9]] as const) {
  const n = (await ad.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = $1`, [t])).rows[0]!.n;
  if (n !== want) throw new Error(`${t}: ${n} indexes, expected ${want}`);
}
await ad.query('VACUUM ANALYZE payments');
await ad.query('VACUUM ANALYZE lean');
await ad.end();

// The texts the store sends for these two (pg-table.ts updateSql; `version` bumped in place).
const SET = `jsonb_set((doc - $2::text[]) || $3::jsonb, ARRAY['version'], to_jsonb(COALESCE((doc ->> 'version')::bigint, 0) + 1))`;
const CLAIM = (t: string) => `UPDATE "${t}" SET doc = ${SET} WHERE id = $1 AND doc -> 'status' = $4::jsonb RETURNING (SELECT o.doc FROM "${t}" o WHERE o.id = $1) AS before`;
const HELD = (t: string) => `UPDATE "${t}" SET doc = ${SET} WHERE id = $1 AND doc -> 'status' = $4::jsonb`;
const BEGIN = 'BEGIN ISOLATION LEVEL SERIALIZABLE';

function backendCpu(pid: number): number {
  const st = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function session(table = 'payments'): Promise<{ c: pg.Client; pid: number }> {
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  const pid = (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]!.p;
  // Generic plans from the first run in both ways (the store sets it per transaction).
  await c.query('SET plan_cache_mode = force_generic_plan');
  await c.query(`PREPARE x_claim AS ${CLAIM(table)}`);
  await c.query(`PREPARE x_held AS ${HELD(table)}`);
  return { c, pid };
}

/** One member's values: the claim (pending → processing, row before back), then its held update back to pending. */
function values(g: number, k: number): { claim: unknown[]; held: unknown[] } {
  const id = `pay_${(g * MEMBERS + k) % N}`;
  const at = new Date(Date.UTC(2026, 10, 29, 21, 0, g % 60, k)).toISOString();
  return {
    claim: [id, ['txHash'], JSON.stringify({ status: 'processing', payer: '0x3501EdCEc578B57875bA23da189D4241512520c4', attemptedBy: ['0x3501EdCEc578B57875bA23da189D4241512520c4'], updatedAt: at }), '"pending"'],
    held: [id, [], JSON.stringify({ status: 'pending', txHash: `0x${'ab'.repeat(32)}`, updatedAt: at }), '"processing"'],
  };
}

const lit = (v: unknown) => escapeLiteral(Array.isArray(v) ? `{${v.map((e) => `"${String(e)}"`).join(',')}}` : String(v));

/** The store's way: one simple query, `EXECUTE name(literals)` per statement. */
async function simpleGroup(c: pg.Client, g: number): Promise<number> {
  const parts = [BEGIN];
  const members = Array.from({ length: MEMBERS }, (_, k) => values(g, k));
  for (const m of members) parts.push(`EXECUTE x_claim(${m.claim.map(lit).join(', ')})`);
  for (const m of members) parts.push(`EXECUTE x_held(${m.held.map(lit).join(', ')})`);
  parts.push('COMMIT');
  const r = (await c.query(parts.join(';\n'))) as unknown as pg.QueryResult[];
  let rows = 0;
  for (const x of r) for (const row of x.rows ?? []) if (row.before) rows++;
  return rows;
}

/** As `simpleGroup`, but the 32 held updates as ONE statement over a VALUES list (one executor start for all). */
async function multiRowGroup(c: pg.Client, g: number): Promise<number> {
  const parts = [BEGIN];
  const members = Array.from({ length: MEMBERS }, (_, k) => values(g, k));
  for (const m of members) parts.push(`EXECUTE x_claim(${m.claim.map(lit).join(', ')})`);
  const rows = members.map((m) => `(${m.held.map(lit).join(', ')})`).join(', ');
  parts.push(
    `UPDATE "payments" p SET doc = jsonb_set((p.doc - v.d::text[]) || v.s::jsonb, ARRAY['version'], to_jsonb(COALESCE((p.doc ->> 'version')::bigint, 0) + 1)) ` +
      `FROM (VALUES ${rows}) v(id, d, s, e) WHERE p.id = v.id AND p.doc -> 'status' = v.e::jsonb`,
  );
  parts.push('COMMIT');
  const r = (await c.query(parts.join(';\n'))) as unknown as pg.QueryResult[];
  let n = 0;
  for (const x of r) for (const row of x.rows ?? []) if (row.before) n++;
  if (r[r.length - 2]!.rowCount !== MEMBERS) throw new Error('multi-row update missed rows');
  return n;
}

/** Bind + Execute per statement of the session's prepared copies, one Sync: one round trip. */
class Pipeline {
  rows = 0;
  private error: unknown;
  callback?: (err: unknown, rows: number) => void;
  constructor(private readonly items: Array<{ name: string; values: unknown[] }>) {}
  submit(connection: any): void {
    connection.stream.cork();
    for (const it of this.items) {
      connection.bind({ statement: it.name, portal: '', values: it.values, valueMapper: (v: unknown) => pgUtils.prepareValue(v) });
      connection.execute({ portal: '', rows: 0 });
    }
    connection.sync();
    process.nextTick(() => connection.stream.uncork());
  }
  handleRowDescription(): void {}
  handleDataRow(msg: { fields: Array<string | null> }): void {
    // The row before, parsed as the driver parses a jsonb column.
    if (msg.fields[0] !== null && JSON.parse(msg.fields[0]!)) this.rows++;
  }
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
  handleError(err: unknown): void {
    this.error ??= err;
  }
  handleReadyForQuery(): void {
    this.callback?.(this.error, this.rows);
  }
}

async function pipelineGroup(c: pg.Client, g: number): Promise<number> {
  const members = Array.from({ length: MEMBERS }, (_, k) => values(g, k));
  const items = [{ name: 'x_begin', values: [] as unknown[] }];
  for (const m of members) items.push({ name: 'x_claim', values: m.claim });
  for (const m of members) items.push({ name: 'x_held', values: m.held });
  items.push({ name: 'x_commit', values: [] });
  const p = new Pipeline(items);
  return new Promise((resolve, reject) => {
    p.callback = (err, rows) => (err ? reject(err) : resolve(rows));
    (c as any).query(p);
  });
}

const simple = await session();
const piped = await session();
const lean = await session('lean');
const multi = await session();
const textix = await session('textix');
// BEGIN and COMMIT cannot be PREPAREd in SQL: parsed as named statements of the protocol instead.
await new Promise<void>((resolve, reject) => {
  const q = {
    submit(connection: any) {
      connection.parse({ name: 'x_begin', text: BEGIN, types: [] });
      connection.parse({ name: 'x_commit', text: 'COMMIT', types: [] });
      connection.sync();
    },
    handleError: (e: unknown) => reject(e),
    handleReadyForQuery: () => resolve(),
    handleCommandComplete() {},
    handleRowDescription() {},
    handleDataRow() {},
    handleEmptyQuery() {},
  };
  (piped.c as any).query(q);
});

const fmt = (ms: number) => ms.toFixed(4);
const statements = GROUPS * (2 * MEMBERS + 2);
const ways = [
  ['simple (EXECUTE literals)', simple, simpleGroup],
  ['pipeline (Bind/Execute)', piped, pipelineGroup],
  ['simple, 2 indexes (lean)', lean, simpleGroup],
  ['simple, held as one multi-row UPDATE', multi, multiRowGroup],
  ['simple, 7 indexes as text (textix)', textix, simpleGroup],
] as const;
for (let round = 0; round < ROUNDS; round++) {
  // Each way first in turn.
  for (const [name, s, group] of [...ways.slice(round % ways.length), ...ways.slice(0, round % ways.length)]) {
    const way = ways.findIndex((w) => w[0] === name);
    const b0 = backendCpu(s.pid);
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    let rows = 0;
    for (let g = 0; g < GROUPS; g++) rows += await group(s.c, (round * ways.length + way) * GROUPS + g);
    const own = process.cpuUsage(own0);
    if (rows !== GROUPS * MEMBERS) throw new Error(`${name}: ${rows} rows before, expected ${GROUPS * MEMBERS}`);
    console.log(
      `round ${round + 1} ${name}: backend ${fmt(((backendCpu(s.pid) - b0) * 1000) / statements)} ms per statement, this process ${fmt((own.user + own.system) / 1000 / statements)} ms, wall ${((performance.now() - t0) / 1000).toFixed(2)} s`,
    );
  }
}
await simple.c.end();
await piped.c.end();
await lean.c.end();
await multi.c.end();
await textix.c.end();
await admin(`DROP DATABASE ${db} WITH (FORCE)`);
