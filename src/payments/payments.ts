import { hash } from 'node:crypto';
import { defineTable, rangePages, type InsertOrGet, type Store, type Tx, type Where } from '../store/index.js';
import { newId, nowIso } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import type { FxFailure, FxService } from '../fx/rates.js';
import { tooManyDecimals, usdcDecimal } from '../lib/money.js';
import { inMode } from '../lib/livemode.js';
import type { CreatePaymentInput, ListPaymentsQuery, PaymentStatus } from './payment-schemas.js';
import { noMetrics, type Metrics } from '../metrics/metrics-port.js';

export { Payments, type Payment } from './payment-record.js';
import { Payments, type Payment } from './payment-record.js';

/** Rows per page of a background pass's range read. */
export const PASS_PAGE = 500;

interface IdempotencyRecord {
  readonly id: string;
  accountId: string;
  requestHash: string;
  paymentId: string;
  /** Whether the first request created the payment (else it found it by reference). */
  created?: boolean;
  /** Records written before `created`: the first answer's HTTP status (201 created, 200 found). */
  status?: number;
  createdAt: string;
}
const IdempotencyKeys = defineTable<IdempotencyRecord>({ name: 'idempotency_keys' });

/**
 * Allowed transitions (DESIGN.md 5 and 10): the payment's state machine, the one table every
 * status change is checked against (`transition` and `transitionIn`; docs/architecture.md shows
 * it). Terminal states never change, except that money given back in full turns `settled` into
 * `refunded` (docs/refunds.md).
 */
export const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['processing', 'expired', 'canceled', 'authorized'],
  processing: ['settled', 'failed', 'pending'],
  settled: ['refunded'],
  failed: [],
  expired: [],
  canceled: [],
  refunded: [],
  // Manual capture (x402 auth-capture): held, then captured (all or part) or released.
  authorized: ['captured', 'voided'],
  captured: ['refunded'],
  voided: [],
};

function assertTransition(from: PaymentStatus, to: PaymentStatus): void {
  if (!TRANSITIONS[from].includes(to)) throw new Error(`illegal payment transition ${from} -> ${to}`);
}

/** Called inside the transaction that changes a payment's status (webhook outbox hooks in here). */
export type TransitionListener = (tx: Tx, before: Payment, after: Payment) => Promise<void>;

export type CreateFailure = FxFailure | 'reference_conflict' | 'idempotency_conflict';

export interface CreateResult {
  payment: Payment;
  /** True for a new payment, false for one found by its reference; a replay repeats the first answer's. */
  created: boolean;
  /** True when an Idempotency-Key replayed an earlier request. */
  replayed: boolean;
}

function canonicalHash(value: unknown): string {
  return hash('sha256', canonicalJson(value) as string, 'hex');
}

/**
 * `JSON.stringify` of `value` with the keys of every object (not inside arrays) sorted, written
 * in one pass: the same text, byte for byte, as stringifying a sorted copy (stored request
 * hashes and idempotency ids compare against it; test/payments/canonical-hash.unit.test.ts),
 * without building that copy per create. Arrays and primitives are JSON.stringify's own.
 */
export function canonicalJson(value: unknown): string | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return JSON.stringify(value) as string | undefined;
  const o = value as Record<string, unknown>;
  // The sorted copy's own key order: integer keys (array indices) first in numeric order, as
  // every object lists them (and Object.keys already does here), then the others sorted.
  const keys = Object.keys(o);
  let indices = 0;
  while (indices < keys.length && isArrayIndex(keys[indices]!)) indices++;
  const ordered = indices === 0 ? keys.sort() : keys.slice(0, indices).concat(keys.slice(indices).sort());
  let out = '';
  for (const k of ordered) {
    const v = canonicalJson(o[k]);
    // As in an object JSON.stringify writes: undefined, functions and symbols leave the key out.
    if (v !== undefined) out += `${out ? ',' : ''}${JSON.stringify(k)}:${v}`;
  }
  return `{${out}}`;
}

/** A key an object lists before its other keys: a canonical integer below 2^32 - 1. */
function isArrayIndex(k: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(k) && Number(k) <= 4_294_967_294;
}

/** A number as exact decimal text; exponent forms (1e-7) mean more precision than any currency has. */
function numberToDecimal(n: number): string | undefined {
  const s = String(n);
  return /^\d+(\.\d+)?$/.test(s) ? s : undefined;
}

