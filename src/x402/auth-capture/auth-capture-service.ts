/**
 * Our facilitator's `auth-capture` (docs/x402.md): the `/supported` kind, verify and settle for a
 * merchant account, with what the pure scheme functions cannot hold:
 *
 * - **an idempotency key per step** (the binding's "operation-level idempotency"): each settle is
 *   keyed by its operation and either the client's `payment-identifier` id or, without one, the
 *   SHA-256 of the payload; the same step again replays the first success instead of a revert,
 *   the same key with another payload is `payment_identifier_conflict`; concurrent repeats join;
 * - **the merchant binding**: an authorization is recorded (records.ts) for the account whose key
 *   settled it, before it is sent; lifecycle steps whose consent we sign (delegated receiver
 *   authorizer) are accepted only from that account's key;
 * - **crash recovery**: an authorize that reached the chain while we died is found by its record
 *   and the escrow's state when the same payload comes again, and answered as the success it was.
 */
import type { Hex } from 'viem';
import type { Store } from '../../store/index.js';
import { nowIso } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { fingerprintOf, paymentIdentifierOf, type PaymentIdentifierLedger } from '../payment-identifier.js';
import { X402Reason } from '../x402-reasons.js';
import type { FacilitatorRequest, VerifyResponse } from '../x402-schemas.js';
import { AUTH_CAPTURE_SCHEME, checkCollect, checkLifecycle, isLifecycle } from './checks.js';
import { paymentInfoToWire } from './auth-capture-schemas.js';
import { AuthCaptures, type AuthCaptureRecord } from './records.js';
import { AuthCaptureReason as R } from './auth-capture-reasons.js';
import { settleAuthCapture, verifyAuthCapture, verifyResponseOf, type AuthCapturePort, type AuthCaptureSettleResponse, type VerifiedOperation } from './scheme.js';
import { modeMark, servedBy } from '../../lib/livemode.js';

export interface AuthCaptureServiceOptions {
  port: AuthCapturePort;
  store: Store;
  ids: PaymentIdentifierLedger;
  logger: Logger;
  receiptTimeoutMs?: number;
  /** Fault injection (NODE_ENV=test only): called at `<operation>-sent` and `<operation>-mined`. */
  crashAt?: (step: string) => void;
  /** With a chain per mode: the mode whose chain this escrow is on (its records are marked; docs/test-mode.md). */
  livemode?: boolean;
}

/** What a settle is for: the account whose key asked, and the checkout session it pays, if any. */
export interface SettleScope {
  accountId: string;
  paymentId?: string;
}

export type RefundFunding = (hash: Hex, amount: bigint) => Promise<boolean>;

/** What a caller inside the service adds to one step: a refund's funding agreement, the hash as soon as it is sent. */
export interface StepOptions {
  refundFunding?: RefundFunding;
  onSent?: (txHash: Hex) => Promise<void>;
}

export class AuthCaptureService {
  constructor(private readonly o: AuthCaptureServiceOptions) {}

  get port(): AuthCapturePort {
    return this.o.port;
  }

  /** True when the record's hold is on this service's chain (each mode's sweep takes only its own). */
  serves(rec: Pick<AuthCaptureRecord, 'livemode'>): boolean {
    return servedBy(rec, this.o.livemode);
  }

  get network(): string {
    return `eip155:${this.o.port.chainId}`;
  }

  /** The `/supported` kind: we are the operator (delegated) and offer to be the receiver authorizer; no fee, no contract operators. */
  supportedKind() {
    const p = this.o.port;
    return {
      x402Version: 2,
      scheme: AUTH_CAPTURE_SCHEME,
      network: this.network,
      extra: {
        captureAuthorizer: p.operator,
        receiverAuthorizer: p.operator,
        operators: [] as unknown[],
        // Not in the binding's /supported table: the one deployment this chain has, which servers must write out.
        authCaptureEscrow: p.escrow,
        asset: p.tokenAddress,
        name: p.eip712Domain.name,
        version: p.eip712Domain.version,
      },
    };
  }

  record(hash: string): Promise<AuthCaptureRecord | undefined> {
    return this.o.store.table(AuthCaptures).get(hash);
  }

  private context(scope: SettleScope, refundFunding?: RefundFunding) {
    return { delegated: async (hash: Hex) => (await this.record(hash))?.accountId === scope.accountId, ...(refundFunding ? { refundFunding } : {}) };
  }

  async verify(scope: SettleScope, req: FacilitatorRequest): Promise<VerifyResponse> {
    return verifyResponseOf(await verifyAuthCapture(this.o.port, req, this.context(scope)));
  }

