/**
 * Preloaded into the service by bench/settlement-http.ts when BENCH_PG_STATEMENTS=1 (node
 * `--import`): counts what the service's PostgreSQL clients send, at the driver, as
 * test/helpers/pg-statements.ts does in the tests. On SIGUSR2 it writes the running totals to
 * stderr as one line `bench-pg-statements {json}`; the bench asks before and after a phase.
 * Off by default, so the measured runs carry no wrapper.
 *
 * round trips: `Client.query` calls (one per socket write of a query); statements: the same,
 * with each simple-protocol text of several statements (`BEGIN …;\nUPDATE …;\nCOMMIT`) counted
 * per statement; commits: the COMMITs among them.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

const pg = createRequire(path.join(process.cwd(), 'package.json'))('pg');
const counts = { roundTrips: 0, statements: 0, commits: 0, begins: 0 };
const original = pg.Client.prototype.query;
pg.Client.prototype.query = function (...args) {
  const text = typeof args[0] === 'string' ? args[0] : (args[0]?.text ?? '');
  counts.roundTrips++;
  for (const s of text.split(';\n')) {
    counts.statements++;
    if (s === 'COMMIT') counts.commits++;
    else if (s.startsWith('BEGIN')) counts.begins++;
  }
  return original.apply(this, args);
};
process.on('SIGUSR2', () => process.stderr.write(`bench-pg-statements ${JSON.stringify(counts)}\n`));