/** Thrown out of a create's transaction to roll it back and answer `result`. */
class RolledBack extends Error {
  constructor(readonly result: Result<CreateResult, CreateFailure>) {
    super('rolled back');
  }
}

export class PaymentsService {
  private readonly listeners: TransitionListener[] = [];

  constructor(
    private readonly store: Store,
    private readonly fx: FxService,
    private readonly publicUrl: string,
    private readonly metrics: Pick<Metrics, 'paymentCreated'> = noMetrics,
  ) {}

  onTransition(listener: TransitionListener): void {
    this.listeners.push(listener);
  }

  checkoutUrl(id: string): string {
    return `${this.publicUrl}/pay/${id}`;
  }

  /**
   * `pending` past its expiry reads as `expired` at once, before the sweeper stores it, except
   * after a settle attempt: then the chain decides (the reconciler settles or expires it), and
   * an `expired` read could later turn `settled`.
   */
  effectiveStatus(p: Payment, now = Date.now()): PaymentStatus {
    return p.status === 'pending' && Date.parse(p.expiresAt) <= now && !hasSettleAttempt(p) ? 'expired' : p.status;
  }

  view(p: Payment): Payment {
    const status = this.effectiveStatus(p);
    return status === p.status ? p : { ...p, status };
  }

  async create(
    accountId: string,
    input: CreatePaymentInput,
    idempotencyKey?: string,
    livemode = true,
  ): Promise<Result<CreateResult, CreateFailure>> {
    const decimal = numberToDecimal(input.amount);
    // An unknown currency is named first; an exponent form (1e-7) is more decimals than any has.
    const converted = this.fx.toStablecoin(decimal ?? '0', input.currency);
    if (!converted.ok) return converted;
    if (decimal === undefined) {
      return fail('too_many_decimals', tooManyDecimals(input.currency, this.fx.currency(input.currency)?.decimals ?? 0), 'amount');
    }
    const { conversion } = converted;
    if (conversion.stablecoinAmount <= 0n) {
      return fail('invalid_amount', 'Amount is too small to settle in the stablecoin.', 'amount');
    }
    const requestHash = canonicalHash(input);
    // Live keys keep the hash they always had; a test key's idempotency keys are its own.
    const idemId = idempotencyKey ? canonicalHash(livemode ? [accountId, idempotencyKey] : [accountId, idempotencyKey, 'test']) : undefined;
    const row = { ...this.newRow(accountId, input, conversion, decimal, requestHash), livemode };
    let result: Result<CreateResult, CreateFailure>;
    if (!idemId) {
      // The reference dedupe and the insert are one statement (on PostgreSQL one round trip).
      result = this.deduped(await this.store.insertOrGet(Payments, row), input, requestHash);
    } else {
      try {
        result = await this.store.transaction(
          async (tx) => {
            const keys = tx.table(IdempotencyKeys);
            // Claim the key first, naming the payment about to be inserted; a key seen before replays.
            const claim = await keys.insertOrGet({ id: idemId, accountId, requestHash, paymentId: row.id, created: true, createdAt: nowIso() });
            if (!claim.inserted) {
              const seen = claim.existing;
              if (seen.requestHash !== requestHash) {
                return fail(
                  'idempotency_conflict',
                  'Keys for idempotent requests can only be used with the same parameters they were first used with.',
                );
              }
              const first = await tx.table(Payments).get(seen.paymentId);
              if (first) return { ok: true as const, payment: this.view(first), created: seen.created ?? seen.status === 201, replayed: true };
              await keys.update(idemId, { paymentId: row.id, created: true });
            }
            const inserted = this.deduped(await tx.table(Payments).insertOrGet(row), input, requestHash);
            // A refused create leaves no trace of the key: roll the claim back.
            if (!inserted.ok) throw new RolledBack(inserted);
            if (!inserted.created) await keys.update(idemId, { paymentId: inserted.payment.id, created: false });
            return inserted;
            // Only unique keys decide here (the idempotency key, `(account, reference)`).
          },
          { guardedByUniqueKeys: true },
        );
      } catch (e) {
        if (!(e instanceof RolledBack)) throw e;
        result = e.result;
      }
    }
    if (result.ok && result.created && !result.replayed) this.metrics.paymentCreated();
    return result;
  }

