/**
 * The per-payment queue of one process: the settles, reconciles and deposit decisions of one
 * payment run one at a time here, so a double submit waits for and reads the first outcome.
 * Across processes the compare-and-set state changes and the attempt ledger decide.
 */
export class PaymentQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** Runs `fn` after everything queued for `key` (whatever its outcome). */
  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(fn, fn);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Something of `key` is queued or running in this process. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }

  /** Everything queued now (for a graceful close). */
  inFlight(): Promise<unknown>[] {
    return [...this.tails.values()];
  }
}
