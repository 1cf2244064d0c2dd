import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { parseEventLogs, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { nonceFor } from '../../src/chain/authorization.js';
import { cluster, startSharedChain, until, type Cluster, type Instance, type SharedChain } from '../helpers/cluster.js';
import { createDatabase, type TestDatabase } from '../helpers/pg.js';
import { call, createMerchant } from '../helpers/service.js';

/**
 * Issue 13, "A multi-instance test": three service processes (`src/main.ts`) on one PostgreSQL
 * database and one shared anvil, each with its own relayer key, under interleaved load: the
 * same Idempotency-Key sent to different instances at once, checkout settlements signed by
 * payers' wallets, agent transfers, webhook deliveries to a local receiver. One instance is
 * SIGKILLed mid-load. Then, from the database and the chain: no acknowledged payment lost,
 * one payment per Idempotency-Key, no authorization used twice and no unrecorded transfer,
 * every terminal payment's event delivered (after the survivors take over), no nonce errors,
 * and the agent rate limit exact across the instances.
 *
 * Bounded by polling, not sleeps: the load runs for a fixed number of operations with the
 * kill after a fixed share of them, so a slow machine only makes it slower.
 */
const RATE_LIMIT = 10;
const IDEM_KEYS = 24;
const PAYMENTS_PER_WORKER = 10;
const TRANSFERS = 6;

let db: TestDatabase | undefined;
let chain: SharedChain | undefined;
let nodes: Cluster | undefined;
let receiver: http.Server | undefined;
afterAll(async () => {
  await nodes?.stopAll();
  await chain?.stop();
  receiver?.close();
  await db?.drop();
});

interface Received {
  id: string;
  type: string;
  data: { id: string; status: string };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request that may hit a killed instance: undefined when the connection failed. */
async function attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch {
    return undefined;
  }
}

describe('three service processes, one PostgreSQL database, one anvil', () => {
  it('loses nothing, settles nothing twice and delivers every event when one instance is killed mid-load', { timeout: 240_000 }, async () => {
    db = await createDatabase(undefined, { prefix: 'multi_' });
    chain = await startSharedChain();

    // The merchants' webhook receiver: records every body it gets.
    const received: Received[] = [];
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        try {
          received.push(JSON.parse(body) as Received);
        } catch {
          /* not JSON: counted as nothing */
        }
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    nodes = cluster({
      databaseUrl: db.url,
      chain,
      env: {
        AGENT_RATE_LIMIT: `${RATE_LIMIT}/min`,
        WEBHOOK_RETRY_SCHEDULE: '0,200ms,500ms,1s,2s,2s,2s,2s,2s,2s',
        WEBHOOK_RESCAN_INTERVAL: '500ms',
        RECONCILE_INTERVAL: '1s',
        EXPIRY_SWEEP_INTERVAL: '1s',
      },
    });
    // Dev account 0 owns the token; 1, 2 and 3 relay, one per instance.
    const [a, b, c] = await Promise.all([nodes.start('a', 1), nodes.start('b', 2), nodes.start('c', 3)]);
    const all: Instance[] = [a!, b!, c!];
    let live = [...all];
    const pick = (i: number) => live[i % live.length]!;

    const shop = await createMerchant(a!.api, 'Multi Shop');
    const sender = await createMerchant(b!.api, 'Agent Sender');
    const burst = await createMerchant(c!.api, 'Burst');
    const me = await call(`${a!.api}/me`, { cookie: sender.cookie });
    const senderWallet = (me.body.account?.wallet?.address ?? me.body.wallet?.address) as Address;
    expect(senderWallet).toMatch(/^0x/);
    const payers: PrivateKeyAccount[] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())];
    for (const p of payers) await chain.mint(p.address, parseUnits('1000', 6));
    await chain.mint(senderWallet, parseUnits('1000', 6));

    // ---------------------------------------------------------------- the agent rate limit
    // N + k turns of one account spread over the three instances at once: exactly N pass.
    const turns = await Promise.all(
      Array.from({ length: RATE_LIMIT + 6 }, (_, i) => call(`${all[i % 3]!.api}/agent/settle`, { key: burst.key, body: { message: 'help' } })),
    );
    expect(turns.map((t) => t.status).filter((s) => s === 200)).toHaveLength(RATE_LIMIT);
    expect(turns.map((t) => t.status).filter((s) => s === 429)).toHaveLength(6);

    // ---------------------------------------------------------------- the load
    const acknowledged = new Set<string>();
    const byKey = new Map<string, Set<string>>();
    const createBody = (extra: Record<string, unknown> = {}) => ({
      amount: 3,
      currency: 'USD',
      redirect_url: 'https://shop.example/done',
      webhook_url: hookUrl,
      ...extra,
    });
    let progress = 0;
    const totalOps = IDEM_KEYS + PAYMENTS_PER_WORKER * payers.length + TRANSFERS;
    let killed = false;
    const tick = async () => {
      progress++;
      // The kill lands mid-load: after about a third of the operations, while all kinds run.
      if (!killed && progress >= totalOps / 3) {
        killed = true;
        live = [a!, b!];
        await c!.kill();
      }
    };

    const idempotent = async () => {
      for (let k = 0; k < IDEM_KEYS; k++) {
        const key = `order-${k}`;
        // The same key to every instance at once (a killed one just fails to answer).
        const answers = await Promise.all(
          all.map((inst) =>
            attempt(() => call(`${inst.api}/v1/payments`, { key: shop.key, headers: { 'idempotency-key': key }, body: createBody({ description: key }) })),
          ),
        );
        for (const r of answers) {
          if (r?.status !== 201) continue;
          acknowledged.add(r.body.id);
          if (!byKey.has(key)) byKey.set(key, new Set());
          byKey.get(key)!.add(r.body.id);
        }
        await tick();
      }
    };

    const settled = new Set<string>();
    const paying = async (w: number) => {
      const payer = payers[w]!;
      for (let i = 0; i < PAYMENTS_PER_WORKER; i++) {
        await attempt(async () => {
          const created = await call(`${pick(i + w).api}/v1/payments`, { key: shop.key, body: createBody({ description: `pay-${w}-${i}` }) });
          if (created.status !== 201) return;
          acknowledged.add(created.body.id);
          // Authorization from one instance, the signed settle to another, as a load balancer would.
          const auth = await call(`${pick(i + w + 1).api}/checkout/${created.body.id}/authorization`, { body: { from: payer.address } });
          if (auth.status !== 200) return;
          const signature = await payer.signTypedData(auth.body.typedData);
          const paid = await call(`${pick(i + w + 2).api}/checkout/${created.body.id}/settle`, {
            body: { authorization: auth.body.typedData.message, signature },
          });
          if (paid.status === 200) settled.add(created.body.id);
        });
        await tick();
      }
    };

    const transfers = async () => {
      for (let i = 0; i < TRANSFERS; i++) {
        await attempt(() => call(`${pick(i).api}/agent/settle`, { key: sender.key, body: { message: `send 1 USD to ${shop.email}` } }));
        await tick();
      }
    };

    await Promise.all([idempotent(), paying(0), paying(1), transfers()]);
    expect(killed).toBe(true);
    expect(c!.child.signalCode).toBe('SIGKILL');

    // ---------------------------------------------------------------- after the load
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = async <T>(sql: string, params: unknown[] = []) => (await client.query<{ doc: T }>(sql, params)).rows.map((r) => r.doc);
      type P = { id: string; status: string; payer?: string; txHash?: string; authNonce?: string; description?: string };
      type T = { id: string; status: string; fromAddress: string; txHash?: string };

      const token = { address: chain.tokenAddress, abi: stablecoinAbi } as const;
      const payerLogs = (payer: Address) => chain!.publicClient.getContractEvents({ ...token, eventName: 'Transfer', fromBlock: 0n, args: { from: payer } });
      // The survivors' reconcilers finish what the killed instance left: nothing processing,
      // and every transaction a payer's authorization went into recorded on its payment (one
      // the killed instance relayed may land after its payment went back to pending).
      await until(
        async () => {
          if ((await client.query(`SELECT 1 FROM payments WHERE doc->>'status' = 'processing' LIMIT 1`)).rowCount !== 0) return false;
          const hashes = new Set((await rows<P>(`SELECT doc FROM payments WHERE doc->>'status' = 'settled'`)).map((p) => p.txHash));
          for (const payer of payers) if ((await payerLogs(payer.address)).some((l) => !hashes.has(l.transactionHash))) return false;
          return true;
        },
        'the store and the chain to agree on every settlement',
        60_000,
      ).catch(() => undefined);

      const payments = await rows<P>(`SELECT doc FROM payments WHERE doc->>'accountId' = $1`, [shop.accountId]);
      const ids = new Set(payments.map((p) => p.id));

      // 0 acknowledged payments lost.
      expect([...acknowledged].filter((id) => !ids.has(id))).toEqual([]);
      expect(acknowledged.size).toBeGreaterThan(IDEM_KEYS / 2);

      // Each Idempotency-Key: every 201 carried one id, and the database holds one payment for it.
      for (const [key, seen] of byKey) {
        expect(seen.size, key).toBe(1);
        expect(payments.filter((p) => p.description === key).length, key).toBe(1);
      }
      // A key whose every answer was lost with the killed instance still made at most one.
      for (let k = 0; k < IDEM_KEYS; k++) expect(payments.filter((p) => p.description === `order-${k}`).length).toBeLessThanOrEqual(1);

      // Settlements: every one acknowledged is settled, and some really happened.
      const settledRows = payments.filter((p) => p.status === 'settled');
      expect([...settled].filter((id) => !settledRows.some((p) => p.id === id))).toEqual([]);
      expect(settledRows.length).toBeGreaterThanOrEqual(PAYMENTS_PER_WORKER);

      // On chain: every settled payment's authorization was used, by its recorded transaction,
      // which succeeded (a nonce error would have left a transaction missing or failed).
      const used = (from: Address, nonce: Hex) => chain!.publicClient.readContract({ ...token, functionName: 'authorizationState', args: [from, nonce] });
      const bad: string[] = [];
      for (const p of settledRows) {
        const nonce = (p.authNonce as Hex | undefined) ?? nonceFor('payment', p.id);
        const receipt = p.txHash ? await chain.publicClient.getTransactionReceipt({ hash: p.txHash as Hex }).catch(() => undefined) : undefined;
        const ok =
          (await used(p.payer as Address, nonce)) &&
          receipt?.status === 'success' &&
          parseEventLogs({ abi: stablecoinAbi, eventName: 'AuthorizationUsed', logs: receipt.logs }).length === 1;
        if (!ok) bad.push(p.id);
      }
      expect(bad).toEqual([]);

      // 0 double settlements: each payer's Transfer logs are exactly its settled payments, one each
      // (and no payment whose authorization moved money is recorded as anything but settled).
      for (const payer of payers) {
        const logs = await payerLogs(payer.address);
        const mine = payments.filter((p) => p.payer?.toLowerCase() === payer.address.toLowerCase() && p.status === 'settled');
        const unrecorded = logs.filter((l) => !mine.some((p) => p.txHash === l.transactionHash));
        const detail = await Promise.all(
          unrecorded.map(async (l) => {
            const tx = await chain!.publicClient.getTransaction({ hash: l.transactionHash });
            return { tx: l.transactionHash, relayer: tx.from, killedRelayer: c!.relayer };
          }),
        );
        expect(detail).toEqual([]);
        expect(logs.length).toBe(mine.length);
        expect(new Set(logs.map((l) => l.transactionHash)).size).toBe(logs.length);
        expect(new Set(logs.map((l) => l.transactionHash))).toEqual(new Set(mine.map((p) => p.txHash)));
      }

      // Agent transfers: every Transfer out of the sender's wallet is one recorded transfer's
      // principal or fee, each authorization used once. (A transfer the killed instance was
      // executing may stay `submitted` until the money-module sweep takes it, 120 s idle; this
      // holds at every moment regardless.)
      const transferRows = await rows<T>(`SELECT doc FROM transfers WHERE doc->>'fromAddress' ILIKE $1`, [senderWallet]);
      let expected = 0;
      for (const t of transferRows) {
        const principal = await used(t.fromAddress as Address, nonceFor('transfer', t.id));
        const fee = await used(t.fromAddress as Address, nonceFor('transfer-fee', t.id));
        expected += Number(principal) + Number(fee);
        if (principal) expect(t.status, t.id).not.toBe('failed');
      }
      const senderLogs = await chain.publicClient.getContractEvents({ ...token, eventName: 'Transfer', fromBlock: 0n, args: { from: senderWallet } });
      expect(senderLogs.length).toBe(expected);
      expect(transferRows.filter((t) => t.status === 'settled').length).toBeGreaterThan(0);

      // Every terminal payment's event reached the receiver: the killed instance's attempts are
      // taken over once its lease lapses (30 s), and the survivors' rescans send the rest.
      const terminal = await rows<P>(
        `SELECT doc FROM payments WHERE doc->>'accountId' = $1 AND doc->>'status' IN ('settled', 'failed', 'expired', 'canceled')`,
        [shop.accountId],
      );
      const typeFor: Record<string, string> = { settled: 'payment.settled', failed: 'payment.failed', expired: 'payment.expired', canceled: 'payment.canceled' };
      const undelivered = () => terminal.filter((p) => !received.some((e) => e.data?.id === p.id && e.type === typeFor[p.status]));
      await until(async () => undelivered().length === 0, `events of ${undelivered().length} terminal payments`, 75_000).catch(() => undefined);
      expect(undelivered().map((p) => `${p.id}:${p.status}`)).toEqual([]);

      // 0 nonce errors in the survivors' logs (the killed one's key is in no one else's hands).
      for (const inst of [a!, b!]) {
        expect(inst.logs.filter((l) => /nonce too (low|high)|replacement transaction underpriced|already known|invalid nonce/i.test(l))).toEqual([]);
      }
      // Each instance relayed from its own key: the chain saw transactions from more than one.
      const relayedBy = new Set<string>();
      for (const p of settledRows) {
        const tx = await chain.publicClient.getTransaction({ hash: p.txHash as Hex });
        relayedBy.add(tx.from.toLowerCase());
      }
      expect(relayedBy.size).toBeGreaterThanOrEqual(2);
      console.log(
        `multi-instance: ${acknowledged.size} payments acknowledged, ${byKey.size} idempotency keys, ${settledRows.length} settled ` +
          `(relayers ${relayedBy.size}), ${transferRows.filter((t) => t.status === 'settled').length}/${transferRows.length} transfers settled, ` +
          `${received.length} webhook requests for ${terminal.length} terminal payments`,
      );
      for (const r of relayedBy) expect(all.map((i) => i.relayer.toLowerCase())).toContain(r);
    } finally {
      await client.end();
    }
    await sleep(0);
  });
});
