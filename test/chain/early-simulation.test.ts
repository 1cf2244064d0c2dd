import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Address } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { EARLY_SIMULATION_FRESH_MS } from '../../src/chain/submit.js';
import { moveWithFeeOnce, signWithFee } from '../../src/wallet/custodial-fee-move.js';
import { tempDir } from './helpers.js';

/**
 * Issue 23, twelfth round: a move and its fee signed ahead (an agent transfer) are simulated as
 * soon as they are signed, so the simulation shares the round trip of the caller's balance read
 * instead of following its hold; the submit sends on it while fresh (as on a verified single
 * authorization), and simulates again right before the send when it is stale or did not pass.
 * Counted at the node client: a simulation is an `eth_call` to the token at a gas limit (a
 * balance read has none), or an `eth_estimateGas`.
 */
describe('early simulation of a signed move and its fee', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  const feeWallet = '0x00000000000000000000000000000000000fee07' as Address;
  let simulations = 0;
  let bySubmit = 0;

  beforeAll(async () => {
    const t = await tempDir('chain-early-sim-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir });
    const client = chain.publicClient as unknown as { request: (a: { method: string; params?: unknown[] }) => Promise<unknown> };
    const request = client.request.bind(client);
    client.request = (a) => {
      const call = a.method === 'eth_call' ? (a.params?.[0] as { to?: string; gas?: string } | undefined) : undefined;
      if (a.method === 'eth_estimateGas' || (call?.gas !== undefined && call.to?.toLowerCase() === chain.tokenAddress.toLowerCase())) simulations++;
      return request(a);
    };
    const submit = chain.submitTransfers.bind(chain);
    chain.submitTransfers = (items, opts) => {
      const before = simulations;
      return submit(items, opts).finally(() => (bySubmit += simulations - before));
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

  it('simulated when signed; the submit sends on that simulation (one in all, none by the submit)', async () => {
    const { req, fee } = move(41, 'tr_early_1');
    expect((await chain.faucet(chain.custodialAddress(41), 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    simulations = 0;
    bySubmit = 0;
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    expect(simulations).toBe(1); // asked with the signatures, before anything else
    const moved = await moveWithFeeOnce(chain, req, fee, undefined, undefined, { signed: signed.signed });
    expect(moved.status).toBe('settled');
    expect(simulations).toBe(1);
    expect(bySubmit).toBe(0);
    expect(await chain.balanceOf(chain.custodialAddress(41))).toBe(10_000_000n - 3_030_000n);
  });

  it('a stale early simulation is not used: the submit simulates again right before the send', async () => {
    const { req, fee } = move(43, 'tr_early_2');
    expect((await chain.faucet(chain.custodialAddress(43), 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    simulations = 0;
    bySubmit = 0;
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    vi.useFakeTimers({ now: Date.now() + EARLY_SIMULATION_FRESH_MS + 1_000, toFake: ['Date'] });
    const moved = await moveWithFeeOnce(chain, req, fee, undefined, undefined, { signed: signed.signed });
    expect(moved.status).toBe('settled');
    expect(simulations).toBe(2);
    expect(bySubmit).toBe(1);
  });

  it('an early simulation that did not pass (the wallet was empty) is not used: the submit simulates again and answers as without it', async () => {
    const { req, fee } = move(45, 'tr_early_3');
    simulations = 0;
    bySubmit = 0;
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    const moved = await moveWithFeeOnce(chain, req, fee, undefined, undefined, { signed: signed.signed });
    expect(moved).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
    expect(bySubmit).toBe(1);
    // The same move signed without an early simulation (as before this round): the same answer, word for word.
    const { req: req2 } = move(45, 'tr_early_4');
    const sign = (to: Address, value: bigint, kind: string) => chain.signCustodialAuthorization({ fromIndex: req2.fromIndex, to, value, nonce: chain.nonceFor(kind, req2.id) });
    const [p, f] = await Promise.all([sign(req2.to, req2.value, req2.kind), sign(fee.to, fee.value, fee.kind)]);
    if (!p.ok || !f.ok) throw new Error('not signed');
    const movedLate = await moveWithFeeOnce(chain, req2, fee, undefined, undefined, { signed: { principal: { auth: p.auth, signature: p.signature }, fee: { auth: f.auth, signature: f.signature } } });
    expect(movedLate).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
    expect((moved as { message: string }).message).toBe((movedLate as { message: string }).message);
  });

  it('the early simulation of other items under the same first authorization is not used', async () => {
    const { req, fee } = move(49, 'tr_early_6');
    expect((await chain.faucet(chain.custodialAddress(49), 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    // The same principal with another fee authorization (another value, so another signature).
    const other = await chain.signCustodialAuthorization({ fromIndex: req.fromIndex, to: fee.to, value: fee.value + 1n, nonce: chain.nonceFor(fee.kind, req.id) });
    if (!other.ok) throw new Error(other.message);
    simulations = 0;
    bySubmit = 0;
    const moved = await moveWithFeeOnce(chain, req, { ...fee, value: fee.value + 1n }, undefined, undefined, { signed: { principal: signed.signed.principal, fee: { auth: other.auth, signature: other.signature } } });
    expect(moved.status).toBe('settled');
    expect(bySubmit).toBe(1);
    expect(await chain.balanceOf(chain.custodialAddress(49))).toBe(10_000_000n - 3_030_001n);
  });

  it('a move its caller ends before submitting (a refused hold) leaves nothing sent', async () => {
    const { req, fee } = move(47, 'tr_early_5');
    expect((await chain.faucet(chain.custodialAddress(47), 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const signed = await signWithFee(chain, req, fee);
    if (!signed.ok) throw new Error(signed.message);
    await new Promise((r) => setTimeout(r, 50));
    expect(await chain.balanceOf(chain.custodialAddress(47))).toBe(10_000_000n);
    expect(await chain.authorizationState(signed.signed.principal.auth.from, signed.signed.principal.auth.nonce)).toBe(false);
  });
});
