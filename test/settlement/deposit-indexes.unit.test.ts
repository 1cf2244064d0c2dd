import { describe, expect, it, vi } from 'vitest';
import type { Address } from 'viem';
import { LowdbStore } from '../../src/store/index.js';
import { DepositIndexCounter, DepositIndexes } from '../../src/settlement/deposit-indexes.js';

// Issue 23, point 4: a first checkout read takes a deposit index reserved ahead (one counter
// write per block, the addresses derived in the background), never one twice across instances.
describe('DepositIndexes', () => {
  const addressOf = (derived: number[]) => (i: number) => {
    derived.push(i);
    return `0x${i.toString(16).padStart(40, '0')}` as Address;
  };

  it('one counter write per block; the block is derived ahead of the reads that take it', async () => {
    const store = LowdbStore.inMemory();
    const derived: number[] = [];
    const indexes = new DepositIndexes(store, addressOf(derived), async () => 0, 8);
    const first = await indexes.next();
    expect(first).toEqual({ index: 1, address: `0x${'1'.padStart(40, '0')}` });
    expect((await store.table(DepositIndexCounter).get('deposit-index'))?.last).toBe(8);
    // The whole block is derived in the background, beyond the one index taken (waited for, not timed).
    await vi.waitFor(() => expect(new Set(derived)).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8])), { timeout: 5_000, interval: 5 });
    const taken = [first.index];
    for (let i = 0; i < 4; i++) taken.push((await indexes.next()).index);
    expect(taken).toEqual([1, 2, 3, 4, 5]);
    // More than half the block used: the next block is reserved ahead, still with one write.
    await vi.waitFor(async () => expect((await store.table(DepositIndexCounter).get('deposit-index'))?.last).toBe(16), { timeout: 5_000, interval: 5 });
  });

  it('two instances on one store never give out the same index, even all at once', async () => {
    const store = LowdbStore.inMemory();
    const a = new DepositIndexes(store, addressOf([]), async () => 0, 4);
    const b = new DepositIndexes(store, addressOf([]), async () => 0, 4);
    const all = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).next()));
    const seen = all.map((x) => x.index);
    expect(new Set(seen).size).toBe(40);
  });

  it('a store from before the counter starts after the deposits already given out', async () => {
    const store = LowdbStore.inMemory();
    const indexes = new DepositIndexes(store, addressOf([]), async () => 5, 4);
    expect((await indexes.next()).index).toBe(6);
  });
});
