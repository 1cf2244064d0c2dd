import { describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { RelayerNonces } from '../../src/chain/nonces.js';

// The bookkeeping behind the relayer's nonces, against a scripted node (chain.nonces.test.ts
// covers the same against anvil).
describe('RelayerNonces bookkeeping', () => {
  const quiet = { warn() {} };
  function fakeNode(pending: number, known: Set<string> = new Set()) {
    const node = { pending, known, asks: 0 };
    const source = {
      pendingNonce: async () => {
        node.asks++;
        return node.pending;
      },
      isKnown: async (h: Hex) => node.known.has(h),
    };
    return { node, source };
  }

  it('hands out distinct nonces to concurrent sends, asking the node once for the burst', async () => {
    const { node, source } = fakeNode(7);
    const nonces = new RelayerNonces(source, quiet);
    const got = await Promise.all(Array.from({ length: 5 }, () => nonces.take()));
    expect(got.sort((x, y) => x - y)).toEqual([7, 8, 9, 10, 11]);
    expect(node.asks).toBe(1);
  });

  it('gives a refused nonce back, and skips nonces still carrying live transactions after a gap', async () => {
    const { node, source } = fakeNode(0);
    const nonces = new RelayerNonces(source, quiet);
    const n0 = await nonces.take();
    nonces.sent(n0, '0xa0');
    node.known.add('0xa0');
    node.pending = 1;
    const n1 = await nonces.take();
    nonces.release(n1); // refused by the node: nothing at 1
    expect(await nonces.take()).toBe(1);
    nonces.sent(1, '0xa1');
    node.known.add('0xa1');
    node.pending = 2;
    expect(await nonces.take()).toBe(2);
    nonces.sent(2, '0xa2');
    node.known.add('0xa2');
    // The node loses the transaction at 1: its pending nonce falls back to 1, 2 waits behind it.
    node.known.delete('0xa1');
    node.pending = 1;
    expect(await nonces.take()).toBe(1); // the gap is filled
    // 2 still carries a live transaction: the next send goes after it, not over it.
    expect(await nonces.take()).toBe(3);
  });

  it('does not treat a send still on its way as lost', async () => {
    const { source } = fakeNode(4);
    const nonces = new RelayerNonces(source, quiet);
    const first = await nonces.take(); // 4, still sending: the node does not know it yet
    expect(first).toBe(4);
    expect(await nonces.take()).toBe(5);
  });
});
