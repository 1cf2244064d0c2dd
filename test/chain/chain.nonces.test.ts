import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import { tempDir } from './helpers.js';

// The relayer's nonces against a real anvil: a transaction the node loses must not leave
// every later relayer transaction queued behind the gap.
describe('ChainService: relayer nonces after a lost transaction', () => {
  let chain: ChainService;
  let cleanup: () => Promise<void>;
  const to = '0x00000000000000000000000000000000000b0b00' as Address;
  const rpc = (method: string, params: unknown[] = []) => chain.publicClient.request({ method: method as never, params: params as never });
  const txNonce = async (hash: Hex) => (await chain.publicClient.getTransaction({ hash })).nonce;

  beforeAll(async () => {
    const t = await tempDir('chain-nonces-');
    cleanup = t.cleanup;
    chain = await createChain({ dataDir: t.dir, confirmTimeoutMs: 15_000 });
    expect((await chain.faucet(chain.custodialAddress(1), 100_000_000n, { nativeAmount: 0n })).ok).toBe(true);
  });
  afterEach(async () => {
    await rpc('evm_setAutomine', [true]).catch(() => {});
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  it('a relayer transaction dropped from the pool: the next custodial transfer reuses its nonce and is mined', async () => {
    await rpc('evm_setAutomine', [false]);
    const first = await chain.custodialTransfer({ fromIndex: 1, to, value: 1_000_000n, nonce: chain.nonceFor('t', 'dropped-1') });
    if (!first.ok) throw new Error(first.message);
    const lostNonce = await txNonce(first.txHash);
    await rpc('anvil_dropTransaction', [first.txHash]);

    const second = await chain.custodialTransfer({ fromIndex: 1, to, value: 2_000_000n, nonce: chain.nonceFor('t', 'dropped-2') });
    if (!second.ok) throw new Error(second.message);
    // It fills the gap instead of queueing behind it.
    expect(await txNonce(second.txHash)).toBe(lostNonce);
    await rpc('evm_mine');
    await rpc('evm_setAutomine', [true]);

    expect((await chain.waitForReceipt(second.txHash)).status).toBe('success');
    expect(await chain.balanceOf(to)).toBe(2_000_000n);
    // The dropped one never happened; its authorization is still unused.
    expect(await chain.authorizationState(chain.custodialAddress(1), chain.nonceFor('t', 'dropped-1'))).toBe(false);

    // And the relayer keeps working normally afterwards.
    const third = await chain.custodialTransferAndWait({ fromIndex: 1, to, value: 3_000_000n, nonce: chain.nonceFor('t', 'dropped-3') });
    expect(third.ok && third.receipt.status).toBe('success');
    expect(await chain.balanceOf(to)).toBe(5_000_000n);
  });

  it('the node also loses the transactions queued behind the dropped one: later sends fill every lost nonce', async () => {
    await rpc('evm_setAutomine', [false]);
    const a = await chain.custodialTransfer({ fromIndex: 1, to, value: 1n, nonce: chain.nonceFor('t', 'queue-a') });
    const b = await chain.custodialTransfer({ fromIndex: 1, to, value: 10n, nonce: chain.nonceFor('t', 'queue-b') });
    if (!a.ok || !b.ok) throw new Error('send failed');
    const nonceA = await txNonce(a.txHash);
    expect(await txNonce(b.txHash)).toBe(nonceA + 1);
    // anvil drops `a` and, with it, `b`, which depended on it.
    await rpc('anvil_dropTransaction', [a.txHash]);

    const c = await chain.custodialTransfer({ fromIndex: 1, to, value: 100n, nonce: chain.nonceFor('t', 'queue-c') });
    const d = await chain.custodialTransfer({ fromIndex: 1, to, value: 1_000n, nonce: chain.nonceFor('t', 'queue-d') });
    if (!c.ok || !d.ok) throw new Error('send failed');
    expect([await txNonce(c.txHash), await txNonce(d.txHash)]).toEqual([nonceA, nonceA + 1]);
    await rpc('evm_mine');
    await rpc('evm_setAutomine', [true]);

    expect((await chain.waitForReceipt(c.txHash)).status).toBe('success');
    expect((await chain.waitForReceipt(d.txHash)).status).toBe('success');
    expect(await chain.balanceOf(to)).toBe(5_000_000n + 1_100n);
  });
});
