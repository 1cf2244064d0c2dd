// Samples pg_stat_activity / pg_stat_database of settle_bench_* databases every 25 ms.
import pg from 'pg';
const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
await c.connect();
const t0 = Date.now();
for (;;) {
  const a = await c.query(`select datname, state, wait_event_type, wait_event, left(query, 40) q from pg_stat_activity where datname like 'settle_bench_%' and application_name='stablepay' and state <> 'idle'`);
  const d = await c.query(`select datname, xact_commit, xact_rollback, conflicts, deadlocks from pg_stat_database where datname like 'settle_bench_%'`);
  const w = a.rows.map((r) => `${r.state}|${r.wait_event_type ?? '-'}:${r.wait_event ?? '-'}|${r.q.replace(/\s+/g, ' ')}`);
  console.log(JSON.stringify({ t: Date.now(), act: w, db: d.rows }));
  await new Promise((r) => setTimeout(r, 25));
}
