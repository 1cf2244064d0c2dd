/**
 * h11truth, point 4: a relay-journal write that reports a store error may still have committed
 * (a commit cut off after the database applied it). The sender then releases the relayer nonce
 * (relayer-sender.ts) although a journaled transaction sits at it, which the sweep may broadcast.
 * Analysis in docs/settlement.md ("A journal write that failed, yet committed"): the allocator asks
 * the node before every hand-out and the journal keeps one row per nonce, so whichever goes first,
 * the journaled transaction and a new one never both move money, and each move settles once.
 * Real anvil; the journal is the store's, with one write that commits and then throws as the pool does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits, type Address, type Hex } from 'viem';
import { createChain } from '../../src/chain/boot.js';
import type { ChainService } from '../../src/chain/chain.js';
import type { ChainServiceImpl } from '../../src/chain/chain-service.js';
import { storeRelayJournal, type RelayJournal } from '../../src/chain/relay-journal.js';
import { LowdbStore } from '../../src/store/index.js';
import { moveOnce } from '../../src/wallet/custodial-move.js';
import { tempDir } from './helpers.js';

describe('relay journal write that committed, then reported a store error', () => {
  let chain: ChainService;
  let journal: RelayJournal;
  let cleanup: () => Promise<void>;
  let cutNext = false;

  beforeAll(async () => {
    const t = await tempDir('chain-journal-cut-');
    cleanup = t.cleanup;
    const inner = storeRelayJournal(await LowdbStore.open(t.dir));
    journal = {
      ...inner,
      async record(entry, also) {
        const wrote = await inner.record(entry, also);
        if (!cutNext) return wrote;
        cutNext = false;
        throw new Error('Connection terminated unexpectedly'); // after the commit: the entry is there
      },
    };
    chain = await createChain({ dataDir: t.dir, journal });
  });
  afterAll(async () => {
    await chain?.close();
    await cleanup?.();
  });

  const relayer = () => chain.relayerAddress;
  const nonceOf = async (hash: Hex) => (await chain.publicClient.getTransaction({ hash })).nonce;
  const to = (n: number) => `0x00000000000000000000000000000000000c${n.toString().padStart(4, '0')}` as Address;

  /** Funded first: the faucet's own relayer transactions must not come between the two moves. */
  const fund = async (...indexes: number[]) => {
    for (const i of indexes) expect((await chain.faucet(chain.custodialAddress(i), parseUnits('5', 6))).ok).toBe(true);
  };
  const plainMove = (index: number, id: string) => moveOnce(chain, { fromIndex: index, to: to(index), value: 1_000_000n, kind: 'transfer', id });

  async function cutMove(index: number, id: string) {
    const req = { fromIndex: index, to: to(index), value: 1_000_000n, kind: 'transfer', id };
    const entriesBefore = new Set((await journal.list(chain.chainId, relayer())).map((e) => e.hash));
    cutNext = true;
    expect(await moveOnce(chain, req)).toMatchObject({ status: 'pending' });
    const entry = (await journal.list(chain.chainId, relayer())).find((e) => !entriesBefore.has(e.hash))!;
    expect(entry).toBeDefined(); // journaled although the write reported an error
    return { req, entry };
  }

  it('the sweep broadcasts the journaled one first: the next send takes the next nonce; each settles once', { timeout: 60_000 }, async () => {
    await fund(11, 12);
    const a = await cutMove(11, 'tr_cut_a');
    expect(await chain.balanceOf(to(11))).toBe(0n);
    expect((await (chain as ChainServiceImpl).sweepJournal(Date.now() + 60_000)).resent).toBe(1);
    const b = await plainMove(12, 'tr_cut_b');
    expect(b.status).toBe('settled');
    // The released nonce was not handed out again: the node already counted the journaled transaction.
    expect(await nonceOf(b.status === 'settled' ? b.txHash : '0x')).toBe(a.entry.nonce + 1);
    expect(await moveOnce(chain, a.req)).toMatchObject({ status: 'settled' });
    expect(await chain.balanceOf(to(11))).toBe(1_000_000n);
    expect(await chain.balanceOf(to(12))).toBe(1_000_000n);
  });

  it('a new send takes the released nonce first: it replaces the journaled one, which never goes out; each settles once', { timeout: 60_000 }, async () => {
    await fund(13, 14);
    const a = await cutMove(13, 'tr_cut_c');
    const b = await plainMove(14, 'tr_cut_d');
    expect(b.status).toBe('settled');
    expect(await nonceOf(b.status === 'settled' ? b.txHash : '0x')).toBe(a.entry.nonce);
    // One row per relayer nonce: the new transaction's entry replaced the unsent one.
    const atNonce = (await journal.list(chain.chainId, relayer())).filter((e) => e.nonce === a.entry.nonce);
    expect(atNonce.map((e) => e.hash)).toEqual([b.status === 'settled' ? b.txHash : '0x']);
    expect((await (chain as ChainServiceImpl).sweepJournal(Date.now() + 60_000)).resent).toBe(0);
    expect(await chain.balanceOf(to(13))).toBe(0n);
    // The first move, called again (its reconcile), goes out under a nonce of its own, once.
    expect(await moveOnce(chain, a.req)).toMatchObject({ status: 'settled' });
    expect(await chain.balanceOf(to(13))).toBe(1_000_000n);
    expect(await chain.balanceOf(to(14))).toBe(1_000_000n);
  });
});
