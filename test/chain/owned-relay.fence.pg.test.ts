import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import type { ChainService } from '../../src/chain/chain.js';
import { relayOwned } from '../../src/chain/owned-relay.js';
import { AttemptLedger, soleOwner } from '../../src/settlement/attempts.js';
import { PgStore } from '../../src/store/index.js';
import { until } from '../helpers/cluster.js';
import { signedOwnedMove, transactionsCarrying, twoRelayers } from './helpers.js';

/**
 * Two instances may both broadcast one transfer nonce (seen in transfers.instances.pg.test.ts:
 * two mined transactions, one reverted, gas wasted): a surviving instance takes an attempt over
 * once its deadline passed while the slow owner still broadcasts. The two roles in one process:
 * instance A (the embedded anvil, its relayer) and instance B (a second relayer on the same
 * anvil), each with its own attempt ledger on one real PostgreSQL database, relay journals on
 * it. A's slowness is a gate in its relay journal's record (the last step before a broadcast,
 * after verification, simulation, nonce and signature), held until A's attempt deadline has
 * passed (a condition waited for, not a duration). On the base both failed: A broadcast after
 * the survivor's take-over (two transactions for the nonce, one reverted) or after its own
 * deadline. Checked on the chain: exactly one relayer transaction carries the nonce, and the
 * attempt settles once.
 */

