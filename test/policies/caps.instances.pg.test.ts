/**
 * Issue 24, "concurrent turns can never together exceed a cap … with two instances on
 * PostgreSQL", through the real API door: separate service processes on one database and one
 * anvil (test/helpers/instances.ts), 50 concurrent `POST /api/agent/settle` turns spread over the
 * instances, a key's daily cap of 5 USD. Exactly five move money (checked on the chain), the rest
 * are refused by the cap with the rule named. guard.pg.test.ts proves the same at the store level.
 */
import { describe, expect, it } from 'vitest';
import { getAddress, parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { stablecoinAbi } from '../../src/chain/artifacts/stablecoin.js';
import { threeInstances } from '../helpers/instances.js';
import { call, createMerchant } from '../helpers/service.js';

describe('spend caps across instances on PostgreSQL', () => {
  // Ten connections per instance, the service's default, not the cluster tests' five: 50 turns
  // at once on three instances, each turn's cap check a serializable transaction, left 9 of
  // 50 turns answered neither 200 nor 422 with five (a clean-clone CI run): 503s of the pool
  // timeout (h10relay; reproduced with a pool of 2 and a 300 ms pool timeout: 26-30 of 50).
  const start = threeInstances({ prefix: 'cap24_', blockTimeSeconds: 0, env: { AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1h', DATABASE_POOL_MAX: '10' } });

  it('50 concurrent API turns on three instances never together exceed the daily cap', { timeout: 300_000 }, async () => {
    const { chain, all, q } = await start();
    const m = await createMerchant(all[0].api, 'Cap Shop');
    const keyId = (await call(`${all[0].api}/keys`, { cookie: m.cookie })).body.keys[0].id as string;
    const put = await call(`${all[1].api}/keys/${keyId}/policy`, { method: 'PUT', cookie: m.cookie, body: { policy: { usd: { daily: '5' } }, password: 'correct horse battery' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const from = getAddress((await call(`${all[0].api}/me`, { key: m.key })).body.account.wallet.address as string);
    await chain.mint(from, parseUnits('100', 6));
    const to = privateKeyToAccount(generatePrivateKey()).address;

    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => call(`${all[i % all.length]!.api}/agent/settle`, { method: 'POST', key: m.key, body: { message: `send 1 USD to ${to}` } })),
    );
    // A burst larger than the instances' pools may meet a pool timeout (DATABASE_POOL_TIMEOUT): the
    // documented answer is 503 with Retry-After and the agent door's `{ok:false, reply}` (docs/store.md,
    // "When the database is unavailable"; docs/policies.md, "A burst larger than the pool"). Nothing else.
    for (const r of results.filter((r) => r.status === 503)) {
      expect(r.headers.get('retry-after')).toBe('2');
      expect(r.body).toEqual({ ok: false, reply: expect.stringContaining('could not reach its database just now') });
    }
    // Met after the send began: 202 `outcome_unknown`, never "retry" (docs/api-decisions.md, "Agent turns when the database fails").
    for (const r of results.filter((r) => r.status === 202)) {
      expect(r.headers.get('retry-after')).toBeNull();
      expect(r.body).toMatchObject({ ok: false, action: 'transfer', reason: 'outcome_unknown' });
    }
    const unavailable = results.filter((r) => r.status === 503 || r.status === 202);
    expect(results.filter((r) => ![200, 202, 422, 503].includes(r.status)).map((r) => [r.status, r.body])).toEqual([]);
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 422);
    if (unavailable.length === 0) {
      expect(ok).toHaveLength(5);
      expect(refused).toHaveLength(45);
    } else {
      // A turn answered 503 may hold its reservation (its outcome unknown to the guard): fewer move.
      expect(ok.length).toBeLessThanOrEqual(5);
    }
    for (const r of refused) {
      expect(r.body.reason).toBe('policy_daily');
      expect(r.body.reply).toContain("daily cap of 5.00 USD in this API key's spend policy");
    }
    // Every instance took part.
    expect(new Set(results.map((_, i) => i % all.length))).toEqual(new Set([0, 1, 2]));

    // The ledger and the chain agree: never more than 5 USD reserved or committed, or arrived; without
    // a 503, 5 USD reserved and committed, 5 USDC arrived.
    const rows = (await q.query<{ doc: { status: string; usd: string } }>(`SELECT doc FROM spend_reservations WHERE doc->>'accountId' = $1`, [m.accountId])).rows;
    const held = rows.filter((r) => r.doc.status !== 'released').reduce((t, r) => t + BigInt(r.doc.usd), 0n);
    // Each reservation is written in its transfer's transaction and named on its row (h10caps): a
    // turn answered 503 leaves none without its transfer (before: reserved in a commit of its own,
    // 2-3 USD of the cap held with no transfer at all), and the transfer's reconcile ends it. No
    // transfer is `failed` ("nothing moved") over a store error.
    const transfers = (await q.query<{ doc: { status: string; spendReservationId?: string } }>(`SELECT doc FROM transfers WHERE doc->>'accountId' = $1`, [m.accountId])).rows.map((r) => r.doc);
    const linked = new Set(transfers.map((t) => t.spendReservationId));
    const ids = (await q.query<{ id: string }>(`SELECT id FROM spend_reservations WHERE doc->>'accountId' = $1`, [m.accountId])).rows.map((r) => r.id);
    expect(ids.filter((id) => !linked.has(id))).toEqual([]);
    expect(transfers.filter((t) => t.status === 'failed')).toEqual([]);
    const got = await chain.publicClient.readContract({ address: chain.tokenAddress, abi: stablecoinAbi, functionName: 'balanceOf', args: [to as Address] });
    if (unavailable.length === 0) {
      expect(held).toBe(5_000_000n);
      expect(got).toBe(parseUnits('5', 6));
    } else {
      expect(held).toBeLessThanOrEqual(5_000_000n);
      expect(got).toBeLessThanOrEqual(parseUnits('5', 6));
    }
  });
});
