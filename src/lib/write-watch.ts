/**
 * Whether a piece of work began a durable write (docs/api-decisions.md, "Agent turns when the
 * database fails"): the agent's answer to a store error in a money-moving action depends on it.
 * Before the action's first write (or broadcast), nothing of it can be recorded or sent and the
 * store's 503 "retry shortly" is true; from it on, the outcome is unknown (202).
 *
 * The store calls `noteWrite()` as it begins a transaction (or an autocommit write), the relayer
 * as it begins a send; `WriteWatch.run` scopes it with AsyncLocalStorage, so only the writes of
 * the work it runs (and of anything that work awaits) count, whatever runs beside it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope {
  wrote: boolean;
  readonly parent: Scope | undefined;
}

const scopes = new AsyncLocalStorage<Scope>();
/**
 * Watches running now. On Node 20 an AsyncLocalStorage in use turns on promise hooks for the
 * whole process (a cost on every promise): it is disabled whenever no watch runs, so settles and
 * everything else pay nothing outside the agent's money-moving calls.
 */
let running = 0;

/** A store write or a broadcast is beginning: every watch around the current work sees it. */
export function noteWrite(): void {
  for (let s = scopes.getStore(); s && !s.wrote; s = s.parent) s.wrote = true;
}

export class WriteWatch {
  private scope: Scope | undefined;

  /** Whether the work `run` ran began a durable write (or a broadcast), even one that failed. */
  get wrote(): boolean {
    return this.scope?.wrote === true;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    this.scope ??= { wrote: false, parent: scopes.getStore() };
    running++;
    try {
      return await scopes.run(this.scope, fn);
    } finally {
      if (--running === 0) scopes.disable();
    }
  }
}
