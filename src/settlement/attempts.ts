/**
 * The settlement-attempt ledger (issue 21): every relayed settle of one signed authorization
 * belongs to one attempt, a durable row written in the same transaction that claims the work
 * (for a checkout: `pending -> processing`). It names the instance running it, the relayer, the
 * authorization (with its signature, so another instance can finish the attempt once its owner
 * is gone) and, once sent, the transaction hash. Its `deadlineAt` is the confirm timeout plus
 * the chain's worst delay: before it, and while the owner's instance lease is live, nobody else
 * judges the attempt; after, they decide from the chain (attempt-decision.ts).
 *
 * One row per authorization (`<kind>:<payer>:<nonce>`): the same signed settle sent to two
 * instances finds one row, and the second caller waits for that row's answer instead of
 * relaying again. `answer` is what every caller of the attempt is told once it is final.
 */
import { defineTable, StoreConflictError, updateUnread, type Store, type Tx } from '../store/index.js';
import { nowIso } from '../lib/ids.js';
import { broadcastUntil, type NewRelayAttempt, type RelayAttempts } from '../chain/owned-relay.js';
import type { JournalEntry } from '../chain/relay-journal.js';

/**
 * `checkout` and `x402` settles; every other relayed move (deposit sweeps and give-backs,
 * refunds, custodial transfers, bills, stakes, claims) uses its nonce kind (src/chain/owned-relay.ts).
 */
export type AttemptKind = 'checkout' | 'x402' | (string & {});

/** The final answer of an attempt, as every caller of it gets it. */
export interface AttemptAnswer {
  ok: boolean;
  /** `ok: false`: the settle reason and message. */
  reason?: string;
  message?: string;
  param?: string;
  txHash?: string;
  /** The x402 facilitator's SettleResponse, stored whole. */
  body?: unknown;
}

export interface SettlementAttempt {
  readonly id: string;
  kind: AttemptKind;
  /** Checkout: the payment id. x402: the merchant account the settle is booked to. Other moves: their record's id. */
  subject: string;
  payer: string;
  nonce: string;
  /** Unix seconds: past it the authorization can never be used. */
  validBefore: string;
  /** The signed authorization (uint256 fields as decimal strings) and its signature. */
  authorization: Record<string, string>;
  signature: string;
  /** The instance running this attempt now (`InstanceLease.id`). */
  instanceId: string;
  relayer?: string;
  /** Bumped each time an instance takes the attempt over (compare-and-set on it). */
  generation: number;
  /** `open`: may still land; `done`: `answer` is final. */
  state: 'open' | 'done';
  txHash?: string;
  startedAt: string;
  /** Confirm timeout plus the chain's worst delay after `startedAt`. */
  deadlineAt: string;
  updatedAt: string;
  answer?: AttemptAnswer;
}

export const SettlementAttempts = defineTable<SettlementAttempt>({ name: 'settlement_attempts', indexes: ['subject'] });

export function attemptId(kind: AttemptKind, payer: string, nonce: string): string {
  return `${kind}:${payer.toLowerCase()}:${nonce.toLowerCase()}`;
}

/** Who this process is among the instances sharing the store (an InstanceLease, or one process alone). */
export interface AttemptOwner {
  readonly id: string;
  /** Whether the instance `owner` is alive (its lease has not lapsed). */
  isLive(owner: string | undefined): Promise<boolean>;
}

/** One process alone (lowdb, unit tests): only itself is ever live. */
export function soleOwner(id = `solo:${process.pid}`): AttemptOwner {
  return { id, isLive: async (owner) => owner === id };
}

export interface NewAttempt {
  kind: AttemptKind;
  subject: string;
  payer: string;
  nonce: string;
  validBefore: bigint;
  authorization: Record<string, string>;
  signature: string;
}

/** Epoch milliseconds; a port so that tests can run an instance whose clock is skewed. */
export type Clock = () => number;

/** How long a measured offset between this process's clock and the store's is used for new deadlines. */
const OFFSET_MAX_AGE_MS = 60_000;

export class AttemptLedger implements RelayAttempts {
  /** Attempt ids this process is relaying right now (relayOwned). */
  readonly running = new Set<string>();
  /** The store's clock less this process's, as last measured (a read of both in one statement). */
  private offset = 0;
  private measuredAt = -Infinity;
  private measuring: Promise<unknown> | undefined;

  constructor(
    private readonly store: Store,
    readonly owner: AttemptOwner,
    /** Confirm timeout plus the chain's worst delay. */
    private readonly deadlineMs: number,
    readonly relayer?: string,
    private readonly localClock: Clock = Date.now,
  ) {}

