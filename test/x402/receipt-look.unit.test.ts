import { describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import type { ReceiptOutcome } from '../../src/chain/chain.js';
import { minedOnChain } from '../../src/x402/facilitator.js';

// A joined x402 settle (another instance's attempt, or this instance's earlier one) reads the
// attempt's transaction receipt to answer the same payload again. Its look was bounded at 1 ms,
// shorter than the node's answer: a mined transaction read as not mined, and the payer was told
// `settlement_pending` again (seen in checkout-fence.pg on a loaded machine).

/** A node that answers a receipt read after `latencyMs`; the caller's bound cuts it short. */
function node(latencyMs: number, status: ReceiptOutcome['status']) {
  return {
    waitForReceipt: (_: Hex, timeoutMs?: number) =>
      new Promise<ReceiptOutcome>((resolve) => {
        const bound = timeoutMs ?? Infinity;
        if (bound < latencyMs) setTimeout(() => resolve({ status: 'timeout' }), bound);
        else setTimeout(() => resolve({ status } as ReceiptOutcome), latencyMs);
      }),
  };
}

const hash = `0x${'ab'.repeat(32)}` as Hex;

describe('x402 joined settle: the receipt look', () => {
  it('a mined transaction is read as mined when the node takes a few milliseconds to answer', async () => {
    expect(await minedOnChain(node(5, 'success'), hash)).toBe(true);
    expect(await minedOnChain(node(40, 'success'), hash)).toBe(true);
  });

  it('a reverted or unknown transaction is not mined', async () => {
    expect(await minedOnChain(node(5, 'reverted'), hash)).toBe(false);
    expect(await minedOnChain(node(5, 'timeout'), hash)).toBe(false);
  });
});
