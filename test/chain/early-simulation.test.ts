import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Address } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { moveWithFeeOnce, signWithFee } from '../../src/wallet/custodial-fee-move.js';
import { tempDir } from './helpers.js';

/**
 * Issue 23, tenth round: a move and its fee signed ahead (an agent transfer) are simulated as
 * soon as they are signed, so the gas estimate overlaps the caller's balance read and hold
 * instead of following them; the submit sends on it while fresh (as on a verified single
 * authorization), and simulates again when it is stale or failed. Counted at the node client.
 */
describe('early simulation of a signed move and its fee', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  const feeWallet = '0x00000000000000000000000000000000000fee07' as Address;
  let estimates = 0;

  beforeAll(async () => {
    const t = await tempDir('chain-early-sim-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir });
    const client = chain.publicClient as unknown as { request: (a: { method: string }) => Promise<unknown> };
    const request = client.request.bind(client);
    client.request = (a) => {
      if (a.method === 'eth_estimateGas') estimates++;
      return request(a);
    };
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  const move = (i: number, id: string) => ({ req: { fromIndex: i, to: chain.custodialAddress(i + 1), value: 3_000_000n, kind: 'transfer', id }, fee: { to: feeWallet, value: 30_000n, kind: 'transfer-fee' } });

  it('simulated when signed; the submit sends on that simulation (one estimate in all)', async () => {
    const { req, fee } = move(41, 'tr_early_1');
    expect((await chain.faucet(chain.custodialAddress(41), 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    estimates = 0;
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    expect(estimates).toBe(1); // started with the signatures, before anything else
    const moved = await moveWithFeeOnce(chain, req, fee, undefined, undefined, { signed: signed.signed });
    expect(moved.status).toBe('settled');
    expect(estimates).toBe(1);
    expect(await chain.balanceOf(chain.custodialAddress(41))).toBe(10_000_000n - 3_030_000n);
  });

  it('a stale early simulation is not used: the submit simulates again', async () => {
    const { req, fee } = move(43, 'tr_early_2');
    expect((await chain.faucet(chain.custodialAddress(43), 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    estimates = 0;
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    vi.useFakeTimers({ now: Date.now() + 5_000, toFake: ['Date'] });
    const moved = await moveWithFeeOnce(chain, req, fee, undefined, undefined, { signed: signed.signed });
    expect(moved.status).toBe('settled');
    expect(estimates).toBe(2);
  });

  it('a failed early simulation (the wallet is empty) is not used: the submit simulates again and answers as before', async () => {
    const { req, fee } = move(45, 'tr_early_3');
    estimates = 0;
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    const moved = await moveWithFeeOnce(chain, req, fee, undefined, undefined, { signed: signed.signed });
    expect(moved).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
    expect(estimates).toBe(2);
  });
});