  /** This process's clock. */
  clock(): number {
    return this.localClock();
  }

  /**
   * The store's time as this process last measured it. Deadlines are written in it (so an
   * instance whose clock is off still gives its attempt the intended span) and a caller's
   * first look at a deadline uses it; every decision that lets someone broadcast reads the
   * store's clock itself (`readClocked`).
   */
  now(): number {
    return this.localClock() + this.offset;
  }

  /** The store's time when a measurement of its clock is at most a minute old (RelayAttempts.measuredNow). */
  measuredNow(): number | undefined {
    if (!this.store.getWithClock) return this.localClock();
    return this.localClock() - this.measuredAt <= OFFSET_MAX_AGE_MS ? this.now() : undefined;
  }

  /**
   * The attempt and the store's clock in one statement (PostgreSQL's `clock_timestamp()`; the
   * process clock where the store is one process's). The offset is measured from the local time
   * *before* the read, so `now()` never runs behind the store's clock: an owner's window closes
   * early rather than late.
   */
  async readClocked(id: string): Promise<{ row: SettlementAttempt | undefined; now: number }> {
    const before = this.localClock();
    const r = this.store.getWithClock ? await this.store.getWithClock(SettlementAttempts, id) : { row: await this.get(id), now: this.localClock() };
    this.offset = r.now - before;
    this.measuredAt = before;
    return r;
  }

  /**
   * Keeps the measured offset fresh before an attempt is opened (its deadline is written in the
   * store's time): measured again once it is a minute old, awaited only the first time in a
   * process (no statement on the settle path after that: later measurements run beside it).
   */
  async freshOffset(): Promise<void> {
    if (!this.store.getWithClock || this.localClock() - this.measuredAt <= OFFSET_MAX_AGE_MS) return;
    const m = (this.measuring ??= this.readClocked('').finally(() => (this.measuring = undefined)));
    if (this.measuredAt === -Infinity) await m;
    else m.catch(() => undefined);
  }

  get(id: string): Promise<SettlementAttempt | undefined> {
    return this.store.table(SettlementAttempts).get(id);
  }

  /**
   * Opens the attempt for this instance inside `tx`: a new row, or a new generation of a row
   * whose earlier run ended (the same authorization sent again after a refusal). Returns
   * undefined when the row is open and owned by someone (the caller joins it instead).
   */
  async open(tx: Tx, a: NewAttempt): Promise<SettlementAttempt | undefined> {
    const t = tx.table(SettlementAttempts);
    const id = attemptId(a.kind, a.payer, a.nonce);
    const now = new Date(this.now());
    const fields = {
      kind: a.kind,
      subject: a.subject,
      payer: a.payer,
      nonce: a.nonce,
      validBefore: a.validBefore.toString(),
      authorization: a.authorization,
      signature: a.signature,
      instanceId: this.owner.id,
      relayer: this.relayer,
      state: 'open' as const,
      txHash: undefined,
      answer: undefined,
      startedAt: now.toISOString(),
      deadlineAt: new Date(now.getTime() + this.deadlineMs).toISOString(),
      updatedAt: now.toISOString(),
    };
    // Insert, or read the row holding the id, in one statement (PostgreSQL: one round trip
    // instead of a read and an insert on the settle's critical path).
    const put = await t.insertOrGet({ id, generation: 1, ...fields });
    if (put.inserted) return put.row;
    const existing = put.existing;
    if (existing.state === 'open') return undefined;
    return t.update(id, { ...fields, generation: existing.generation + 1 }, { generation: existing.generation, state: 'done' });
  }

  /** `open` in a transaction of its own (relayed moves whose record is written apart). */
  async openAlone(a: NewRelayAttempt): Promise<SettlementAttempt | undefined> {
    // A relayed move's window is judged on the store's clock: its deadline is written in it.
    await this.freshOffset();
    try {
      return await this.store.transaction((tx) => this.open(tx, a));
    } catch (e) {
      // Another instance inserted the same row at the same moment: it owns the attempt.
      if (e instanceof StoreConflictError) return undefined;
      throw e;
    }
  }

