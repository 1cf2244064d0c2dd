/**
 * Spend policies enforced in the core (docs/policies.md): the agent asks `admit` before it holds
 * or runs a call, and runs every governed call through `run`, which reserves the amount against
 * every cap before the money moves, commits it when the action went through, keeps it when the
 * outcome is not known and releases it when the action failed. Whatever door a call came from
 * (API, chat, Telegram, MCP), the same rules hold.
 */
import type { Logger } from 'pino';
import { rangePages, type ReadTable, type Store, type Tx } from '../store/index.js';
import { newId } from '../lib/ids.js';
import { isStoreUnavailable } from '../lib/store-unavailable.js';
import { keyModeRead, readOnce, type TurnReads } from '../lib/turn-reads.js';
import { CircuitBreaker } from './breaker.js';
import { PolicyReason, UNKNOWN_OUTCOME_REASONS } from './policy-reasons.js';
import { checkRolling, checkStatic, hasRollingCap, overThreshold, type Refusal, type ScopedPolicy } from './rules.js';
import { DEFAULT_BREAKER, WINDOW_MS, type Breaker } from './policy-schemas.js';
import { Policies, SpendReservations, type SpendReservation } from './tables.js';
import type { Spend } from './valuation.js';

/** Who a call is for and through what. */
export interface PolicyCaller {
  accountId: string;
  /** The API key the call came through (API, MCP); absent for the person's own doors. */
  keyId?: string;
  /** false: a test-mode turn of the person's own (the chat while the app shows test data): test spending. */
  livemode?: false;
}

/** What an action's outcome says, as far as the caps care. */
export interface ActionOutcome {
  ok: boolean;
  reason?: string;
  /** Sent but not settled yet (a transfer `submitted`): the reservation stays `reserved` until its reconcile ends it. */
  pending?: boolean;
}

export type Admission =
  | { kind: 'go' }
  /** Over the approval threshold: hold it for the signed-in person. */
  | { kind: 'hold'; message: string }
  | { kind: 'refuse'; reason: string; message: string; retryAfterSeconds?: number };

export interface SpendGuardDeps {
  store: Store;
  logger?: Logger;
  /** Every identifier of a transfer's recipient (handle, phone, email, address), for the lists. */
  recipientIds?: (accountId: string, recipient: string, reads?: TurnReads) => Promise<string[]>;
  /** A key's mode (false: a test key). Caps count test and live spending apart; without it all is live. */
  livemodeOfKey?: (keyId: string) => Promise<boolean>;
  /** The breaker when the account's policy sets none (POLICY_BREAKER; default 5/10m/15m). */
  breaker?: Breaker;
  now?: () => Date;
}

type Refused = Extract<Admission, { kind: 'refuse' }>;

/**
 * How a call is asked about. `reads`: the turn's own reads (src/lib/turn-reads.ts), so `admit`
 * and `run` of one turn read the policies, the breaker, the recipient and the key's mode once;
 * the caps are still checked against the reservations inside the reserving transaction.
 */
export interface GuardOpts {
  byPerson: boolean;
  reads?: TurnReads;
}

/**
 * The reservation handed to an action that writes it in its own store transaction (the
 * transfer's hold), instead of one commit before the action and one after it
 * (docs/performance.md, "agent turn: the reservation in the transfer's transaction").
 * `reserveIn` checks every rolling cap and inserts the reservation in the action's transaction,
 * before the action holds or moves anything: concurrent actions are serialised by the store
 * exactly as `reserve` is, so together they never exceed a cap. Over a cap it throws
 * `SpendRefused`, which aborts the action's transaction (nothing held, no row written).
 * `finishIn` marks it in the transaction that records the action's outcome, with the same rule
 * as `run` (committed when it went through, released when it failed, kept when not known).
 * Every path writes it in the transaction that writes its record (a transfer, a firm quote's
 * transfer, a claim, a bill, a stake), which keeps its id (`spendReservationId`), so neither
 * exists without the other and the record's later pass ends it (`endReservationIn`).
 */
export interface SpendSlot {
  /** The reservation's id (the action keeps it on its record: `endReservationIn` ends it from a later pass). */
  reserveIn(tx: Tx): Promise<string>;
  finishIn(tx: Tx, outcome: ActionOutcome): Promise<void>;
}

/** Thrown by `SpendSlot.reserveIn` over a cap: aborts the action's transaction. */
export class SpendRefused extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
    this.name = 'SpendRefused';
  }
}