  /** A new payment, or the one already holding its `(account, reference)` (same request: a dedupe; else a conflict). */
  private deduped(r: InsertOrGet<Payment>, input: CreatePaymentInput, requestHash: string): Result<CreateResult, CreateFailure> {
    if (r.inserted) return { ok: true, payment: r.row, created: true, replayed: false };
    const existing = r.existing;
    return existing.requestHash === requestHash
      ? { ok: true, payment: this.view(existing), created: false, replayed: false }
      : fail(
          'reference_conflict',
          `A payment with reference "${input.reference}" already exists with different parameters (${existing.id}).`,
          'reference',
        );
  }

  private newRow(
    accountId: string,
    input: CreatePaymentInput,
    conversion: { currency: string; stablecoinAmount: bigint; rate: string },
    decimal: string,
    requestHash: string,
  ): Payment {
    const now = new Date();
    return {
      id: newId('pay'),
      accountId,
      status: 'pending',
      amount: decimal,
      currency: conversion.currency,
      stablecoinAmount: conversion.stablecoinAmount.toString(),
      rate: conversion.rate,
      redirectUrl: input.redirect_url,
      reference: input.reference,
      merchantName: input.merchant_name,
      description: input.description,
      payoutAddress: input.payout_address,
      metadata: input.metadata,
      webhookUrl: input.webhook_url,
      expiresInMinutes: input.expires_in_minutes,
      ...(input.discoverable ? { discoverable: true } : {}),
      ...(input.capture_method === 'manual' ? { captureMethod: 'manual' as const } : {}),
      ...(input.capture_within_minutes !== undefined ? { captureWithinMinutes: input.capture_within_minutes } : {}),
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + input.expires_in_minutes * 60_000).toISOString(),
      updatedAt: now.toISOString(),
      version: 0,
      requestHash,
    };
  }

  async get(id: string): Promise<Payment | undefined> {
    const p = await this.store.table(Payments).get(id);
    return p && this.view(p);
  }

  /** Every payment of the account in one mode as stored (not the effective status), in `order` of creation. */
  allOf(accountId: string, order: 'asc' | 'desc' = 'asc', livemode = true): Promise<Payment[]> {
    return this.store.table(Payments).findMany({ accountId, livemode }, { order });
  }

  /** The account's own payment in this mode, or undefined (another account's or mode's payment does not exist for it). */
  async getForAccount(accountId: string, id: string, livemode = true): Promise<Payment | undefined> {
    const p = await this.get(id);
    return p && p.accountId === accountId && inMode(p, livemode) ? p : undefined;
  }

  async list(
    accountId: string,
    q: ListPaymentsQuery,
    livemode = true,
  ): Promise<Result<{ data: Payment[]; hasMore: boolean }, 'invalid_cursor'>> {
    if (q.starting_after) {
      const cursor = await this.store.table(Payments).get(q.starting_after);
      if (!cursor || cursor.accountId !== accountId || !inMode(cursor, livemode)) {
        return fail('invalid_cursor', `No such payment: ${q.starting_after}`, 'starting_after');
      }
    }
    const where = { accountId, livemode, ...(q.reference ? { reference: q.reference } : {}) };
    const table = this.store.table(Payments);
    const want = q.limit + 1;
    if (q.status !== 'pending' && q.status !== 'expired') {
      const rows = await table.findMany(q.status ? { ...where, status: q.status } : where, { order: 'desc', after: q.starting_after, limit: want });
      return { ok: true, data: rows.slice(0, q.limit).map((p) => this.view(p)), hasMore: rows.length > q.limit };
    }
    // `pending` and `expired` are effective statuses (a pending payment past its expiry reads
    // as expired): the stored statuses that can read as the one asked for are paged through in
    // the store, newest first, a page of `limit + 1` at a time, until `limit + 1` match. Rows
    // read beyond the page: the stored `pending` ones that do not read as asked (past expiry
    // and not yet swept, for `pending`; still open, for `expired`), never the whole history.
    const now = Date.now();
    const anyOf = { field: 'status', values: q.status === 'pending' ? ['pending'] : ['expired', 'pending'] };
    const matching: Payment[] = [];
    for (let after = q.starting_after; matching.length < want; ) {
      const rows = await table.findMany(where, { order: 'desc', after, limit: want, anyOf });
      for (const p of rows) if (this.effectiveStatus(p, now) === q.status) matching.push(p);
      if (rows.length < want) break;
      after = rows[rows.length - 1]!.id;
    }
    return { ok: true, data: matching.slice(0, q.limit).map((p) => this.view(p)), hasMore: matching.length > q.limit };
  }

  /**
   * Compare-and-set status change with listeners in the same transaction, so the webhook
   * event and the state change are stored together or not at all.
   */
  async transition(
    id: string,
    from: PaymentStatus,
    to: PaymentStatus,
    patch: TransitionPatch = {},
  ): Promise<Payment | undefined> {
    assertTransition(from, to);
    return this.store.transaction(async (tx) => this.transitionIn(tx, id, from, to, patch));
  }

  async transitionIn(
    tx: Tx,
    id: string,
    from: PaymentStatus,
    to: PaymentStatus,
    patch: TransitionPatch = {},
    /** More the row must still hold (a claim built on a read names that read's `updatedAt`). */
    expect: Where<Payment> = {},
  ): Promise<Payment | undefined> {
    // The same table whoever opened the transaction (settlement, deposits, refunds, manual capture).
    assertTransition(from, to);
    // The compare-and-set gives the row before with the row after: no read first (issue 23).
    const changed = await tx.table(Payments).updateWithBefore(id, { ...patch, status: to, updatedAt: nowIso() }, { ...expect, status: from });
    if (!changed) return undefined;
    const { before, after } = changed;
    for (const l of this.listeners) await l(tx, before, after);
    return after;
  }

  /**
   * Stores `expired` for pending payments past their expiry; returns how many changed. Skips
   * payments with a settle attempt: an authorization of theirs may have been used on-chain, so
   * the settlement reconciler expires them once the chain says it was not.
   */
  async sweepExpired(now = Date.now()): Promise<number> {
    // Only pending payments past their expiry, oldest first, a page at a time (an index range
    // scan on PostgreSQL): a million open sessions cost nothing until they are due.
    const atMost = new Date(now).toISOString();
    let swept = 0;
    for await (const page of rangePages(this.store.table(Payments), { status: 'pending' }, { field: 'expiresAt', atMost, limit: PASS_PAGE })) {
      const due = page.filter((p) => !hasSettleAttempt(p));
      if (due.length > 0) {
        swept += await this.store.transaction(async (tx) => {
          let n = 0;
          for (const p of due) if (await this.transitionIn(tx, p.id, 'pending', 'expired')) n++;
          return n;
        });
      }
    }
    return swept;
  }

  /**
   * Payments in `processing` (for the settlement reconciler), a page at a time in order of
   * their last change; `olderThanMs` leaves out the ones that changed more recently.
   */
  async *processing(olderThanMs = 0, now = Date.now()): AsyncGenerator<Payment[]> {
    const atMost = new Date(now - olderThanMs).toISOString();
    yield* rangePages(this.store.table(Payments), { status: 'processing' }, { field: 'updatedAt', atMost, limit: PASS_PAGE });
  }

  /**
   * Stored `pending` payments with a settle attempt (for the settlement reconciler), expired or
   * not, a page at a time: a partial index holds only the rows that have `attemptedBy`.
   */
  async *pendingWithAttempts(): AsyncGenerator<Payment[]> {
    for await (const page of rangePages(this.store.table(Payments), { status: 'pending' }, { field: 'attemptedBy', limit: PASS_PAGE })) {
      const attempted = page.filter(hasSettleAttempt);
      if (attempted.length > 0) yield attempted;
    }
  }
}


export type TransitionPatch = Partial<
  Pick<Payment, 'txHash' | 'payer' | 'attemptedBy' | 'authNonce' | 'settledAt' | 'failureReason' | 'canceledAt' | 'cancellationReason' | 'amountRefunded' | 'stablecoinRefunded' | 'viaDeposit' | 'depositExcess' | 'paymentInfoHash' | 'amountCapturable' | 'amountCaptured' | 'amountVoided' | 'authorizedAt' | 'captureBefore' | 'captureSteps'>
>;

/** A settle was started for this payment at least once (see `Payment.attemptedBy`). */
export function hasSettleAttempt(p: Pick<Payment, 'attemptedBy'>): boolean {
  return (p.attemptedBy?.length ?? 0) > 0;
}

/** Stablecoin amount as decimal text ("12.345678"). */
export const stablecoinText = (p: Payment) => usdcDecimal(p.stablecoinAmount);
