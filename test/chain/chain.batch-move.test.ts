import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Address } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { supportsBatchTransfers } from '../../src/chain/submit-batch.js';
import { moveWithFeeOnce } from '../../src/wallet/custodial-fee-move.js';
import { tempDir } from './helpers.js';

// Issue 23, point 3: a custodial move and its fee in one transaction, all or none, on anvil.
describe('ChainService: a move and its fee in one transaction (transferWithAuthorizations)', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  const feeWallet = '0x00000000000000000000000000000000000fee01' as Address;
  const relayerTxs = () => chain.publicClient.getTransactionCount({ address: chain.relayerAddress });

  beforeAll(async () => {
    const t = await tempDir('chain-batch-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir });
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  it('detects the function on our token and its absence on a contract without it (as on USDC)', async () => {
    expect(chain.batchTransfers).toBe(true);
    const bare = '0x00000000000000000000000000000000000b0a7d' as Address;
    // PUSH1 0 PUSH1 0 REVERT: what a contract without the function (and no fallback) answers.
    await chain.publicClient.request({ method: 'anvil_setCode' as never, params: [bare, '0x60006000fd'] as never });
    expect(await supportsBatchTransfers(chain.publicClient, bare, chain.relayerAddress)).toBe(false);
  });

  it('one transaction moves the principal and the fee, to the unit; calling again pays nothing twice', async () => {
    const from = chain.custodialAddress(21);
    const to = chain.custodialAddress(22);
    expect((await chain.faucet(from, 10_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const before = await relayerTxs();
    const req = { fromIndex: 21, to, value: 4_000_001n, kind: 'transfer', id: 'tr_batch_1' };
    const fee = { to: feeWallet, value: 20_001n, kind: 'transfer-fee' };

    const moved = await moveWithFeeOnce(chain, req, fee);
    if (moved.status !== 'settled') throw new Error(JSON.stringify(moved));
    expect(await relayerTxs()).toBe(before + 1);
    expect(await chain.balanceOf(from)).toBe(10_000_000n - 4_000_001n - 20_001n);
    expect(await chain.balanceOf(to)).toBe(4_000_001n);
    expect(await chain.balanceOf(feeWallet)).toBe(20_001n);
    // Both authorizations were used by the one transaction.
    expect(await chain.findAuthorizationTx(from, chain.nonceFor('transfer', 'tr_batch_1'))).toBe(moved.txHash);
    expect(await chain.findAuthorizationTx(from, chain.nonceFor('transfer-fee', 'tr_batch_1'))).toBe(moved.txHash);

    const again = await moveWithFeeOnce(chain, req, fee);
    expect(again).toEqual({ status: 'settled', txHash: moved.txHash });
    expect(await chain.balanceOf(from)).toBe(10_000_000n - 4_000_001n - 20_001n);
    expect(await relayerTxs()).toBe(before + 1);
  });

  it('a wallet that covers the principal but not the fee: nothing moves and nothing is sent', async () => {
    const from = chain.custodialAddress(23);
    const to = chain.custodialAddress(24);
    expect((await chain.faucet(from, 5_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const [before, feeBefore] = await Promise.all([relayerTxs(), chain.balanceOf(feeWallet)]);
    const out = await moveWithFeeOnce(
      chain,
      { fromIndex: 23, to, value: 5_000_000n, kind: 'transfer', id: 'tr_batch_2' },
      { to: feeWallet, value: 1n, kind: 'transfer-fee' },
    );
    expect(out).toMatchObject({ status: 'failed', reason: 'insufficient_balance' });
    expect(await chain.balanceOf(from)).toBe(5_000_000n);
    expect(await chain.balanceOf(to)).toBe(0n);
    expect(await chain.balanceOf(feeWallet)).toBe(feeBefore);
    expect(await relayerTxs()).toBe(before);
    expect(await chain.authorizationState(from, chain.nonceFor('transfer', 'tr_batch_2'))).toBe(false);
  });
});