/** What a slot went through, read by `run` after the action. */
interface SlotState {
  reservedId?: string;
  finished?: boolean;
  refusal?: Refusal;
}

const LONGEST_WINDOW_MS = WINDOW_MS.monthly;
const PAGE = 500;

export class SpendGuard {
  private readonly now: () => Date;
  readonly breaker: CircuitBreaker;

  constructor(private readonly deps: SpendGuardDeps) {
    this.now = deps.now ?? (() => new Date());
    this.breaker = new CircuitBreaker(deps.store, this.now);
  }

  /** The policies that apply: the account's, then the key's. */
  async policiesFor(who: PolicyCaller, reads?: TurnReads): Promise<ScopedPolicy[]> {
    return readOnce(reads, `policies:${who.accountId}:${who.keyId ?? ''}`, () => this.readPolicies(who));
  }

  private async readPolicies(who: PolicyCaller): Promise<ScopedPolicy[]> {
    const t = this.deps.store.table(Policies);
    const out: ScopedPolicy[] = [];
    const account = await t.get(who.accountId);
    if (account) out.push({ scope: 'account', policy: account.policy });
    if (who.keyId) {
      const key = await t.get(who.keyId);
      if (key && key.accountId === who.accountId) out.push({ scope: 'key', keyId: who.keyId, policy: key.policy });
    }
    return out;
  }

  /**
   * Before a call is held or run: refuse it (a rule, or the breaker), hold it for the person
   * (over the threshold; only when a key asked), or let it go on.
   */
  async admit(spend: Spend, who: PolicyCaller, opts: GuardOpts): Promise<Admission> {
    const paused = await this.paused(spend, who, opts);
    if (paused) return paused;
    const [policies, ids] = await Promise.all([this.policiesFor(who, opts.reads), this.recipientIds(spend, who, opts.reads)]);
    // Without a rolling cap no reservation can refuse it: the 30 days of them are not read.
    const rolling = () => (hasRollingCap(policies) ? this.rollingRefusal(spend, who, policies, opts.reads) : undefined);
    const refused = checkStatic(spend, policies, ids) ?? (await rolling());
    if (refused) return this.refuse(refused, spend, who, opts, policies);
    const held = overThreshold(spend, policies);
    return held ? { kind: 'hold', message: held.message } : { kind: 'go' };
  }

  /**
   * Runs a call under the policies: reserve, then commit or release (see the module comment).
   * `inAction`: the call writes the reservation in its own transaction through the slot `exec`
   * is given (SpendSlot); otherwise it is written here before `exec` and marked after it.
   */
  async run<T extends ActionOutcome>(
    spend: Spend,
    who: PolicyCaller,
    exec: (slot?: SpendSlot) => Promise<T>,
    opts: GuardOpts & { inAction?: boolean },
  ): Promise<{ refused: Refused } | { outcome: T }> {
    const paused = await this.paused(spend, who, opts);
    if (paused) return { refused: paused };
    const [policies, ids] = await Promise.all([this.policiesFor(who, opts.reads), this.recipientIds(spend, who, opts.reads)]);
    const staticRefusal = checkStatic(spend, policies, ids) ?? (opts.byPerson ? undefined : overThreshold(spend, policies));
    if (staticRefusal) return { refused: await this.refuse(staticRefusal, spend, who, opts, policies) };
    if (!spend.amount) return { outcome: await this.watch(await exec(), spend, who, opts, policies) };
    if (opts.inAction) return this.runInAction(spend, who, exec, opts, policies);

    const reserved = await this.reserve(spend, who, policies, opts.reads);
    if (!reserved.ok) return { refused: await this.refuse(reserved, spend, who, opts, policies) };
    let outcome: T;
    try {
      outcome = await exec();
    } catch (err) {
      // Whether money moved is not known: the reservation stays.
      await this.noteThrown(err, who, opts, policies);
      throw err;
    }
    const status = spendEndStatus(outcome);
    if (status) {
      await this.deps.store.write(SpendReservations, (t) => t.update(reserved.id, { status, updatedAt: this.now().toISOString() }, { status: 'reserved' }));
    }
    return { outcome: await this.watch(outcome, spend, who, opts, policies) };
  }

