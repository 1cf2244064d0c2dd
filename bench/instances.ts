/**
 * Several instances on one PostgreSQL database and one shared anvil (docs/deploy.md), each a
 * `src/main.ts` process with its own relayer key (test/helpers/cluster.ts):
 *
 * (a) `POST /api/v1/payments` throughput through one instance, then through two with autocannon
 *     spreading its connections round-robin over both, then one again; the ratio (same run) is
 *     to the mean of the two single-instance measurements.
 * (b) Settlements per second: N signed checkout settles sent at once (`POST
 *     /api/checkout/:id/settle`) through one instance (one relayer key), then N more spread
 *     over three instances (a pool of three keys).
 *
 * On a 2-core machine the instances, PostgreSQL, anvil and the load generator share the same
 * two cores, so (a) says what a second process buys when the cores are already busy, not what
 * it buys on a machine with a core per instance.
 *
 *   BENCH_ONLY=instances npm run bench
 *   BENCH_SETTLES=60   settles per phase of (b)
 */
import { randomBytes } from 'node:crypto';
import { parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { cluster, startSharedChain, type Instance } from '../test/helpers/cluster.js';
import { call, createMerchant } from '../test/helpers/service.js';
import { formatTable, measure, type Measurement } from './http.js';
import { percentile } from './stats.js';
import { ADMIN_URL, admin } from './pg-admin.js';


export interface InstancesBenchOptions {
  seconds: number;
  settles?: number;
  print?: (line: string) => void;
}

interface SettleRun {
  name: string;
  keys: number;
  settles: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export async function benchInstances(opts: InstancesBenchOptions): Promise<{ table: string }> {
  const print = opts.print ?? ((l: string) => console.log(l));
  const n = opts.settles ?? 60;
  const name = `multi_bench_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  const chain = await startSharedChain();
  const nodes = cluster({ databaseUrl: u.toString(), chain, env: { LOG_LEVEL: 'silent', RECONCILE_INTERVAL: '1h' } });
  try {
    const a = await nodes.start('a', 1);
    const shop = await createMerchant(a.api, 'Bench Shop');
    let seq = 0;
    const run = randomBytes(3).toString('hex');
    const body = () =>
      JSON.stringify({ amount: 25, currency: 'USD', redirect_url: 'https://shop.example/thanks', reference: `b-${run}-${++seq}`, metadata: { channel: 'bench' } });
    const create = (label: string, first: Instance, more: Instance[] = []) =>
      measure({
        name: label,
        url: `${first.api}/v1/payments`,
        alsoUrls: more.map((i) => `${i.api}/v1/payments`),
        method: 'POST',
        headers: { authorization: `Bearer ${shop.key}` },
        body,
        seconds: opts.seconds,
      });

    print(`instances (a): POST /api/v1/payments, ${opts.seconds}s per measurement, 64 connections, PostgreSQL`);
    const rows: Measurement[] = [];
    // One, two, one again (B idle but running): the machine's load drifts between measurements,
    // so the ratio is to the mean of the two single-instance runs around the two-instance one.
    const b = await nodes.start('b', 2);
    const one = await create('1 instance', a);
    const two = await create('2 instances, round-robin', a, [b]);
    const again = await create('1 instance, again', a);
    const oneMean = (one.requestsPerSecond + again.requestsPerSecond) / 2;
    for (const m of [one, two, again]) m.ratio = m.requestsPerSecond / oneMean;
    rows.push(one, two, again);
    print(formatTable(rows));
    print(`two instances / one (mean of both single runs): ${(two.requestsPerSecond / oneMean).toFixed(2)}`);

    // (b): settles prepared (not measured): payments, one funded payer, signed authorizations.
    const c = await nodes.start('c', 3);
    const payer = privateKeyToAccount(generatePrivateKey());
    await chain.mint(payer.address, parseUnits('1000000', 6));
    const prepare = async (count: number) => {
      const out: Array<{ id: string; authorization: unknown; signature: Hex }> = [];
      for (let i = 0; i < count; i++) {
        const created = await call(`${a.api}/v1/payments`, { key: shop.key, body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done' } });
        if (created.status !== 201) throw new Error(`create: ${created.status}`);
        const auth = await call(`${a.api}/checkout/${created.body.id}/authorization`, { body: { from: payer.address } });
        if (auth.status !== 200) throw new Error(`authorization: ${auth.status}`);
        out.push({ id: created.body.id, authorization: auth.body.typedData.message, signature: await payer.signTypedData(auth.body.typedData) });
      }
      return out;
    };
    const settle = async (label: string, via: Instance[]): Promise<SettleRun> => {
      const batch = await prepare(n);
      const latencies: number[] = [];
      const t0 = performance.now();
      await Promise.all(
        batch.map(async (p, i) => {
          const start = performance.now();
          // Plain fetch: the test helper's OpenAPI check would load the client's share of the cores.
          const r = await fetch(`${via[i % via.length]!.api}/checkout/${p.id}/settle`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ authorization: p.authorization, signature: p.signature }),
          });
          const text = await r.text();
          if (r.status !== 200) throw new Error(`settle ${p.id}: ${r.status} ${text}`);
          latencies.push(performance.now() - start);
        }),
      );
      const seconds = (performance.now() - t0) / 1000;
      latencies.sort((x, y) => x - y);
      return {
        name: label,
        keys: via.length,
        settles: n,
        seconds,
        perSecond: n / seconds,
        p50Ms: Math.round(percentile(latencies, 50)),
        p99Ms: Math.round(percentile(latencies, 99)),
      };
    };
    print(`instances (b): ${n} checkout settles sent at once, one relayer key vs a pool of three (one per instance)`);
    const single = await settle('1 instance, 1 relayer key', [a]);
    const pool = await settle('3 instances, 3 relayer keys', [a, b, c]);
    const createsLine = `two instances / one (mean of both single runs): ${(two.requestsPerSecond / oneMean).toFixed(2)}`;
    const settleTable = [
      'settlement             keys  settles  seconds  settles/s  p50 ms  p99 ms  x 1 key',
      ...[single, pool].map(
        (r) =>
          `${r.name.padEnd(28)} ${String(r.keys).padStart(2)} ${String(r.settles).padStart(8)} ${r.seconds.toFixed(2).padStart(8)} ${r.perSecond
            .toFixed(1)
            .padStart(10)} ${String(r.p50Ms).padStart(7)} ${String(r.p99Ms).padStart(7)} ${(r.perSecond / single.perSecond).toFixed(2).padStart(8)}`,
      ),
    ].join('\n');
    print(settleTable);
    return { table: [formatTable(rows), createsLine, '', settleTable].join('\n') };
  } finally {
    await nodes.stopAll();
    await chain.stop();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  }
}
