/**
 * Pending actions: a money-moving request held until its owner confirms it (Telegram, chat,
 * `POST /api/agent/settle` with `confirm:false`). The agent decides what a pending action holds
 * and how it runs; this module keeps the rows and moves their status, by compare-and-set only:
 * pending -> executing -> done, pending -> cancelled, pending -> expired.
 */
import { defineTable, type Store } from '../store/index.js';
import { inMode } from '../lib/livemode.js';

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
  /** false when asked through a test key (docs/test-mode.md); older rows have none and are live. */
  livemode?: boolean;
  /** SHA-256 of the call as a caller named it (MCP): a retried identical call answers this row (Agent.callTool). */
  asked?: string;
}

export const PendingActions = defineTable<PendingActionRow>({
  name: 'pending_actions',
  indexes: ['accountId', 'status'],
});

export interface PendingActionsOptions {
  /** The mode of the key that asked (a test key's actions are test-mode objects); no key: live. */
  livemodeOfKey?: (keyId: string) => Promise<boolean>;
}

/** The rows of pending actions, typed by the caller's own call and outcome shapes. */
export class PendingActionsStore<R extends PendingActionRow = PendingActionRow> {
  constructor(
    private readonly store: Store,
    private readonly opts: PendingActionsOptions = {},
  ) {}

  async insert(row: R): Promise<R> {
    const livemode = row.livemode ?? (row.keyId && this.opts.livemodeOfKey ? await this.opts.livemodeOfKey(row.keyId) : true);
    return (await this.store.write(PendingActions, (t) => t.insert({ ...row, livemode }))) as R;
  }

  /** The account's actions in one mode, newest first (`GET /api/agent/actions`). */
  async list(accountId: string, livemode: boolean, opts: { limit: number; after?: string }): Promise<R[]> {
    return (await this.store.table(PendingActions).findMany({ accountId, livemode }, { order: 'desc', limit: opts.limit, ...(opts.after ? { after: opts.after } : {}) })) as R[];
  }

  /** The account's action in this mode, or undefined (another account's or mode's action does not exist for it). */
  async getInMode(accountId: string, id: string, livemode: boolean): Promise<R | undefined> {
    const row = await this.get(id);
    return row && row.accountId === accountId && inMode(row, livemode) ? row : undefined;
  }

  /** The account's newest action still `pending` (not expired at `now`) that was asked through `channel`. */
  latestPending(accountId: string, channel: string, now: Date): Promise<R | undefined> {
    return this.newestWaiting(accountId, now, (r) => r.channel === channel);
  }

  /** The account's newest action still `pending` (not expired) asked through `channel` by `keyId` as `asked`. */
  pendingAsked(accountId: string, channel: string, keyId: string | undefined, asked: string, now: Date): Promise<R | undefined> {
    return this.newestWaiting(accountId, now, (r) => r.channel === channel && r.keyId === keyId && r.asked === asked);
  }

  /** Among the account's 50 newest `pending` rows, the newest not expired at `now` that `match`es. */
  private async newestWaiting(accountId: string, now: Date, match: (r: R) => boolean): Promise<R | undefined> {
    const rows = (await this.store.table(PendingActions).findMany({ accountId, status: 'pending' }, { order: 'desc', limit: 50 })) as R[];
    return rows.find((r) => match(r) && Date.parse(r.expiresAt) > now.getTime());
  }

  async get(id: string): Promise<R | undefined> {
    return (await this.store.table(PendingActions).get(id)) as R | undefined;
  }

  /** Applies `patch` only while the row is in `from`; undefined when it was not (someone else moved it). */
  async move(id: string, from: PendingStatus, patch: Partial<Omit<R, 'id'>>): Promise<R | undefined> {
    return (await this.store.write(PendingActions, (t) => t.update(id, patch as Partial<PendingActionRow>, { status: from }))) as R | undefined;
  }

  /**
   * `executing -> pending` again, for a confirm whose action wrote, held and sent nothing (the
   * database failed at a read first): the confirm sent again carries it out. Only `claim` itself
   * is given back (its executor and time must still be the row's): a later claim, another
   * confirm's, is never undone. Undefined when the row is no longer that claim; throws when this
   * write fails too (the agent keeps the claim and gives it back later, src/agent/parked-claims.ts).
   */
  async unclaim(claim: Pick<R, 'id' | 'executor' | 'updatedAt'>, now: Date): Promise<R | undefined> {
    const patch = { status: 'pending', executor: undefined, confirmedVia: undefined, confirmedAt: undefined, updatedAt: now.toISOString() };
    const expect = { status: 'executing', updatedAt: claim.updatedAt, ...(claim.executor ? { executor: claim.executor } : {}) };
    return (await this.store.write(PendingActions, (t) => t.update(claim.id, patch as Partial<PendingActionRow>, expect as Partial<PendingActionRow>))) as R | undefined;
  }

  /** Every action some instance is carrying out (or was, when it stopped). */
  async executing(): Promise<R[]> {
    return (await this.store.table(PendingActions).findMany({ status: 'executing' })) as R[];
  }
}