  /** `run` for a call that writes its reservation in its own transactions (SpendSlot). */
  private async runInAction<T extends ActionOutcome>(
    spend: Spend,
    who: PolicyCaller,
    exec: (slot?: SpendSlot) => Promise<T>,
    opts: GuardOpts,
    policies: ScopedPolicy[],
  ): Promise<{ refused: Refused } | { outcome: T }> {
    const livemode = await this.livemodeOf(who, opts.reads);
    const state: SlotState = {};
    const slot: SpendSlot = {
      reserveIn: async (tx) => {
        // A retried transaction (PostgreSQL) runs this again: the last attempt's row is the one.
        state.refusal = undefined;
        const r = await this.reserveInTx(tx, spend, who, policies, livemode);
        if (!r.ok) {
          state.refusal = r;
          throw new SpendRefused(r);
        }
        state.reservedId = r.id;
        return r.id;
      },
      finishIn: async (tx, outcome) => {
        if (state.reservedId) await endReservationIn(tx, state.reservedId, outcome, this.now());
        state.finished = true;
      },
    };
    let outcome: T;
    try {
      outcome = await exec(slot);
    } catch (err) {
      if (state.refusal) return { refused: await this.refuse(state.refusal, spend, who, opts, policies) };
      // Whether money moved is not known: the reservation (if any) stays.
      await this.noteThrown(err, who, opts, policies);
      throw err;
    }
    if (state.refusal) return { refused: await this.refuse(state.refusal, spend, who, opts, policies) };
    // Reserved but not marked by the action's outcome transaction (a bill, a stake, a quote that went through): marked here.
    const status = spendEndStatus(outcome);
    if (state.reservedId && !state.finished && status) {
      const id = state.reservedId;
      await this.deps.store.write(SpendReservations, (t) => t.update(id, { status, updatedAt: this.now().toISOString() }, { status: 'reserved' }));
    }
    return { outcome: await this.watch(outcome, spend, who, opts, policies) };
  }

  /**
   * Checks every rolling cap against the reservations of the last 30 days and inserts this one,
   * in one transaction: concurrent calls are serialised by the store (lowdb runs one at a time,
   * PostgreSQL at SERIALIZABLE retries the loser), so together they never exceed a cap.
   */
  private async reserve(spend: Spend, who: PolicyCaller, policies: ScopedPolicy[], reads?: TurnReads): Promise<{ ok: true; id: string } | ({ ok: false } & Refusal)> {
    const livemode = await this.livemodeOf(who, reads);
    return this.deps.store.transaction((tx) => this.reserveInTx(tx, spend, who, policies, livemode));
  }

