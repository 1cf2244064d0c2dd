import pg from 'pg';
import { pgConnections } from './pg-budget.js';
import { PG_ADMIN_URL } from './pg.js';

// The real timers, taken before any test file can fake them (vi.useFakeTimers), and the driver's
// own query: the round-trip tests count every Client.query in the process (pg-statements.ts), and
// the watch's samples are none of theirs.
const { setInterval: every, clearInterval: stopEvery } = globalThis;
const query = pg.Client.prototype.query as (this: pg.Client, text: string, values: unknown[]) => Promise<pg.QueryResult<{ n: number }>>;

/**
 * Counts the sessions on a set of databases (pg_stat_activity by name) every `sampleMs` from one
 * connection to the admin database, and keeps the most seen at once. An idle pool keeps its
 * sessions for 10 s, so a pool filling up for a moment is seen (test/helpers/pg-budget.ts).
 */
export class ConnectionWatch {
  peak = 0;
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private sampling: Promise<void> = Promise.resolve();

  constructor(
    private readonly databases: ReadonlySet<string>,
    private readonly sampleMs = 200,
  ) {}

  async start(): Promise<pg.Client> {
    const client = (this.client = new pg.Client({ connectionString: PG_ADMIN_URL }));
    client.on('error', () => undefined);
    await client.connect();
    this.timer = every(() => {
      this.sampling = this.sampling.then(() => this.sample()).catch(() => undefined);
    }, this.sampleMs);
    this.timer.unref();
    return client;
  }

  async sample(): Promise<void> {
    if (!this.client || this.databases.size === 0) return;
    const r = await query.call(this.client, 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ANY($1)', [[...this.databases]]);
    this.peak = Math.max(this.peak, r.rows[0]!.n);
  }

  /** Stops sampling (after one last sample) and returns the peak. */
  async stop(): Promise<number> {
    if (this.timer) stopEvery(this.timer);
    await this.sampling;
    await this.sample().catch(() => undefined);
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
    return this.peak;
  }
}

/** Why `file` broke its budget, or undefined when `peak` is within it. */
export function overBudget(file: string, peak: number): string | undefined {
  const budget = pgConnections('pg', file);
  return peak > budget ? `${file} held ${peak} PostgreSQL connections at once; its budget is ${budget} (test/helpers/pg-budget.ts)` : undefined;
}
