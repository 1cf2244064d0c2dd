/**
 * Manual-capture checkout sessions (`capture_method: "manual"`, docs/x402.md): the session's
 * `x402_url` asks for `auth-capture`; the agent's authorization is settled as `authorize` by our
 * facilitator (funds held in the escrow, payment `authorized`); the merchant captures all or part
 * or voids; a hold not captured by its deadline is voided by the sweep. Every step goes through the
 * same AuthCaptureService as `/api/x402/settle` (its checks, its idempotency per step), and is
 * applied to the payment once (its transaction hash is remembered in `captureSteps`), with its
 * event (`payment.authorized`, `payment.captured`, `payment.voided`) in the same store transaction.
 */
import { isAddressEqual, type Address, type Hex } from 'viem';
import { rangePages, type Store, type Tx } from '../../store/index.js';
import { nowIso } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { Payments, type Payment, type PaymentsService } from '../../payments/payments.js';
import type { PaymentEventType } from '../../webhooks/webhook-schemas.js';
import type { PaymentPayload, PaymentRequirements } from '../x402-schemas.js';
import { AUTH_CAPTURE_SCHEME } from './checks.js';
import { AuthCaptures, type AuthCaptureRecord } from './records.js';
import type { AuthCaptureService } from './auth-capture-service.js';
import type { AuthCapturePort, AuthCaptureSettleResponse } from './scheme.js';

const MAX_WINDOW_SECONDS = 600;
const CLOCK_ROOM_SECONDS = 30;
const MIN_WINDOW_SECONDS = 15;
/** Rows read per page by the sweep. */
const SWEEP_PAGE = 100;

export interface ManualCaptureOptions {
  ac: AuthCaptureService;
  payments: PaymentsService;
  store: Store;
  record: (tx: Tx, type: PaymentEventType, p: Payment) => Promise<unknown>;
  logger: Logger;
  holdMs: number;
  refundWindowMs: number;
  /** After a void emptied the hold of a `captured` payment, in its transaction: all captured may have been refunded already (src/refunds). */
  onHoldReleased?: (tx: Tx, p: Payment) => Promise<unknown>;
}

export type StepResult = { ok: true; payment: Payment; settle: AuthCaptureSettleResponse } | { ok: false; status: number; reason: string; message: string; settle?: AuthCaptureSettleResponse };

export class ManualCaptureSessions {
  constructor(private readonly o: ManualCaptureOptions) {}

  /** The session's `auth-capture` requirement (bound to us as receiver authorizer), or undefined when it closes too soon. */
  requirements(p: Payment, payTo: Address, nowMs = Date.now()): PaymentRequirements | undefined {
    const port = this.o.ac.port;
    const now = Math.floor(nowMs / 1000);
    const left = Math.floor((Date.parse(p.expiresAt) - nowMs) / 1000) - CLOCK_ROOM_SECONDS;
    const captureDeadline = now + this.holdSeconds(p);
    const window = Math.min(MAX_WINDOW_SECONDS, left, captureDeadline - now - 5);
    if (window < MIN_WINDOW_SECONDS) return undefined;
    return {
      scheme: AUTH_CAPTURE_SCHEME,
      network: `eip155:${port.chainId}`,
      amount: p.stablecoinAmount,
      asset: port.tokenAddress,
      payTo,
      maxTimeoutSeconds: window,
      extra: {
        name: port.eip712Domain.name,
        version: port.eip712Domain.version,
        authCaptureEscrow: port.escrow,
        captureAuthorizer: port.operator,
        receiverAuthorizer: port.operator,
        operatorType: 'delegated',
        paymentFlow: 'escrow',
        captureMode: 'deferred',
        captureDeadline,
        refundDeadline: captureDeadline + Math.floor(this.o.refundWindowMs / 1000),
        feeRecipient: payTo,
        minFeeBps: 0,
        maxFeeBps: 0,
        assetTransferMethod: 'eip3009',
      },
    };
  }

  /** How long an authorization of `p` is held before the sweep voids it: the payment's own window, else the deployment's. */
  private holdSeconds(p: Payment): number {
    return p.captureWithinMinutes !== undefined ? p.captureWithinMinutes * 60 : Math.floor(this.o.holdMs / 1000);
  }

