/**
 * The relay journal: every transaction the relayer signs is written durably to the store
 * before it is broadcast, and stays there until it is safely part of the chain.
 *
 * Why: the embedded anvil persists its state by periodic dumps. When the service and its
 * chain die together (power cut, OOM kill of the container), anvil comes back from a dump up
 * to a few seconds old, and transactions mined after it are gone although the store already
 * recorded them as settled (and webhooks went out). The signed raw transactions in the
 * journal are re-broadcast at start-up, in nonce order: the same bytes give the same nonce and
 * hash, and the EIP-3009 nonce inside each one means no authorization can move money twice.
 * On a real network the same sweep re-sends transactions the node's pool dropped.
 */
import type { Hex } from 'viem';
import { defineTable, putUnread, type Store, type Tx, type WriteTable } from '../store/index.js';

export interface JournalEntry {
  /** `<chainId>:<relayer>:<nonce>`: a reused nonce replaces the entry of the transaction it replaced. */
  readonly id: string;
  chainId: number;
  relayer: string;
  nonce: number;
  hash: Hex;
  /** The signed, serialized transaction, exactly as broadcast. */
  raw: Hex;
  createdAt: string;
  /** Set once a receipt was seen; the entry is kept a while after that (see `retentionMs`). */
  minedAt?: string;
  /**
   * The owned attempts whose authorizations the transaction carries (one; several for a batch):
   * re-broadcast later (start-up replay, a dropped one re-sent) only while each is still that
   * generation's and inside its window, or ended with this very transaction
   * (relay-journal-recovery.ts).
   */
  owners?: JournalOwner[];
}

/** An attempt (src/chain/owned-relay.ts, `settlement_attempts`) at the generation that signed a transaction. */
export interface JournalOwner {
  attempt: string;
  generation: number;
}

export const RelayJournalTable = defineTable<JournalEntry>({ name: 'relay_journal', indexes: ['relayer'] });

/** Where the chain layer keeps its journal; the store-backed one below, or a fake in tests. */
export interface RelayJournal {
  /**
   * Durable before it resolves: called before every broadcast. `also` runs in the same store
   * transaction (the caller's own record of the transaction); returns whether it ran.
   */
  record(entry: Omit<JournalEntry, 'id' | 'createdAt' | 'minedAt'>, also?: (tx: Tx) => Promise<void>): Promise<boolean>;
  /** The node refused the transaction: it will never be mined, do not re-send it. */
  forget(chainId: number, relayer: string, nonce: number, hash: Hex): Promise<void>;
  /** A receipt was seen for these hashes. */
  mined(ids: readonly string[], at: string): Promise<void>;
  /** Entries of this relayer, lowest nonce first. */
  list(chainId: number, relayer: string): Promise<JournalEntry[]>;
  remove(ids: readonly string[]): Promise<void>;
}

export function journalId(chainId: number, relayer: string, nonce: number): string {
  return `${chainId}:${relayer.toLowerCase()}:${nonce}`;
}

export function storeRelayJournal(store: Store): RelayJournal {
  return {
    async record(e, also) {
      const id = journalId(e.chainId, e.relayer, e.nonce);
      const row: JournalEntry = { ...e, relayer: e.relayer.toLowerCase(), id, createdAt: new Date().toISOString() };
      // A nonce handed out again (its first transaction was lost or refused) replaces the old
      // one, whole. Nobody reads the outcome: on PostgreSQL it rides with the COMMIT (with the
      // settle's hash record, also held), so the journal's commit is one round trip (issue 23,
      // thirteenth round; it was an insert-or-read, answered, then the COMMIT).
      const put = (t: WriteTable<JournalEntry>) => putUnread(t, row);
      if (!also) {
        await store.write(RelayJournalTable, put);
        return false;
      }
      // In the store's commit lane with the settles' own writes (src/store/pg/commit-groups.ts).
      await store.transaction(
        async (tx) => {
          await put(tx.table(RelayJournalTable));
          await also(tx);
        },
        { shareCommit: true },
      );
      return true;
    },
    async forget(chainId, relayer, nonce, hash) {
      const id = journalId(chainId, relayer, nonce);
      await store.write(RelayJournalTable, async (t) => {
        if ((await t.get(id))?.hash === hash) await t.remove(id);
      });
    },
    async mined(ids, at) {
      if (ids.length === 0) return;
      await store.write(RelayJournalTable, async (t) => {
        for (const id of ids) await t.update(id, { minedAt: at }, {});
      });
    },
    async list(chainId, relayer) {
      const rows = await store.table(RelayJournalTable).findMany({ relayer: relayer.toLowerCase() });
      return rows.filter((r) => r.chainId === chainId).sort((a, b) => a.nonce - b.nonce);
    },
    async remove(ids) {
      if (ids.length === 0) return;
      await store.write(RelayJournalTable, async (t) => {
        for (const id of ids) await t.remove(id);
      });
    },
  };
}