  /**
   * Takes an open attempt over from an owner that is gone (compare-and-set on its generation).
   * `pastDeadline` (relayed moves, whose owner may still live): only once the deadline has passed
   * on the store's clock, the clock the owner's broadcast fence reads (owned-relay.ts), so a
   * take-over never falls inside the owner's window whatever either process's clock says.
   */
  async takeOver(a: SettlementAttempt, opts: { pastDeadline?: boolean } = {}): Promise<SettlementAttempt | undefined> {
    let now = new Date(this.now());
    if (opts.pastDeadline) {
      const read = await this.readClocked(a.id);
      if (read.row?.state !== 'open' || read.row.generation !== a.generation || read.now < Date.parse(read.row.deadlineAt)) return undefined;
      now = new Date(read.now);
    }
    return this.store.write(SettlementAttempts, (t) =>
      t.update(
        a.id,
        {
          instanceId: this.owner.id,
          relayer: this.relayer,
          generation: a.generation + 1,
          startedAt: now.toISOString(),
          deadlineAt: new Date(now.getTime() + this.deadlineMs).toISOString(),
          updatedAt: now.toISOString(),
        },
        { generation: a.generation, state: 'open' },
      ),
    );
  }

  /** The transaction carrying the attempt, stored as soon as it is on its way. */
  async sent(id: string, generation: number, txHash: string): Promise<void> {
    await this.store.write(SettlementAttempts, (t) => t.update(id, { txHash, updatedAt: nowIso() }, { generation }));
  }

  /** `sent` inside `tx` (the relay journal's commit). */
  async sentIn(tx: Tx, id: string, generation: number, txHash: string): Promise<void> {
    await updateUnread(tx.table(SettlementAttempts), id, { txHash, updatedAt: nowIso() }, { generation });
  }

  /**
   * Final answer (inside the transaction that applies it to its subject, when there is one). An
   * answer naming a transaction stores it as the attempt's `txHash` too: a move settled within the
   * hash record's grace (relay.ts SENT_RECORD_GRACE_MS) was never recorded while it was open.
   */
  async close(id: string, answer: AttemptAnswer, tx?: Tx): Promise<void> {
    const patch = { state: 'done' as const, answer, ...(answer.txHash ? { txHash: answer.txHash } : {}), updatedAt: nowIso() };
    // Inside the subject's transaction, with its commit's round trip on PostgreSQL.
    if (tx) await updateUnread(tx.table(SettlementAttempts), id, patch, { state: 'open' });
    else await this.store.write(SettlementAttempts, (t) => t.update(id, patch, { state: 'open' }));
  }

  /**
   * Whether someone may still be working on `a`: its owner is live (and, if it is us, running it)
   * or its deadline has not passed. A first look, on the store's time as last measured; a
   * take-over it allows still needs the deadline passed on the store's clock itself
   * (`takeOver(.., {pastDeadline: true})`).
   */
  async busy(a: SettlementAttempt, runningHere: (a: SettlementAttempt) => boolean, now = this.now()): Promise<boolean> {
    if (a.state !== 'open') return false;
    if (Date.parse(a.deadlineAt) > now) return true;
    if (a.instanceId === this.owner.id) return runningHere(a);
    return this.owner.isLive(a.instanceId);
  }

  /**
   * Waits (polling the durable row, so it works across instances) until `done(attempt)` says
   * the wait is over or `timeoutMs` passes; returns the last row read.
   */
  async waitFor(
    id: string,
    timeoutMs: number,
    done: (a: SettlementAttempt | undefined) => Promise<boolean> | boolean,
    pollMs = 200,
  ): Promise<SettlementAttempt | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const a = await this.get(id);
      if ((await done(a)) || Date.now() >= until) return a;
      await new Promise((r) => setTimeout(r, Math.min(pollMs, Math.max(10, until - Date.now()))));
    }
  }
}

/**
 * Whether a journaled relayer transaction may be broadcast again (the start-up replay, a dropped
 * one re-sent: src/chain/relay-journal-recovery.ts). Every attempt it carries must be either
 * - still open at the generation that signed it and inside its broadcast window on the store's
 *   clock (read with the row, as the owner's own fence does): nobody may take it over before the
 *   deadline, and a take-over after it finds this transaction in the pool; or
 * - ended with this very transaction (its record counts it, so the chain must get it back; nobody
 *   sends a final attempt again).
 * Otherwise (taken over, ended another way, or past its window) the same authorization may be on
 * its way in another instance's transaction: these bytes must not go out.
 */
export function journalResendGate(store: Store): (entry: JournalEntry) => Promise<boolean> {
  return async (entry) => {
    const hash = entry.hash.toLowerCase();
    for (const o of entry.owners ?? []) {
      const read = store.getWithClock ? await store.getWithClock(SettlementAttempts, o.attempt) : { row: await store.table(SettlementAttempts).get(o.attempt), now: Date.now() };
      const a = read.row;
      if (!a || a.generation !== o.generation) return false;
      if (a.state === 'done') {
        if (!a.answer?.ok || a.answer.txHash?.toLowerCase() !== hash) return false;
      } else if (read.now >= broadcastUntil(a)) return false;
    }
    return true;
  };
}