  /** The client's echo of our requirement must be ours (amount, payTo, operator, a deadline we could have offered). */
  private ours(p: Payment, payTo: Address, accepted: PaymentRequirements, nowMs: number): boolean {
    const e = (accepted.extra ?? {}) as Record<string, unknown>;
    const now = Math.floor(nowMs / 1000);
    const cd = Number(e.captureDeadline);
    return (
      accepted.scheme === AUTH_CAPTURE_SCHEME && accepted.amount === p.stablecoinAmount && typeof accepted.payTo === 'string' &&
      /^0x[0-9a-fA-F]{40}$/.test(accepted.payTo) && isAddressEqual(accepted.payTo as Address, payTo) &&
      Number.isInteger(cd) && cd > now && cd <= now + this.holdSeconds(p) + 60 &&
      Number(e.refundDeadline) === cd + Math.floor(this.o.refundWindowMs / 1000) &&
      typeof e.feeRecipient === 'string' && isAddressEqual(e.feeRecipient as Address, payTo)
    );
  }

  /** An agent's authorization for a pending manual session: `authorize`, then `pending -> authorized`. */
  async authorize(p: Payment, payTo: Address, payload: PaymentPayload, nowMs = Date.now()): Promise<StepResult> {
    if (!this.ours(p, payTo, payload.accepted, nowMs)) return { ok: false, status: 402, reason: 'invalid_payment_requirements', message: 'the payload was not made for this session\'s auth-capture requirement' };
    const settle = await this.o.ac.settle({ accountId: p.accountId, paymentId: p.id }, { x402Version: 2, paymentPayload: payload, paymentRequirements: payload.accepted });
    if (!settle.success) return { ok: false, status: settle.errorReason === 'settlement_pending' ? 202 : 402, reason: settle.errorReason ?? 'unexpected_settle_error', message: settle.errorMessage ?? '', settle };
    const rec = await this.o.ac.record(settle.paymentInfoHash!);
    const payment = await this.apply(p.id, rec!, 'authorize', settle.transaction, BigInt(settle.amount ?? p.stablecoinAmount));
    return payment ? { ok: true, payment, settle } : { ok: false, status: 409, reason: 'already_settled', message: 'This payment was paid by another authorization.', settle };
  }

  /** Captures `amount` base units (default: everything held). */
  async capture(p: Payment, amount?: bigint): Promise<StepResult> {
    const held = BigInt(p.amountCapturable ?? '0');
    if (!p.paymentInfoHash || (p.status !== 'authorized' && p.status !== 'captured') || held === 0n) {
      return { ok: false, status: 409, reason: 'not_capturable', message: `Nothing is held for this payment (status ${p.status}).` };
    }
    const want = amount ?? held;
    if (want <= 0n || want > held) return { ok: false, status: 400, reason: 'invalid_request', message: `amount must be more than 0 and at most what is held` };
    return this.step(p, 'capture', want);
  }

  async void(p: Payment): Promise<StepResult> {
    if (!p.paymentInfoHash || (p.status !== 'authorized' && p.status !== 'captured') || BigInt(p.amountCapturable ?? '0') === 0n) {
      return { ok: false, status: 409, reason: 'not_voidable', message: `Nothing is held for this payment (status ${p.status}).` };
    }
    return this.step(p, 'void');
  }

  private async step(p: Payment, type: 'capture' | 'void', amount?: bigint): Promise<StepResult> {
    const rec = await this.o.ac.record(p.paymentInfoHash!);
    if (!rec) return { ok: false, status: 409, reason: 'not_capturable', message: 'The authorization record is missing.' };
    // Durable before the receipt is awaited: a crash from here to the payment's update is finished by the sweep.
    const onSent = (txHash: Hex) => this.o.store.write(AuthCaptures, (t) => t.update(rec.id, { inFlight: { step: type, amount: (amount ?? 0n).toString(), txHash }, updatedAt: nowIso() })).then(() => undefined);
    const settle = await this.o.ac.settle({ accountId: rec.accountId, paymentId: p.id }, await this.lifecycleRequest(rec, type, amount), { onSent });
    if (!settle.success) return { ok: false, status: settle.errorReason === 'settlement_pending' ? 202 : 409, reason: settle.errorReason ?? 'unexpected_settle_error', message: settle.errorMessage ?? '', settle };
    const payment = await this.apply(p.id, rec, type, settle.transaction, BigInt(settle.amount ?? '0'));
    await this.landed(rec.id, settle.transaction);
    return { ok: true, payment: payment ?? (await this.o.payments.get(p.id))!, settle };
  }