  /**
   * One settle step, idempotent by its key. `step.refundFunding` is the funding agreement a `refund`
   * needs (the refunds API passes it; `/api/x402/settle` has none, so a refund there is refused).
   */
  async settle(scope: SettleScope, req: FacilitatorRequest, step: StepOptions = {}): Promise<AuthCaptureSettleResponse> {
    const refundFunding = step.refundFunding;
    const pid = paymentIdentifierOf(req.paymentPayload);
    if (pid.invalid) return { success: false, errorReason: X402Reason.invalidPaymentIdentifier, errorMessage: pid.invalid, transaction: '', network: this.network };
    const lifecycle = isLifecycle(req);
    const checked = lifecycle ? checkLifecycle(this.o.port, req) : checkCollect(this.o.port, req);
    if (!checked.ok) return settleAuthCapture(this.o.port, req, this.context(scope, refundFunding)); // the same refusal, nothing sent
    const operation = lifecycle ? String((req.paymentPayload.payload as { type: string }).type) : 'authorize';
    // A hold that pays one of our checkout sessions changes only through that payment (its capture,
    // void and refunds routes), so the payment record, its events and the hold never disagree.
    const owner = lifecycle ? (await this.record(checked.hash))?.paymentId : undefined;
    if (owner && owner !== scope.paymentId) {
      const message = `This authorization pays checkout session ${owner}: use POST /api/v1/payments/${owner}/capture, /void or /refunds.`;
      return { success: false, errorReason: R.unauthenticatedAuthorizerRequest, errorMessage: message, payer: checked.payer, transaction: '', network: this.network };
    }
    const fingerprint = fingerprintOf(req.paymentPayload);
    const key = { scope: `ac:${scope.accountId}:${operation}`, payer: checked.payer, id: pid.id ?? fingerprint };
    const r = await this.o.ids.run(key, fingerprint, async () => {
      const value = await this.settleOnce(scope, req, checked.hash, step);
      return { value, final: value.success };
    });
    if (r.kind === 'conflict') {
      return { success: false, errorReason: X402Reason.paymentIdentifierConflict, errorMessage: 'This idempotency key was used with another payload.', payer: checked.payer, transaction: '', network: this.network };
    }
    return r.value;
  }

  private async settleOnce(scope: SettleScope, req: FacilitatorRequest, hash: Hex, step: StepOptions): Promise<AuthCaptureSettleResponse> {
    const r = await settleAuthCapture(this.o.port, req, this.context(scope, step.refundFunding), {
      ...(step.onSent ? { onSent: (_op: VerifiedOperation, h: Hex) => step.onSent!(h) } : {}),
      receiptTimeoutMs: this.o.receiptTimeoutMs,
      beforeSend: (op) => (op.operation === 'authorize' ? this.recordAuthorizing(scope, req, op) : Promise.resolve()),
      onStep: (op, step) => this.o.crashAt?.(`${op.operation}-${step}`),
    });
    if (r.success) {
      await this.afterSettled(hash, r.operation!, r.transaction);
      return r;
    }
    // An authorize that went through before (a crash after the send, or a lost answer): the escrow says so.
    if (!isLifecycle(req) && (r.errorReason === R.paymentAlreadyCollected || r.errorReason === R.tokenCollectionFailed || r.errorReason === R.simulationFailed)) {
      const mine = await this.record(hash);
      const state = await this.o.port.paymentState(hash).catch(() => undefined);
      if (mine && mine.accountId === scope.accountId && state?.collected) {
        await this.afterSettled(hash, 'authorize', mine.authorizeTx ?? '');
        return { success: true, payer: mine.payer, transaction: mine.authorizeTx ?? '', network: this.network, operation: 'authorize', paymentInfoHash: hash, amount: String(mine.paymentInfo.maxAmount) };
      }
    }
    if (r.operation === 'authorize' && r.transaction) {
      await this.o.store.write(AuthCaptures, (t) => t.update(hash, { authorizeTx: r.transaction, updatedAt: nowIso() })).catch(() => undefined);
    }
    return r;
  }

  /** Durable before the authorize leaves: who it is for, and the PaymentInfo every later step needs. */
  private async recordAuthorizing(scope: SettleScope, req: FacilitatorRequest, op: VerifiedOperation): Promise<void> {
    const saltNonce = (req.paymentPayload.payload as { saltNonce?: string }).saltNonce;
    const now = nowIso();
    await this.o.store.write(AuthCaptures, (t) =>
      t.insertOrGet({
        id: op.hash,
        accountId: scope.accountId,
        ...(scope.paymentId ? { paymentId: scope.paymentId } : {}),
        ...modeMark(this.o.livemode),
        payer: op.payer,
        paymentInfo: paymentInfoToWire(op.info),
        ...(saltNonce ? { saltNonce } : {}),
        state: 'authorizing',
        captureDeadline: new Date(op.info.authorizationExpiry * 1000).toISOString(),
        createdAt: now,
        updatedAt: now,
      }),
    );
  }

  private async afterSettled(hash: Hex, operation: string, txHash: string): Promise<void> {
    const state = await this.o.port.paymentState(hash).catch(() => undefined);
    const patch: Partial<AuthCaptureRecord> = { updatedAt: nowIso() };
    if (operation === 'authorize') Object.assign(patch, { authorizeTx: txHash || undefined });
    patch.state = state && state.collected && state.capturable === 0n ? 'closed' : 'open';
    await this.o.store.write(AuthCaptures, (t) => t.update(hash, patch)).catch((err: unknown) => this.o.logger.warn({ err, hash }, 'auth-capture record not updated'));
  }
}
