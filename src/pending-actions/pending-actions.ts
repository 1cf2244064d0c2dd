/**
 * Pending actions: a money-moving request held until its owner confirms it (Telegram, chat,
 * `POST /api/agent/settle` with `confirm:false`). The agent decides what a pending action holds
 * and how it runs; this module keeps the rows and moves their status, by compare-and-set only:
 * pending -> executing -> done, pending -> cancelled, pending -> expired.
 */
import { defineTable, type Store } from '../store/index.js';

export type PendingStatus = 'pending' | 'executing' | 'done' | 'cancelled' | 'expired';

export interface PendingActionRow<Call = unknown, Outcome = unknown> {
  readonly id: string;
  accountId: string;
  channel: string;
  /** What runs on confirm, verbatim. */
  call: Call;
  description: string;
  /** Preview details (amounts, rate, fee, recipient) when the handler gave them. */
  details?: Record<string, unknown>;
  status: PendingStatus;
  requestId?: string;
  createdAt: string;
  expiresAt: string;
  updatedAt: string;
  outcome?: Outcome;
  /** The API key that asked (its spend policy applies on confirm). */
  keyId?: string;
  /** Held by a spend policy's approval threshold (the rule, as told): only the signed-in person confirms it. */
  approval?: string;
  /** The door it was confirmed through (chat, telegram, web, api) and when. */
  confirmedVia?: string;
  confirmedAt?: string;
  /** The instance executing it (status `executing`); another takes over only once it is gone. */
  executor?: string;
}

export const PendingActions = defineTable<PendingActionRow>({
  name: 'pending_actions',
  indexes: ['accountId', 'status'],
});

/** The rows of pending actions, typed by the caller's own call and outcome shapes. */
export class PendingActionsStore<R extends PendingActionRow = PendingActionRow> {
  constructor(private readonly store: Store) {}

  async insert(row: R): Promise<R> {
    return (await this.store.write(PendingActions, (t) => t.insert(row))) as R;
  }

  async get(id: string): Promise<R | undefined> {
    return (await this.store.table(PendingActions).get(id)) as R | undefined;
  }

  /** Applies `patch` only while the row is in `from`; undefined when it was not (someone else moved it). */
  async move(id: string, from: PendingStatus, patch: Partial<Omit<R, 'id'>>): Promise<R | undefined> {
    return (await this.store.write(PendingActions, (t) => t.update(id, patch as Partial<PendingActionRow>, { status: from }))) as R | undefined;
  }

  /** Every action some instance is carrying out (or was, when it stopped). */
  async executing(): Promise<R[]> {
    return (await this.store.table(PendingActions).findMany({ status: 'executing' })) as R[];
  }
}