  /** The in-flight step `txHash` is on the payment (or never will be): forget it. */
  private landed(id: string, txHash: string): Promise<void> {
    return this.o.store
      .write(AuthCaptures, async (t) => {
        const r = await t.get(id);
        if (r?.inFlight?.txHash === txHash) await t.update(id, { inFlight: undefined, updatedAt: nowIso() });
      })
      .catch((err: unknown) => this.o.logger.warn({ err, id }, 'auth-capture in-flight mark not cleared'));
  }

  /** A capture or void sent before a crash: applied to its payment once its receipt says it succeeded. */
  private async finishInFlight(rec: AuthCaptureRecord): Promise<boolean> {
    const f = rec.inFlight;
    if (!f || !rec.paymentId) return false;
    const r = await this.o.ac.port.waitForReceipt(f.txHash as Hex, 1_000).catch(() => undefined);
    if (r?.status === 'success') await this.apply(rec.paymentId, rec, f.step, f.txHash, BigInt(f.amount));
    if (r?.status === 'success' || r?.status === 'reverted') await this.landed(rec.id, f.txHash);
    return r?.status === 'success';
  }

  /** A lifecycle payload for the stored PaymentInfo, against the escrow's current balances; consent is ours (delegated). */
  private async lifecycleRequest(rec: AuthCaptureRecord, type: 'capture' | 'void', amount?: bigint) {
    const port = this.o.ac.port;
    const info = rec.paymentInfo as Record<string, string | number>;
    const state = await port.paymentState(rec.id as Hex);
    const payload: Record<string, unknown> = { type };
    if (type === 'capture') Object.assign(payload, { amount: amount!.toString(), feeBps: 0, feeReceiver: info.feeReceiver, expectedCapturableAmount: state.capturable.toString(), expectedRefundableAmount: state.refundable.toString() });
    return lifecycleRequest(port, rec, payload);
  }

  /**
   * Applies one mined step to the payment, once per transaction hash, with its event in the same
   * store transaction: a status change through the payments service (its listener records the
   * event), or, when the status stays (a further capture, the rest voided after a capture), the
   * event recorded here.
   */
  private async apply(paymentId: string, rec: AuthCaptureRecord, step: 'authorize' | 'capture' | 'void', txHash: string, amount: bigint): Promise<Payment | undefined> {
    const key = `${step}:${txHash || rec.id}`;
    return this.o.store.transaction(async (tx) => {
      const before = await tx.table(Payments).get(paymentId);
      if (!before) return undefined;
      if (before.captureSteps?.includes(key)) return before;
      const steps = [...(before.captureSteps ?? []), key];
      const held = BigInt(before.amountCapturable ?? '0');
      const captured = BigInt(before.amountCaptured ?? '0');
      if (step === 'authorize') {
        if (before.status !== 'pending') return before.paymentInfoHash === rec.id ? before : undefined;
        return this.o.payments.transitionIn(tx, paymentId, 'pending', 'authorized', {
          paymentInfoHash: rec.id, payer: rec.payer, txHash, amountCapturable: amount.toString(), amountCaptured: '0', amountVoided: '0',
          authorizedAt: nowIso(), captureBefore: rec.captureDeadline, captureSteps: steps,
        });
      }
      const patch = step === 'capture'
        ? { amountCapturable: (held - amount).toString(), amountCaptured: (captured + amount).toString(), captureSteps: steps }
        : { amountCapturable: '0', amountVoided: (BigInt(before.amountVoided ?? '0') + held).toString(), captureSteps: steps };
      if (before.status === 'authorized') {
        const to = step === 'capture' ? 'captured' : 'voided';
        return this.o.payments.transitionIn(tx, paymentId, 'authorized', to, { ...patch, ...(step === 'capture' ? { settledAt: nowIso() } : {}) });
      }
      const after = await tx.table(Payments).update(paymentId, { ...patch, updatedAt: nowIso() }, { updatedAt: before.updatedAt });
      if (after) await this.o.record(tx, step === 'capture' ? 'payment.captured' : 'payment.voided', after);
      if (after && step === 'void') return ((await this.o.onHoldReleased?.(tx, after)) as Payment | undefined) ?? after;
      return after;
    });
  }

