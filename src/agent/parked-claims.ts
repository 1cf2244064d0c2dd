/**
 * Confirms this process claimed (`pending -> executing`) whose action then met a store error
 * before its first write, so nothing of it was recorded, held or sent (policy-hook.ts
 * `runGoverned` throws the store error only then), and whose write giving the claim back
 * (`executing -> pending`) failed too (docs/api-decisions.md, "A confirm stuck executing").
 *
 * Only this process knows that nothing was written (the write watch is its own count), so it keeps
 * the claim here and gives it back at the next chance: the person's next confirm of that action
 * reaching this instance (which then carries it out), or the per-instance background pass. The
 * give-back is a compare-and-set on the claim's own executor and time, so it never undoes a later
 * claim (another confirm's, after a give-back that did commit although its answer was lost) or a
 * restart sweep's `done`: an action whose money may have moved is never run twice.
 */
import type { PendingActionsStore } from '../pending-actions/pending-actions.js';
import type { PendingAction } from './pending-tool-call.js';

export class ParkedClaims {
  private readonly claims = new Map<string, PendingAction>();

  constructor(
    private readonly actions: PendingActionsStore<PendingAction>,
    private readonly now: () => Date,
  ) {}

  get size(): number {
    return this.claims.size;
  }

  /** Gives `claim` back now, or keeps it to give back later when the store fails again. */
  async release(claim: PendingAction): Promise<void> {
    await this.giveBack(claim).catch(() => void this.claims.set(claim.id, claim));
  }

  /**
   * The action `row` after giving its parked claim back (pending again, or as whoever moved it
   * left it); `row` itself when this process holds no parked claim of it. Throws the store's error
   * when it still fails (the claim stays parked).
   */
  async restored(row: PendingAction): Promise<PendingAction> {
    const claim = this.claims.get(row.id);
    if (!claim || row.status !== 'executing') return row;
    return (await this.giveBack(claim)) ?? (await this.actions.get(row.id)) ?? row;
  }

  /** Every parked claim given back that the store now takes; how many are left. */
  async retryAll(): Promise<number> {
    for (const claim of [...this.claims.values()]) await this.giveBack(claim).catch(() => undefined);
    return this.claims.size;
  }

  private async giveBack(claim: PendingAction): Promise<PendingAction | undefined> {
    const row = await this.actions.unclaim(claim, this.now());
    // Given back, or no longer this claim (nothing of ours left to give back): forgotten either way.
    this.claims.delete(claim.id);
    return row;
  }
}
