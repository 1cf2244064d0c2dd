/**
 * Preloaded into the service by bench/settlement-http.ts when BENCH_PG_STATEMENTS=1 (node
 * `--import`): counts what the service's PostgreSQL clients send, at the driver, as
 * test/helpers/pg-statements.ts does in the tests. On SIGUSR2 it writes the running totals to
 * stderr as one line `bench-pg-statements {json}`; the bench asks before and after a phase.
 * Off by default, so the measured runs carry no wrapper.
 *
 * round trips: `Client.query` calls (one per socket write of a query); statements: the same,
 * with each simple-protocol text of several statements (`BEGIN …;\nUPDATE …;\nCOMMIT`) counted
 * per statement; commits: the COMMITs among them; textKb: the query texts' length (kB), most of
 * it the values spelled inline in the round trips of several statements (eleventh round).
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const pg = createRequire(path.join(process.cwd(), 'package.json'))('pg');
const counts = { roundTrips: 0, statements: 0, commits: 0, begins: 0, textKb: 0 };
/** BENCH_PG_STATEMENTS=kinds: also each statement's opening words (names and values cut), counted. */
const kinds = process.env.BENCH_PG_STATEMENTS === 'kinds' ? {} : undefined;
const kindOf = (s) => s.replace(/\(.*$/s, '').replace(/x\d+_sp_\w+/, 'x_sp').slice(0, 60);
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  const text = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? '');
  counts.roundTrips++;
  counts.textKb += text.length / 1024;
  for (const s of text.split(';\n')) {
    counts.statements++;
    if (s === 'COMMIT') counts.commits++;
    else if (s.startsWith('BEGIN')) counts.begins++;
    if (kinds) kinds[kindOf(s)] = (kinds[kindOf(s)] ?? 0) + 1;
  }
  return original.apply(this, args);
};
process.on('SIGUSR2', () => process.stderr.write(`bench-pg-statements ${JSON.stringify({ ...counts, kinds })}\n`));