  /**
   * The sweep: holds past their capture deadline are voided (the money back to the payer), and an
   * authorize interrupted by a crash is resolved from the escrow (held: the payment is `authorized`).
   */
  async sweep(nowMs = Date.now()): Promise<number> {
    let n = 0;
    const port = this.o.ac.port;
    const t = this.o.store.table(AuthCaptures);
    // Each chain's sweep reads and voids only the holds on its own escrow (docs/test-mode.md).
    const mine = (rec: AuthCaptureRecord) => this.o.ac.serves(rec);
    // Page through every due row: a page full of rows this sweep cannot close (the other chain's,
    // a void that keeps failing) must not hide the rows after it.
    const now = new Date(nowMs).toISOString();
    for await (const page of rangePages(t, { state: 'authorizing' }, { field: 'captureDeadline', limit: SWEEP_PAGE })) {
      for (const rec of page.filter(mine)) {
        const s = await port.paymentState(rec.id as Hex);
        if (!s.collected) {
          // Past authorizationExpiry (after preApprovalExpiry) the escrow refuses `authorize`:
          // an authorize that never landed can never land now, and nothing is held.
          if (rec.captureDeadline <= now) await this.o.store.write(AuthCaptures, (w) => w.update(rec.id, { state: 'closed', updatedAt: nowIso() }, { state: 'authorizing' }));
          continue;
        }
        // The payment first, then the record: a stop in between leaves the record `authorizing`,
        // so the next pass applies again (a no-op once applied) instead of losing the step.
        if (rec.paymentId) {
          const p = await this.o.payments.get(rec.paymentId);
          if (p?.status === 'pending') await this.apply(p.id, rec, 'authorize', rec.authorizeTx ?? '', s.capturable);
        }
        await this.o.store.write(AuthCaptures, (w) => w.update(rec.id, { state: 'open', updatedAt: nowIso() }));
        n++;
      }
    }
    // A capture or void a crash left sent but not applied (any deadline): finish it first.
    for await (const page of rangePages(t, { state: 'open' }, { field: 'captureDeadline', limit: SWEEP_PAGE })) {
      for (const rec of page.filter((r) => mine(r) && r.inFlight)) if (await this.finishInFlight(rec)) n++;
    }
    // (A full capture or a void marks its record `closed` just before the payment is told; such a step is
    // at most a day past its capture deadline, when the expiry void runs.)
    const dayAgo = { value: new Date(nowMs - 86_400_000).toISOString(), id: '' };
    for await (const page of rangePages(t, { state: 'closed' }, { field: 'captureDeadline', after: dayAgo, limit: SWEEP_PAGE })) {
      for (const rec of page.filter((r) => mine(r) && r.inFlight)) if (await this.finishInFlight(rec)) n++;
    }
    for await (const page of rangePages(t, { state: 'open' }, { field: 'captureDeadline', atMost: now, limit: SWEEP_PAGE })) {
      for (const rec of page.filter(mine)) {
        const p = rec.paymentId ? await this.o.payments.get(rec.paymentId) : undefined;
        if (p) {
          const r = await this.void(p);
          if (r.ok || r.reason === 'not_voidable') n++;
          else this.o.logger.warn({ paymentId: p.id, reason: r.reason }, 'expired hold not voided yet');
        }
        const s = await port.paymentState(rec.id as Hex);
        if (s.capturable === 0n) await this.o.store.write(AuthCaptures, (w) => w.update(rec.id, { state: 'closed', updatedAt: nowIso() }));
      }
    }
    return n;
  }
}

/** A server-authored lifecycle request (`payload.type` and its fields) for a stored authorization: requirements rebuilt from its PaymentInfo. */
export function lifecycleRequest(port: AuthCapturePort, rec: AuthCaptureRecord, fields: Record<string, unknown>) {
  const info = rec.paymentInfo as Record<string, string | number>;
  const requirements: PaymentRequirements = {
    scheme: AUTH_CAPTURE_SCHEME,
    network: `eip155:${port.chainId}`,
    amount: String(info.maxAmount),
    asset: String(info.token),
    payTo: String(info.receiver),
    maxTimeoutSeconds: 0,
    extra: {
      name: port.eip712Domain.name, version: port.eip712Domain.version, authCaptureEscrow: port.escrow,
      captureAuthorizer: info.operator, receiverAuthorizer: port.operator, operatorType: 'delegated', paymentFlow: 'escrow', captureMode: 'deferred',
      captureDeadline: info.authorizationExpiry, refundDeadline: info.refundExpiry, feeRecipient: info.feeReceiver, minFeeBps: info.minFeeBps, maxFeeBps: info.maxFeeBps,
    },
  };
  const payload = { ...fields, paymentInfo: info, saltNonce: rec.saltNonce };
  return { x402Version: 2, paymentPayload: { x402Version: 2, accepted: requirements, payload }, paymentRequirements: requirements };
}
