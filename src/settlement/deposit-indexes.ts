/**
 * Deposit indexes reserved ahead (issue 23, point 4). A session's first checkout read gives it
 * a deposit address; doing that from scratch cost a write of the one counter row every
 * allocation contends on (conflicts, retries) and an HD key derivation, both on the read's path.
 * Here the counter moves by a block at a time (one write per BLOCK sessions), and the block's
 * addresses are derived in the background right after, so a first read costs one insert of
 * the session's deposit row with an address already known.
 *
 * Indexes of a block not given out before the process ends are skipped, never reused: the
 * counter only moves forward, so two instances (or a restart) never hand out one index twice,
 * and the unique key on the deposit's index guards it all the same.
 */
import type { Address } from 'viem';
import { nowIso } from '../lib/ids.js';
import { defineTable, StoreConflictError, type Store } from '../store/index.js';

/** The last deposit index reserved (one row). */
interface IndexCounter {
  readonly id: string;
  last: number;
  updatedAt: string;
}
export const DepositIndexCounter = defineTable<IndexCounter>({ name: 'deposit_index_counter' });
const COUNTER_ID = 'deposit-index';
/** Indexes reserved per counter write. */
export const DEPOSIT_INDEX_BLOCK = 32;

export class DepositIndexes {
  private readonly free: number[] = [];
  private reserving: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    /** Derives (and caches) the address at an index: the chain's deposit keyring. */
    private readonly addressOf: (index: number) => Address,
    /** Deposits given out before the counter existed (a store from before it starts after them). */
    private readonly countDeposits: () => Promise<number>,
    private readonly block = DEPOSIT_INDEX_BLOCK,
  ) {}

  /** The next index to give out, with its address (derived ahead when the block was reserved). */
  async next(): Promise<{ index: number; address: Address }> {
    while (this.free.length === 0) await this.reserve();
    const index = this.free.shift()!;
    // Keep a block ahead: reserve the next one while half of this one is left.
    if (this.free.length < this.block / 2) void this.reserve().catch(() => undefined);
    return { index, address: this.addressOf(index) };
  }

  private reserve(): Promise<void> {
    this.reserving ??= this.reserveBlock().finally(() => {
      this.reserving = undefined;
    });
    return this.reserving;
  }

  private async reserveBlock(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const first = await this.store.transaction(async (tx) => {
          const counters = tx.table(DepositIndexCounter);
          const counter = await counters.get(COUNTER_ID);
          const from = (counter ? counter.last : await this.countDeposits()) + 1;
          const last = from + this.block - 1;
          if (counter) await counters.update(COUNTER_ID, { last, updatedAt: nowIso() });
          else await counters.insert({ id: COUNTER_ID, last, updatedAt: nowIso() });
          return from;
        });
        const indexes = Array.from({ length: this.block }, (_, i) => first + i);
        this.free.push(...indexes);
        void this.derive(indexes);
        return;
      } catch (e) {
        if (!(e instanceof StoreConflictError) || attempt >= 5) throw e;
      }
    }
  }

  /** Derives the block's addresses one per macrotask, so requests in between are not held up. */
  private async derive(indexes: number[]): Promise<void> {
    for (const i of indexes) {
      await new Promise((r) => setImmediate(r));
      this.addressOf(i);
    }
  }
}