  /** `reserve`'s check and insert, in the given transaction (its own, or the action's). */
  private async reserveInTx(tx: Tx, spend: Spend, who: PolicyCaller, policies: ScopedPolicy[], livemode: boolean): Promise<{ ok: true; id: string } | ({ ok: false } & Refusal)> {
    const amount = spend.amount!;
    const now = this.now();
    const t = tx.table(SpendReservations);
    // No rolling cap: nothing to check the reservations against (the row is still written: a cap set later counts it).
    const over = hasRollingCap(policies) ? checkRolling(spend, policies, await this.recent(who.accountId, livemode, t), now) : undefined;
    if (over) return { ok: false as const, ...over };
    const row = await t.insert({
      id: newId('spr'),
      accountId: who.accountId,
      ...(who.keyId ? { keyId: who.keyId } : {}),
      action: spend.action,
      usd: amount.usdMicro.toString(),
      currency: amount.currency,
      minor: amount.minor.toString(),
      status: 'reserved',
      livemode,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
    return { ok: true as const, id: row.id };
  }

  /** The call's mode: its key's (a test key spends test money); the person's own doors are live. */
  private async livemodeOf(who: PolicyCaller, reads?: TurnReads): Promise<boolean> {
    if (who.livemode === false) return false;
    const { keyId } = who;
    const of = this.deps.livemodeOfKey;
    return keyId && of ? readOnce(reads, keyModeRead(keyId), () => of(keyId)) : true;
  }

  /** `admit`'s look at the rolling caps (the reserving transaction checks them again). */
  private async rollingRefusal(spend: Spend, who: PolicyCaller, policies: ScopedPolicy[], reads?: TurnReads): Promise<Refusal | undefined> {
    return checkRolling(spend, policies, await this.recent(who.accountId, await this.livemodeOf(who, reads)), this.now());
  }

  /**
   * The account's reservations of the last 30 days in one mode (through the range index): test
   * spending never uses up a live cap, nor live spending a test one.
   */
  private async recent(accountId: string, livemode: boolean, table: Pick<ReadTable<SpendReservation>, 'findRange'> = this.deps.store.table(SpendReservations)): Promise<SpendReservation[]> {
    const since = new Date(this.now().getTime() - LONGEST_WINDOW_MS).toISOString();
    const out: SpendReservation[] = [];
    for await (const page of rangePages(table, { accountId }, { field: 'createdAt', after: { value: since, id: '' }, limit: PAGE })) {
      out.push(...page.filter((r) => (r.livemode !== false) === livemode));
    }
    return out;
  }

  private async recipientIds(spend: Spend, who: PolicyCaller, reads?: TurnReads): Promise<string[]> {
    if (!spend.recipient) return [];
    const resolved = (await this.deps.recipientIds?.(who.accountId, spend.recipient, reads).catch(() => [])) ?? [];
    return [spend.recipient, ...resolved];
  }

  /** The breaker, for a key's money-moving calls only. */
  private async paused(spend: Spend, who: PolicyCaller, opts: GuardOpts): Promise<Refused | undefined> {
    const { keyId } = who;
    if (!keyId || opts.byPerson || spend.action === 'payment_link') return undefined;
    const seconds = await readOnce(opts.reads, breakerRead(keyId), () => this.breaker.pausedFor(keyId));
    if (seconds === undefined) return undefined;
    return {
      kind: 'refuse',
      reason: PolicyReason.breaker,
      retryAfterSeconds: seconds,
      message: `Paused: this API key had too many refused or failed payments in a short time, so it cannot move money for ${seconds} more seconds. Nothing was done. Check what your integration is retrying; the account holder can still act in the app.`,
    };
  }

  private async refuse(r: Refusal, spend: Spend, who: PolicyCaller, opts: GuardOpts, policies: ScopedPolicy[]): Promise<Refused> {
    this.deps.logger?.info({ accountId: who.accountId, keyId: who.keyId, action: spend.action, reason: r.reason }, 'spend policy refused an action');
    if (spend.action !== 'payment_link') await this.noteFailure(who, opts, policies);
    return { kind: 'refuse', reason: r.reason, message: r.message };
  }

  private async watch<T extends ActionOutcome>(outcome: T, spend: Spend, who: PolicyCaller, opts: GuardOpts, policies: ScopedPolicy[]): Promise<T> {
    if (!outcome.ok && spend.action !== 'payment_link') await this.noteFailure(who, opts, policies);
    return outcome;
  }

  /**
   * A call that threw counts toward the breaker, unless the store could not serve it: a database
   * blip is the service's failure, not the key's, and must never pause a key (nor could it be
   * recorded then). Its answer is a 503 or 202 `outcome_unknown` (docs/api-decisions.md).
   */
  private async noteThrown(err: unknown, who: PolicyCaller, opts: GuardOpts, policies: ScopedPolicy[]): Promise<void> {
    if (!isStoreUnavailable(err)) await this.noteFailure(who, opts, policies);
  }

  private async noteFailure(who: PolicyCaller, opts: GuardOpts, policies: ScopedPolicy[]): Promise<void> {
    if (!who.keyId || opts.byPerson) return;
    const settings = policies.find((p) => p.scope === 'account')?.policy.breaker ?? this.deps.breaker ?? DEFAULT_BREAKER;
    await this.breaker.record(who.accountId, who.keyId, settings);
    // It may have tripped: a later call of this turn reads the breaker again.
    opts.reads?.forget(breakerRead(who.keyId));
  }
}

const breakerRead = (keyId: string) => `breaker:${keyId}`;

/** A reservation's end after its action: spent, given back, or kept while the outcome is not known. */
export function spendEndStatus(outcome: ActionOutcome): 'committed' | 'released' | undefined {
  if (outcome.ok) return outcome.pending ? undefined : 'committed';
  return UNKNOWN_OUTCOME_REASONS.has(outcome.reason ?? '') ? undefined : 'released';
}

/**
 * Ends a `reserved` reservation by its action's outcome, in the transaction that records it: the
 * slot's `finishIn`, and a later pass that learns the outcome (a transfer's reconcile, after a
 * turn that ended in a store error left it `reserved`; docs/policies.md). Compare-and-set from
 * `reserved`: an end already written is never changed.
 */
export async function endReservationIn(tx: Tx, id: string, outcome: ActionOutcome, now: Date): Promise<void> {
  const status = spendEndStatus(outcome);
  if (status) await tx.table(SpendReservations).update(id, { status, updatedAt: now.toISOString() }, { status: 'reserved' });
}
