import { describe, expect, it } from 'vitest';
import type { Address, Hex } from 'viem';
import type { Logger } from '../../src/lib/logger.js';
import type { NodeClient } from '../../src/chain/node-reads.js';
import { journalId, type JournalEntry, type RelayJournal } from '../../src/chain/relay-journal.js';
import { RelayJournalRecovery, type JournalRecoveryContext } from '../../src/chain/relay-journal-recovery.js';

// Unit layer: the journal's replay and sweep over a faked node and an in-memory journal (no
// anvil). The split of chain-service.ts gave RelayJournalRecovery a narrow context; this is
// what that buys: the retention rules checked without a chain.
const RELAYER = '0x00000000000000000000000000000000000000aa' as Address;
const CHAIN_ID = 31337;
const quiet = { info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;

function hashOf(nonce: number): Hex {
  return `0x${nonce.toString(16).padStart(64, '0')}` as Hex;
}

function entry(nonce: number, createdAt: number): JournalEntry {
  return { id: journalId(CHAIN_ID, RELAYER, nonce), chainId: CHAIN_ID, relayer: RELAYER.toLowerCase(), nonce, hash: hashOf(nonce), raw: `0x0${nonce}` as Hex, createdAt: new Date(createdAt).toISOString() };
}

function memoryJournal(entries: JournalEntry[]): RelayJournal & { rows: Map<string, JournalEntry> } {
  const rows = new Map(entries.map((e) => [e.id, e]));
  return {
    rows,
    async record() {
      return false;
    },
    async forget() {},
    async mined() {},
    async list() {
      return [...rows.values()].sort((a, b) => a.nonce - b.nonce);
    },
    async remove(ids) {
      for (const id of ids) rows.delete(id);
    },
  };
}

/** A node whose relayer has `mined` nonces mined, `pending` counted with its pool, and knows `known` hashes. */
function fakeNode(state: { mined: number; pending: number; known: Set<Hex>; refuse?: Set<Hex> }) {
  const broadcast: Hex[] = [];
  const requests: string[] = [];
  const client = {
    async getTransactionCount({ blockTag }: { blockTag: 'latest' | 'pending' }) {
      return blockTag === 'latest' ? state.mined : state.pending;
    },
    async getTransaction({ hash }: { hash: Hex }) {
      if (!state.known.has(hash)) throw new Error('transaction not found');
      return { hash };
    },
    async request({ method, params }: { method: string; params: unknown[] }) {
      requests.push(`${method}(${params.join(',')})`);
      return null;
    },
    async sendRawTransaction({ serializedTransaction }: { serializedTransaction: Hex }) {
      const nonce = Number.parseInt(serializedTransaction.slice(3), 10);
      if (state.refuse?.has(hashOf(nonce))) throw new Error('insufficient funds for gas');
      broadcast.push(hashOf(nonce));
      state.known.add(hashOf(nonce));
      return hashOf(nonce);
    },
  };
  return { client: client as unknown as NodeClient, broadcast, requests };
}

function recovery(journal: RelayJournal, client: NodeClient, over: Partial<JournalRecoveryContext> = {}) {
  return new RelayJournalRecovery({
    log: quiet,
    embedded: false,
    chainId: CHAIN_ID,
    relayerAddress: RELAYER,
    publicClient: client,
    journal,
    retentionMs: 3_600_000,
    waitForReceipt: async () => ({ status: 'success', blockNumber: 1n, gasUsed: 21_000n }),
    ...over,
  });
}

describe('RelayJournalRecovery', () => {
  it('start-up replay: re-broadcasts what the node lost in nonce order, drops entries whose nonce another transaction took', async () => {
    const t = Date.now() - 60_000;
    const journal = memoryJournal([entry(3, t), entry(5, t), entry(6, t), entry(7, t)]);
    // Nonce 3 was taken by a transaction from outside (mined, ours unknown); 5 is known; 6 and 7 were lost.
    const node = fakeNode({ mined: 5, pending: 6, known: new Set([hashOf(5)]) });
    const out = await recovery(journal, node.client).recover();
    expect(out).toEqual({ resent: 2, dropped: 1 });
    expect(node.broadcast).toEqual([hashOf(6), hashOf(7)]);
    expect([...journal.rows.keys()]).toEqual([5, 6, 7].map((n) => journalId(CHAIN_ID, RELAYER, n)));
  });

  it('start-up replay stops at the first refusal: later nonces would wait behind it', async () => {
    const t = Date.now() - 60_000;
    const journal = memoryJournal([entry(1, t), entry(2, t)]);
    const node = fakeNode({ mined: 1, pending: 1, known: new Set(), refuse: new Set([hashOf(1)]) });
    expect(await recovery(journal, node.client).recover()).toEqual({ resent: 0, dropped: 0 });
    expect(node.broadcast).toEqual([]);
    expect(journal.rows.size).toBe(2);
  });

  it('owned entries: sent again only while the gate says their attempts are still theirs; otherwise the nonce gets a filler (start-up and sweep alike)', async () => {
    const t = Date.now() - 60_000;
    const owned = (n: number, attempt: string) => ({ ...entry(n, t), owners: [{ attempt, generation: 1 }] });
    const journal = memoryJournal([owned(1, 'kept'), owned(2, 'taken'), entry(3, t), owned(4, 'taken-later')]);
    const node = fakeNode({ mined: 1, pending: 1, known: new Set() });
    const taken = new Set(['taken']);
    const asked: string[] = [];
    const filled: number[] = [];
    const keeper = recovery(journal, node.client, {
      mayResend: async (e) => {
        asked.push(e.owners![0]!.attempt);
        return !taken.has(e.owners![0]!.attempt);
      },
      fillNonce: async (nonce) => {
        filled.push(nonce);
        return hashOf(100 + nonce);
      },
    });
    expect(await keeper.recover()).toEqual({ resent: 4, dropped: 0 });
    // 1 still its owner's, 3 carries no attempt, 4 not taken yet: the same bytes; 2 taken over: a filler.
    expect(node.broadcast).toEqual([hashOf(1), hashOf(3), hashOf(4)]);
    expect(filled).toEqual([2]);
    expect(asked).toEqual(['kept', 'taken', 'taken-later']);
    // The sweep's re-send of a dropped entry asks the same: 4 was taken over meanwhile and dropped by the pool.
    taken.add('taken-later');
    const sweeping = fakeNode({ mined: 3, pending: 3, known: new Set([hashOf(1), hashOf(2), hashOf(3)]) });
    const sweeper = recovery(journal, sweeping.client, { mayResend: async (e) => !taken.has(e.owners![0]!.attempt), fillNonce: async (n) => (filled.push(n), hashOf(100 + n)) });
    expect(await sweeper.sweep(Date.now())).toMatchObject({ resent: 1 });
    expect(sweeping.broadcast).toEqual([]);
    expect(filled).toEqual([2, 4]);
  });

  it('real network sweep: forgets mined entries after the retention and re-sends dropped ones', async () => {
    const now = Date.now();
    const journal = memoryJournal([entry(1, now - 2 * 3_600_000), entry(2, now - 60_000), entry(3, now - 60_000), entry(4, now - 1_000)]);
    // 1 and 2 are mined; 3 was dropped from the pool (pending count is 3); 4 is too young to count as dropped.
    const node = fakeNode({ mined: 3, pending: 3, known: new Set([hashOf(1), hashOf(2)]) });
    expect(await recovery(journal, node.client).sweep(now)).toEqual({ resent: 1, removed: 1 });
    expect(node.broadcast).toEqual([hashOf(3)]);
    expect([...journal.rows.keys()]).toEqual([2, 3, 4].map((n) => journalId(CHAIN_ID, RELAYER, n)));
  });

  it('embedded sweep: keeps every entry the start-up backup lacks (this run, or replayed at this start), however old', async () => {
    const before = Date.now() - 60_000;
    const journal = memoryJournal([entry(1, before), entry(2, before)]);
    // Nonce 1 is in the state anvil loaded; nonce 2 was lost and is replayed at this start.
    const state = { mined: 1, pending: 1, known: new Set([hashOf(1)]) };
    const node = fakeNode(state);
    const keeper = recovery(journal, node.client, { embedded: true });
    expect(await keeper.recover()).toEqual({ resent: 1, dropped: 0 });
    // A transaction of this run; then everything is mined and ten hours pass.
    journal.rows.set(journalId(CHAIN_ID, RELAYER, 3), entry(3, Date.now() + 1_000));
    state.known.add(hashOf(3));
    state.mined = state.pending = 4;
    const out = await keeper.sweep(Date.now() + 10 * 3_600_000);
    // Only 1 is in the start-up backup; a crash now would fall back to it and need 2 and 3.
    expect(out).toEqual({ resent: 0, removed: 1 });
    expect([...journal.rows.keys()]).toEqual([2, 3].map((n) => journalId(CHAIN_ID, RELAYER, n)));
  });

  it('embedded sweep: entries the start-up replay could not get out are not in the backup either, and stay once re-sent and mined', async () => {
    const before = Date.now() - 60_000;
    const journal = memoryJournal([entry(1, before), entry(2, before), entry(3, before)]);
    // Nonce 1 is in the state anvil loaded; 2 and 3 were lost, and the node refuses 2 for now.
    const state = { mined: 2, pending: 2, known: new Set([hashOf(1)]), refuse: new Set([hashOf(2)]) };
    const node = fakeNode(state);
    const keeper = recovery(journal, node.client, { embedded: true });
    expect(await keeper.recover()).toEqual({ resent: 0, dropped: 0 });
    // Later the sweep forgets 1 (in the backup) and re-sends 2 and 3 as dropped; they are mined.
    state.refuse.clear();
    expect(await keeper.sweep()).toEqual({ resent: 2, removed: 1 });
    state.mined = state.pending = 4;
    // A crash now falls back to the start-up backup, which has only 1: 2 and 3 stay.
    expect(await keeper.sweep()).toEqual({ resent: 0, removed: 0 });
    expect([...journal.rows.keys()]).toEqual([2, 3].map((n) => journalId(CHAIN_ID, RELAYER, n)));
  });

  it('embedded sweep: transactions the pool holds at the relayer\'s next nonce without counting them are taken out and re-sent in nonce order', async () => {
    const t = Date.now() - 5_000;
    const journal = memoryJournal([entry(5, t), entry(6, t), entry(7, t)]);
    // anvil's stuck state: 5, 6 and 7 are known (queued) but the pending nonce is still 5.
    const node = fakeNode({ mined: 5, pending: 5, known: new Set([hashOf(5), hashOf(6), hashOf(7)]) });
    const keeper = recovery(journal, node.client, { embedded: true });
    expect(await keeper.sweep()).toEqual({ resent: 3, removed: 0 });
    expect(node.requests).toEqual([`anvil_removePoolTransactions(${RELAYER})`]);
    expect(node.broadcast).toEqual([hashOf(5), hashOf(6), hashOf(7)]);
  });

  it('embedded sweep: the stuck re-send asks the gate too: an entry whose attempt was taken over gets a filler, not its bytes', async () => {
    const t = Date.now() - 5_000;
    const owned = (n: number, attempt: string) => ({ ...entry(n, t), owners: [{ attempt, generation: 1 }] });
    const journal = memoryJournal([owned(5, 'kept'), owned(6, 'taken'), entry(7, t)]);
    const node = fakeNode({ mined: 5, pending: 5, known: new Set([hashOf(5), hashOf(6), hashOf(7)]) });
    const filled: number[] = [];
    const keeper = recovery(journal, node.client, {
      embedded: true,
      mayResend: async (e) => e.owners![0]!.attempt !== 'taken',
      fillNonce: async (n) => (filled.push(n), hashOf(100 + n)),
    });
    expect(await keeper.sweep()).toEqual({ resent: 3, removed: 0 });
    expect(node.requests).toEqual([`anvil_removePoolTransactions(${RELAYER})`]);
    // 6 was taken over by another instance: its bytes would be a second transaction for that authorization.
    expect(node.broadcast).toEqual([hashOf(5), hashOf(7)]);
    expect(filled).toEqual([6]);
    // The gate's read failing takes nothing out of the pool.
    const failing = fakeNode({ mined: 5, pending: 5, known: new Set([hashOf(5), hashOf(6), hashOf(7)]) });
    const broken = recovery(journal, failing.client, { embedded: true, mayResend: async () => Promise.reject(new Error('store down')), fillNonce: async (n) => hashOf(100 + n) });
    await expect(broken.sweep()).rejects.toThrow('store down');
    expect(failing.requests).toEqual([]);
    expect(failing.broadcast).toEqual([]);
  });

  it('embedded sweep: a chain whose mining is paused (the pool counts them) and a real network are left alone', async () => {
    const t = Date.now() - 5_000;
    const paused = fakeNode({ mined: 5, pending: 8, known: new Set([hashOf(5), hashOf(6), hashOf(7)]) });
    await recovery(memoryJournal([entry(5, t), entry(6, t), entry(7, t)]), paused.client, { embedded: true }).sweep();
    expect(paused.requests).toEqual([]);
    expect(paused.broadcast).toEqual([]);
    const real = fakeNode({ mined: 5, pending: 5, known: new Set([hashOf(5), hashOf(6), hashOf(7)]) });
    await recovery(memoryJournal([entry(5, t), entry(6, t), entry(7, t)]), real.client).sweep();
    expect(real.requests).toEqual([]);
    expect(real.broadcast).toEqual([]);
  });

  it('no sweep after stop', async () => {
    const journal = memoryJournal([entry(1, Date.now() - 2 * 3_600_000)]);
    const node = fakeNode({ mined: 2, pending: 2, known: new Set([hashOf(1)]) });
    const keeper = recovery(journal, node.client);
    keeper.stop();
    expect(await keeper.sweep()).toEqual({ resent: 0, removed: 0 });
    expect(journal.rows.size).toBe(1);
  });
});
