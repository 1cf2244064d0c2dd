import pg from 'pg';
import type { Hex } from 'viem';
import { afterAll } from 'vitest';
import { cluster, startSharedChain, type Cluster, type Instance, type SharedChain } from './cluster.js';
import { createDatabase, type TestDatabase } from './pg.js';

export interface ThreeInstances {
  db: TestDatabase;
  chain: SharedChain;
  nodes: Cluster;
  all: [Instance, Instance, Instance];
  /** Queries on the instances' database (a small pool: the tests read several rows at once). */
  q: pg.Pool;
  rpc(method: string, params?: unknown[]): Promise<{ result?: unknown }>;
  /** Holds mining (on) or mines again (off): automine on the instant-mining chain, interval mining where blocks come every N s. */
  holdMining(on: boolean): Promise<void>;
  /** Every status each row of `sql` (`id`, `status`) is seen in, in order, the database read every 100 ms until `stop()`. */
  watchStatuses(sql: string): { seen: Map<string, string[]>; stop(): Promise<void> };
  /** Mined transactions to the token carrying `nonce` (a second send would be a reverted one). */
  minedWith(nonce: Hex): Promise<Array<{ hash: Hex; status: string }>>;
  /** The settlement attempt (the one owner of a move) for `subject` and `kind`. */
  attemptOf(subject: string, kind: string): Promise<any>;
}

/**
 * The multi-instance tests' deployment (issue 21): a new database, a shared anvil (instant
 * mining, or a block every `blockTimeSeconds`), and instances a, b, c on relayer keys 1-3.
 * Call inside a `describe`: it registers the teardown (afterAll) there and returns the start,
 * which the test calls (so it counts against the test's timeout).
 */
export function threeInstances(opts: { prefix: string; blockTimeSeconds: number; env: Record<string, string> }): () => Promise<ThreeInstances> {
  let db: TestDatabase | undefined;
  let chain: SharedChain | undefined;
  let nodes: Cluster | undefined;
  let client: pg.Pool | undefined;
  const watchers: Array<() => void> = [];
  afterAll(async () => {
    for (const stop of watchers) stop();
    await client?.end().catch(() => undefined);
    await nodes?.stopAll();
    await chain?.stop();
    await db?.drop();
  });
  return async () => {
    db = await createDatabase(undefined, { prefix: opts.prefix });
    const c = (chain = await startSharedChain({ blockTimeSeconds: opts.blockTimeSeconds }));
    nodes = cluster({ databaseUrl: db.url, chain: c, env: opts.env });
    const all = (await Promise.all([nodes.start('a', 1), nodes.start('b', 2), nodes.start('c', 3)])) as [Instance, Instance, Instance];
    const q = (client = new pg.Pool({ connectionString: db.url, max: 3 }));
    q.on('error', () => undefined);
    await q.query('SELECT 1');
    const rpc = async (method: string, params: unknown[] = []) =>
      (await (await fetch(c.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })).json()) as { result?: unknown };
    return {
      db,
      chain: c,
      nodes,
      all,
      q,
      rpc,
      async holdMining(on) {
        // With a block every N s, a hold pauses interval mining (0 = none): a move the test means
        // to catch in flight (an instance killed mid-sweep) must not be mined before the kill.
        if (opts.blockTimeSeconds) return void (await rpc('evm_setIntervalMining', [on ? 0 : opts.blockTimeSeconds]));
        await rpc('evm_setAutomine', [!on]);
        if (!on) await rpc('evm_mine');
      },
      watchStatuses(sql) {
        const seen = new Map<string, string[]>();
        let watching = true;
        watchers.push(() => (watching = false));
        const loop = (async () => {
          while (watching) {
            const rows = await q.query<{ id: string; status: string }>(sql).catch(() => ({ rows: [] as Array<{ id: string; status: string }> }));
            for (const r of rows.rows) {
              const list = seen.get(r.id) ?? [];
              if (list[list.length - 1] !== r.status) list.push(r.status);
              seen.set(r.id, list);
            }
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
        return {
          seen,
          async stop() {
            watching = false;
            await loop;
          },
        };
      },
      async minedWith(nonce) {
        const latest = await c.publicClient.getBlockNumber({ cacheTime: 0 });
        const found: Array<{ hash: Hex; status: string }> = [];
        for (let n = 0n; n <= latest; n++) {
          const block = await c.publicClient.getBlock({ blockNumber: n, includeTransactions: true });
          for (const tx of block.transactions) {
            if (tx.to?.toLowerCase() === c.tokenAddress.toLowerCase() && tx.input.includes(nonce.slice(2).toLowerCase())) {
              const r = await c.publicClient.getTransactionReceipt({ hash: tx.hash });
              found.push({ hash: tx.hash, status: r.status });
            }
          }
        }
        return found;
      },
      async attemptOf(subject, kind) {
        return (await q.query<{ doc: any }>(`SELECT doc FROM settlement_attempts WHERE doc->>'subject' = $1 AND doc->>'kind' = $2`, [subject, kind])).rows[0]?.doc;
      },
    };
  };
}
