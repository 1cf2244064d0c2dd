import { describe, expect, it } from 'vitest';
import type { Hex } from 'viem';
import { ReceiptWatcher, type ReceiptSource, type ReceiptSummary } from '../../src/chain/receipts.js';

// Unit layer: the receipt watcher over a scripted node (no anvil).
const tx = `0x${'ab'.repeat(32)}` as Hex;
const mined: ReceiptSummary = { status: 'success', blockNumber: 2n, gasUsed: 50_000n };

/** A node whose head is block 1; block 2 is mined once `mine()` is called. */
function node(opts: { blockNotStoredYet?: number; blockReceiptsNeverList?: boolean }) {
  let head = 1n;
  let notStored = opts.blockNotStoredYet ?? 0;
  const source: ReceiptSource = {
    async blockNumber() {
      return head;
    },
    async blockReceipts(block) {
      if (block !== 2n) return [];
      // The head names block 2 before its receipts are readable (seen on anvil under load).
      if (notStored > 0) {
        notStored--;
        return null;
      }
      return opts.blockReceiptsNeverList ? [] : [{ ...mined, transactionHash: tx }];
    },
    async receipt(hash) {
      return head >= 2n && hash.toLowerCase() === tx ? mined : undefined;
    },
  };
  return { source, mine: () => (head = 2n) };
}

describe('ReceiptWatcher', () => {
  it('a block the head names before its receipts are stored is read again, not skipped', async () => {
    const { source, mine } = node({ blockNotStoredYet: 2 });
    const directReads: Hex[] = [];
    const counting: ReceiptSource = {
      ...source,
      receipt: async (h) => {
        directReads.push(h);
        // The direct read at registration happens before the block: not mined yet.
        return undefined;
      },
    };
    const watcher = new ReceiptWatcher(counting, 1);
    const waiting = watcher.wait(tx, 60_000);
    await new Promise((r) => setTimeout(r, 5));
    mine();
    // Without the re-read the scan passes block 2 while it is not stored and the wait ends
    // only at its timeout (60 s here, far beyond the test's own timeout).
    expect(await waiting).toEqual(mined);
    watcher.close();
  });

  it('a transaction the block scan never lists is found by reading it on its own', async () => {
    const { source, mine } = node({ blockReceiptsNeverList: true });
    const watcher = new ReceiptWatcher(source, 1);
    const waiting = watcher.wait(tx, 60_000);
    await new Promise((r) => setTimeout(r, 5));
    mine();
    expect(await waiting).toEqual(mined);
    watcher.close();
  });

  it('still answers undefined at the timeout when the transaction is never mined', async () => {
    const { source } = node({});
    const watcher = new ReceiptWatcher(source, 1);
    expect(await watcher.wait(tx, 100)).toBeUndefined();
    watcher.close();
  });
  it('a block never returned is read per hash for that block only; the next block is asked for whole again', async () => {
    let head = 1n;
    const tx3 = `0x${'cd'.repeat(32)}` as Hex;
    const wholeBlockAsks: bigint[] = [];
    const source: ReceiptSource = {
      async blockNumber() {
        return head;
      },
      async blockReceipts(block) {
        wholeBlockAsks.push(block);
        if (block === 2n) return null; // named by the head, never returned
        if (block === 3n) return [{ status: 'success', blockNumber: 3n, gasUsed: 1n, transactionHash: tx3 }];
        return [];
      },
      async receipt(hash) {
        // Per-hash reads find the block-2 transaction only (block 3's is found through its block).
        return head >= 2n && hash.toLowerCase() === tx ? mined : undefined;
      },
    };
    const watcher = new ReceiptWatcher(source, 1);
    const first = watcher.wait(tx, 60_000);
    await new Promise((r) => setTimeout(r, 5));
    head = 2n;
    expect(await first).toEqual(mined);
    const second = watcher.wait(tx3, 60_000);
    await new Promise((r) => setTimeout(r, 5));
    head = 3n;
    expect(await second).toMatchObject({ blockNumber: 3n });
    expect(wholeBlockAsks).toContain(3n);
    watcher.close();
  });

  it('the members of one batch waiting on its hash cost one direct read, and all get the receipt', async () => {
    const { source, mine } = node({});
    let directReads = 0;
    const counting: ReceiptSource = { ...source, receipt: (h) => (directReads++, source.receipt(h)) };
    const watcher = new ReceiptWatcher(counting, 1);
    const first = Array.from({ length: 32 }, () => watcher.wait(tx, 60_000));
    await new Promise((r) => setTimeout(r, 5));
    // Members joining after the first read answered "not mined": the block scan finds them.
    const later = Array.from({ length: 32 }, () => watcher.wait(tx.toUpperCase().replace('0X', '0x') as Hex, 60_000));
    mine();
    const all = await Promise.all([...first, ...later]);
    expect(all).toHaveLength(64);
    for (const r of all) expect(r).toEqual(mined);
    expect(directReads).toBe(1);
    watcher.close();
  });

  it('a member joining after the others timed out alone still waits, and a hash waited for anew is read again', async () => {
    const { source, mine } = node({});
    let directReads = 0;
    const counting: ReceiptSource = { ...source, receipt: (h) => (directReads++, source.receipt(h)) };
    const watcher = new ReceiptWatcher(counting, 1);
    const early = watcher.wait(tx, 20);
    const joined = watcher.wait(tx, 60_000);
    expect(await early).toBeUndefined();
    mine();
    expect(await joined).toEqual(mined);
    expect(directReads).toBe(1);
    // Nothing waits on the hash any more: a new wait is a new registration, read directly.
    expect(await watcher.wait(tx, 60_000)).toEqual(mined);
    expect(directReads).toBe(2);
    watcher.close();
  });
});