describe('owned relay: a slow owner past its deadline never broadcasts after a take-over (real anvil, PostgreSQL)', () => {
  let store: PgStore;
  let a: ChainService;
  let b: ChainService;
  /**
   * A's relay journal with a gate: armed, the next record (the last step before a broadcast:
   * the owner has verified, simulated, taken its nonce and signed) waits until opened.
   */
  let slow: Awaited<ReturnType<typeof twoRelayers>>['slow'];
  let close = async () => {};

  beforeAll(async () => {
    ({ store, a, b, slow, close } = await twoRelayers('fence'));
  }, 120_000);
  afterAll(() => close());

  const rpc = (method: string, params: unknown[] = []) => a.publicClient.request({ method: method as never, params: params as never });
  const holdMining = async (hold: boolean) => rpc('evm_setAutomine', [!hold]);

  /** Every transaction (mined since `from`, or waiting in the pool) whose input carries `nonce`. */
  const carrying = async (nonce: Hex, from: bigint) => (await transactionsCarrying(a, nonce, from)).map(({ hash, status }) => ({ hash, status }));

  const signedMove = (subject: string) => signedOwnedMove(a, subject, 60_000);

  /** The owner's attempt span: long enough for it to reach its broadcast on a loaded machine, short enough to wait out. */
  const SPAN_MS = 5_000;
  /** Waits (a condition, not a duration) until the attempt's deadline has passed. */
  async function pastDeadline(l: AttemptLedger, id: string): Promise<void> {
    const row = (await l.get(id))!;
    await until(async () => Date.now() > Date.parse(row.deadlineAt), 'the owner\'s deadline to pass', 30_000);
  }

  /** An attempt ledger whose successful closes are counted (the record settling). */
  function ledger(name: string, deadlineMs: number, relayer: Address, clock?: () => number) {
    const l = new AttemptLedger(store, soleOwner(name), deadlineMs, relayer, clock);
    const settled: string[] = [];
    const close = l.close.bind(l);
    l.close = async (id, answer, tx) => {
      if (answer.ok) settled.push(`${name}:${answer.txHash}`);
      return close(id, answer, tx);
    };
    return { l, settled };
  }

  it('the row handed over (its generation bumped) while the owner is slow: the owner sends nothing, the survivor\'s one transaction settles it once', { timeout: 120_000 }, async () => {
    const { auth, req, id } = await signedMove('fence-takeover');
    const from = await a.publicClient.getBlockNumber({ cacheTime: 0 });
    const A = ledger('instance-a', SPAN_MS, a.relayerAddress);
    const B = ledger('instance-b', 60_000, b.relayerAddress);
    await holdMining(true);
    slow.arm();
    try {
      const owner = relayOwned(a, A.l, req);
      await slow.reached;
      await pastDeadline(A.l, id);
      const survivor = relayOwned(b, B.l, { ...req, sign: async () => ({ ok: false, message: 'a take-over sends the stored authorization' }) });
      const taken = await until(async () => {
        const row = await A.l.get(id);
        return row?.generation === 2 && row.txHash && (await b.transactionKnown(row.txHash as Hex)) ? row : undefined;
      }, 'instance B to take the attempt over and send', 60_000);
      // The slow owner goes on now.
      slow.open();
      expect(await owner).toMatchObject({ status: 'pending', mayHaveSent: false });
      expect((await carrying(auth.nonce, from)).map((t) => t.hash)).toEqual([taken.txHash]);
      await holdMining(false);
      await rpc('evm_mine');
      expect(await survivor).toEqual({ status: 'settled', txHash: taken.txHash });
      expect(await carrying(auth.nonce, from)).toEqual([{ hash: taken.txHash, status: 'success' }]);
      expect(await A.l.get(id)).toMatchObject({ state: 'done', generation: 2, answer: { ok: true, txHash: taken.txHash } });
      expect([...A.settled, ...B.settled]).toEqual([`instance-b:${taken.txHash}`]);
    } finally {
      slow.open();
      await holdMining(false);
    }
  });

  it('the owner slower than its own deadline: it sends nothing after it, and a survivor sends the move once', { timeout: 120_000 }, async () => {
    const { auth, req, id } = await signedMove('fence-deadline');
    const from = await a.publicClient.getBlockNumber({ cacheTime: 0 });
    const A = ledger('instance-a', SPAN_MS, a.relayerAddress);
    const B = ledger('instance-b', 60_000, b.relayerAddress);
    slow.arm();
    try {
      const owner = relayOwned(a, A.l, req);
      await slow.reached;
      await pastDeadline(A.l, id);
      slow.open();
      expect(await owner).toMatchObject({ status: 'pending', mayHaveSent: false });
      // Nothing left from the owner: the nonce is unused and no transaction carries it.
      expect(await carrying(auth.nonce, from)).toEqual([]);
      expect(await a.authorizationState(auth.from, auth.nonce)).toBe(false);
      const survivor = await relayOwned(b, B.l, { ...req, sign: async () => ({ ok: false, message: 'a take-over sends the stored authorization' }) });
      expect(survivor.status).toBe('settled');
      const mined = await carrying(auth.nonce, from);
      expect(mined).toEqual([{ hash: (survivor as { txHash: Hex }).txHash, status: 'success' }]);
      expect(await A.l.get(id)).toMatchObject({ state: 'done', generation: 2 });
      expect([...A.settled, ...B.settled]).toEqual([`instance-b:${mined[0]!.hash}`]);
    } finally {
      slow.open();
    }
  });
  /**
   * Clock skew (h9relay): the guard before the deadline (a quarter of the span, at most 2 s) covers
   * a send on its way, not clocks that disagree. An owner whose clock runs behind, or a survivor
   * whose clock runs ahead, by more than the guard (here by two minutes, more than the whole span)
   * used to see the deadline pass at different moments: the survivor took the attempt over while
   * the owner, past its generation check and on its way to the broadcast, still found itself
   * inside its window by its own clock. Both sent: two transactions for one nonce. Every time is
   * now the database's: the deadline is written in it, the owner's fence reads it with the
   * generation, and a take-over needs it past the deadline. The skew is a clock port given to that
   * instance's attempt ledger.
   */
  const SKEW_MS = 120_000;
  for (const skewed of ['the survivor\'s clock ahead', 'the owner\'s clock behind'] as const) {
    it(`${skewed} by more than the guard: no take-over inside the owner's window, one transaction for the nonce`, { timeout: 120_000 }, async () => {
      const { auth, req, id } = await signedMove(`fence-skew-${skewed.includes('ahead') ? 'ahead' : 'behind'}`);
      const from = await a.publicClient.getBlockNumber({ cacheTime: 0 });
      const ahead = skewed.includes('ahead');
      const A = ledger('instance-a', 30_000, a.relayerAddress, ahead ? undefined : () => Date.now() - SKEW_MS);
      const B = ledger('instance-b', 60_000, b.relayerAddress, ahead ? () => Date.now() + SKEW_MS : undefined);
      await holdMining(true);
      slow.arm();
      try {
        // The owner has passed its generation check and is about to broadcast.
        const owner = relayOwned(a, A.l, req);
        await slow.reached;
        // The survivor looks at the attempt now, well inside the owner's window on the database's clock.
        const survivor = await relayOwned(b, B.l, { ...req, timeoutMs: 1_000, sign: async () => ({ ok: false, message: 'a take-over sends the stored authorization' }) });
        expect(survivor).toMatchObject({ status: 'pending' });
        slow.open();
        // The owner's transaction in the pool (its relayer's, carrying the nonce): the only one.
        const sent = await until(async () => {
          const pool = (await rpc('txpool_content')) as { pending: Record<string, Record<string, { hash: Hex; input: string }>> };
          const mine = Object.entries(pool.pending).find(([who]) => who.toLowerCase() === a.relayerAddress.toLowerCase())?.[1] ?? {};
          return Object.values(mine).find((t) => t.input.includes(auth.nonce.slice(2).toLowerCase()))?.hash;
        }, 'the owner to broadcast', 60_000);
        expect((await carrying(auth.nonce, from)).map((t) => t.hash)).toEqual([sent]);
        expect(await A.l.get(id)).toMatchObject({ state: 'open', generation: 1, txHash: sent });
        await holdMining(false);
        await rpc('evm_mine');
        expect(await owner).toEqual({ status: 'settled', txHash: sent });
        expect(await carrying(auth.nonce, from)).toEqual([{ hash: sent, status: 'success' }]);
        expect(await A.l.get(id)).toMatchObject({ state: 'done', generation: 1, answer: { ok: true, txHash: sent } });
        expect([...A.settled, ...B.settled]).toEqual([`instance-a:${sent}`]);
      } finally {
        slow.open();
        await holdMining(false);
      }
    });
  }
});
