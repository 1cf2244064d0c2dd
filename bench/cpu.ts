/**
 * CPU time of the processes serving a measurement, per request: the service child, the
 * PostgreSQL backends of its database and the bench process (autocannon). On a shared machine
 * the requests per second of a run follow everyone else's load, but the CPU one request costs
 * hardly does, so these figures compare runs taken under different loads (Linux /proc).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import pg from 'pg';

const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString().trim() || 100);

/** User + system CPU of one process so far, in ms (0 once it has gone). */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is the first, utime the 12th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

async function backendPids(adminUrl: string, database: string): Promise<number[]> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    const r = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [database]);
    return r.rows.map((x) => x.pid);
  } finally {
    await c.end();
  }
}

export interface CpuPerRequest {
  /** ms of CPU per request in the served process (the service or the bare baseline). */
  server: number;
  /** ms per request in the PostgreSQL backends of the database (0 without one). */
  db: number;
  /** ms per request in this process (the load generator). */
  client: number;
}

/** Samples at `start()` (after the warm-up) and at `stop(requests)`. */
export function cpuMeter(serverPid: number, pg?: { adminUrl: string; database: string }) {
  let server0 = 0;
  let client0 = process.cpuUsage();
  let db0 = new Map<number, number>();
  return {
    async start(): Promise<void> {
      if (pg) db0 = new Map((await backendPids(pg.adminUrl, pg.database)).map((p) => [p, processCpuMs(p)]));
      server0 = processCpuMs(serverPid);
      client0 = process.cpuUsage();
    },
    async stop(requests: number): Promise<CpuPerRequest> {
      const c = process.cpuUsage(client0);
      const server = processCpuMs(serverPid) - server0;
      let db = 0;
      if (pg) {
        // Backends opened during the run count in full; those that closed are lost (the pool keeps them open).
        for (const p of await backendPids(pg.adminUrl, pg.database)) db += processCpuMs(p) - (db0.get(p) ?? 0);
      }
      const per = (ms: number) => (requests > 0 ? ms / requests : 0);
      return { server: per(server), db: per(db), client: per((c.user + c.system) / 1000) };
    },
  };
}
