/**
 * One receipt watcher for every transaction the service waits on.
 *
 * viem's `waitForTransactionReceipt` polls per transaction: with n settlements in flight each
 * new block costs n `eth_getTransactionReceipt` calls, and on the embedded chain (one block per
 * transaction) that is n² calls, so settlements crawl as load rises. Here one loop follows the
 * chain head and reads each new block's receipts once (`eth_getBlockReceipts`, falling back to
 * per-hash reads where a node lacks it), resolving every waiter whose transaction is in it.
 */
import type { Hex } from 'viem';

export interface ReceiptSummary {
  status: 'success' | 'reverted';
  blockNumber: bigint;
  gasUsed: bigint;
  /** The token authorizations it used (relay-batches.ts `usedAuthorizations`). */
  used?: readonly string[];
}

export interface ReceiptSource {
  blockNumber(): Promise<bigint>;
  /**
   * Receipts of one block; `null` when the node does not have that block (yet), e.g. its head
   * moved before the block's receipts were stored; undefined when it has no eth_getBlockReceipts.
   */
  blockReceipts(block: bigint): Promise<Array<ReceiptSummary & { transactionHash: Hex }> | null | undefined>;
  /** One receipt, or undefined when the transaction is not mined (yet). */
  receipt(hash: Hex): Promise<ReceiptSummary | undefined>;
}

interface Waiter {
  resolve(r: ReceiptSummary | undefined): void;
  timer: NodeJS.Timeout;
}

/** Read again one by one, as a safety net, the transactions still waited for after this many polls. */
const RECHECK_POLLS = 50;

export class ReceiptWatcher {
  private readonly waiters = new Map<string, Waiter[]>();
  private lastBlock: bigint | undefined;
  private loop: Promise<void> | undefined;
  private blockReceiptsMissing = false;
  private closed = false;
  /** When each waited-for hash was last read on its own. */
  private readonly checked = new Map<string, number>();
  /** A block the node named but could not return yet, and how many polls in a row. */
  private notStored: { block: bigint; polls: number } | undefined;

  constructor(
    private readonly source: ReceiptSource,
    private readonly pollMs: number,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** The receipt, or undefined when it did not arrive within `timeoutMs`. Never throws. */
  wait(hash: Hex, timeoutMs: number): Promise<ReceiptSummary | undefined> {
    const key = hash.toLowerCase();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve,
        timer: setTimeout(() => this.settle(key, undefined, waiter), timeoutMs),
      };
      const list = this.waiters.get(key);
      if (list) {
        // Joining a hash already waited for (the members of one batch transaction): its first
        // waiter's direct read and the block scan since cover it, and a receipt resolves every
        // waiter of the hash. A read per member formatted the batch's whole receipt (two logs per
        // member) once per member: about 0.3-0.4 ms each in a batch of 64 (docs/performance.md,
        // issue 23 ninth round).
        list.push(waiter);
        return;
      }
      this.waiters.set(key, [waiter]);
      this.checked.set(key, Date.now());
      this.ensureLoop();
      // Registered first, then asked directly: a block the loop read before we registered was
      // mined before this read, so one of the two sees the transaction.
      this.source.receipt(hash).then(
        (r) => r && this.settle(key, r),
        () => undefined,
      );
    });
  }

  close(): void {
    this.closed = true;
    for (const [key] of this.waiters) this.settle(key, undefined);
  }

  /** Resolves one waiter (a timeout) or all waiters of `key` (a receipt). */
  private settle(key: string, r: ReceiptSummary | undefined, only?: Waiter): void {
    const list = this.waiters.get(key);
    if (!list) return;
    const done = only ? list.filter((w) => w === only) : list;
    const rest = only ? list.filter((w) => w !== only) : [];
    if (rest.length > 0) this.waiters.set(key, rest);
    else {
      this.waiters.delete(key);
      this.checked.delete(key);
    }
    for (const w of done) {
      clearTimeout(w.timer);
      w.resolve(r);
    }
  }

  private ensureLoop(): void {
    if (this.loop || this.closed) return;
    this.loop = this.run().finally(() => {
      this.loop = undefined;
      if (this.waiters.size > 0 && !this.closed) this.ensureLoop();
    });
  }

  private async run(): Promise<void> {
    while (this.waiters.size > 0 && !this.closed) {
      try {
        const head = await this.source.blockNumber();
        // First look: start at the head (older blocks were covered by the direct reads).
        let from = this.lastBlock === undefined ? head : this.lastBlock + 1n;
        // Far behind (a long pause): the direct reads below cover what is skipped.
        if (head - from > 256n) from = head - 256n;
        let behind = false;
        for (let b = from; b <= head && this.waiters.size > 0; b++) {
          // Not stored yet although the head names it: read it again next poll, never skip it.
          if (!(await this.readBlock(b))) {
            behind = true;
            if (this.lastBlock === undefined) this.lastBlock = b - 1n;
            break;
          }
          this.lastBlock = b;
        }
        if (!behind && (this.lastBlock === undefined || this.lastBlock < head)) this.lastBlock = head;
        await this.recheck();
      } catch (err) {
        this.onError(err);
      }
      if (this.waiters.size === 0 || this.closed) break;
      await new Promise((r) => setTimeout(r, this.pollMs));
    }
  }

  /**
   * A safety net under the block scan: a transaction still waited for after RECHECK_POLLS polls
   * is read on its own, once per RECHECK_POLLS polls, so a block the scan could not see costs a
   * short delay instead of the whole timeout.
   */
  private async recheck(): Promise<void> {
    const due = Date.now() - this.pollMs * RECHECK_POLLS;
    const stale = [...this.checked].filter(([, at]) => at <= due).map(([key]) => key);
    await Promise.all(
      stale.map(async (key) => {
        this.checked.set(key, Date.now());
        const r = await this.source.receipt(key as Hex).catch(() => undefined);
        if (r) this.settle(key, r);
      }),
    );
  }

  /** False when the node does not have the block yet (read it again later). */
  private async readBlock(block: bigint): Promise<boolean> {
    if (!this.blockReceiptsMissing) {
      const receipts = await this.source.blockReceipts(block);
      if (receipts === null) {
        const polls = this.notStored?.block === block ? this.notStored.polls + 1 : 1;
        this.notStored = { block, polls };
        // A block the node keeps naming but never returns is read per hash, this block only
        // (below); the next block is asked for whole again.
        if (polls < RECHECK_POLLS) return false;
      }
      if (receipts) {
        for (const r of receipts) {
          const key = r.transactionHash.toLowerCase();
          if (this.waiters.has(key)) {
            this.settle(key, { status: r.status, blockNumber: r.blockNumber, gasUsed: r.gasUsed, ...(r.used ? { used: r.used } : {}) });
          }
        }
        return true;
      }
      // Only a node without eth_getBlockReceipts (undefined) is read per hash from now on.
      if (receipts === undefined) this.blockReceiptsMissing = true;
    }
    // No eth_getBlockReceipts: ask for each waiting transaction once per new block.
    await Promise.all(
      [...this.waiters.keys()].map(async (key) => {
        const r = await this.source.receipt(key as Hex).catch(() => undefined);
        if (r) this.settle(key, r);
      }),
    );
    return true;
  }
}
