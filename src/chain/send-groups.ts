/**
 * Group commit for relayer sends (issue 23, point 2): while one send is in flight, the
 * settlements that arrive are collected and go out together in the next transaction, so the
 * relayer's transactions per settlement fall as load rises, with no added wait at low load (a
 * send with nothing in flight leaves at once, alone).
 *
 * Knows nothing of the chain: `send` gets each group (one item: its own transaction; several:
 * one batch through the batch relay) and its one answer is every member's. Which member the
 * transaction actually carried is read from its receipt afterwards (relay.ts), never assumed.
 */
import { fail } from '../lib/results.js';
import { SubmitReason, type SubmitResult } from './chain-results.js';

/** At most this many authorizations per transaction (gas stays far under a block's limit). */
export const MAX_GROUP = 64;

export class SendGroups<T> {
  private readonly queue: { item: T; resolve: (r: SubmitResult) => void }[] = [];
  private draining = false;

  constructor(
    /** One answer for the whole group, or one per member (in order). */
    private readonly send: (group: readonly T[]) => Promise<SubmitResult | readonly SubmitResult[]>,
    private readonly max = MAX_GROUP,
  ) {}

  /** Sends `item` now when nothing is in flight, else with the others collected meanwhile. */
  submit(item: T): Promise<SubmitResult> {
    return new Promise((resolve) => {
      this.queue.push({ item, resolve });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const group = this.queue.splice(0, this.max);
        const r = await this.send(group.map((g) => g.item)).catch(
          (e: unknown): SubmitResult => ({ ...fail(SubmitReason.submitFailed, `could not submit the transaction: ${String(e)}`), sendOutcome: 'unknown' }),
        );
        group.forEach((g, i) => g.resolve(Array.isArray(r) ? r[i]! : (r as SubmitResult)));
      }
    } finally {
      this.draining = false;
    }
  }
}
