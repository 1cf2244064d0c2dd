/**
 * Whether a durable write (or a broadcast) began while a piece of work ran (docs/api-decisions.md,
 * "Agent turns when the database fails"): the agent's answer to a store error in a money-moving
 * action depends on it. Before the action's first write, nothing of it can be recorded or sent
 * and the store's 503 "retry shortly" is true; from it on, the outcome is unknown (202).
 *
 * The store calls `noteWrite()` as it begins a transaction (or an autocommit write), the relayer
 * as it begins a send. The watch counts every write begun in this process while its work runs,
 * not only its own: with other work writing meanwhile it errs towards 202 (outcome unknown, the
 * answer that is never false) and is exact when the work runs alone. A transaction that records
 * no action (a cache channel's ping, `TransactionOptions.recordsNoAction`) is not counted. It costs one increment per
 * write. Scoping it to the work's own writes (AsyncLocalStorage) turned on V8's promise hooks for
 * each agent money call on Node 20 and cost a turn measurably more CPU (docs/performance.md,
 * "Quiet-machine check of the merged twelfth round").
 */
let begun = 0;

/** A store write or a broadcast is beginning. */
export function noteWrite(): void {
  begun++;
}

export class WriteWatch {
  private start: number | undefined;

  /** Whether a durable write (or a broadcast) began, here or anywhere in the process, while `run`'s work ran. */
  get wrote(): boolean {
    return this.start !== undefined && begun !== this.start;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.start ??= begun;
    return fn();
  }
}
