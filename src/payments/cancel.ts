/**
 * Canceling a pending payment (DESIGN.md 10, docs/payments-cancel.md).
 *
 * `pending -> canceled` is a compare-and-set like every other transition, and settlement moves
 * a payment `pending -> processing` the same way before it relays anything. So either the
 * cancel wins (the settle call then reads `canceled` and sends nothing) or the settle did (the
 * cancel is refused as "processing"). The outbox records `payment.canceled` in the same
 * transaction.
 */
import { z } from 'zod';
import type { Address, Hex } from 'viem';
import { fail, type Result } from '../lib/results.js';
import { hasSettleAttempt, type Payment, type PaymentsService } from './payments.js';

export const CancelPaymentInput = z
  .object({
    reason: z
      .string({ message: 'reason must be a string' })
      .min(1, 'reason must be 1-300 characters')
      .max(300, 'reason must be at most 300 characters')
      .optional()
      .describe('Why the session was called off (kept with the payment as `cancellation_reason`).'),
  })
  .strict();
export type CancelPaymentInput = z.infer<typeof CancelPaymentInput>;

export const CancelReason = {
  notFound: 'not_found',
  /** Settled (or refunded): the money moved; a refund gives it back. */
  settled: 'settled',
  /** A settlement is on its way on-chain right now. */
  processing: 'processing',
  /** Already over (`failed`, `expired`). */
  finished: 'finished',
  /** An earlier settle attempt's authorization was used on-chain: the payment settles. */
  usedOnChain: 'used_on_chain',
  chainUnavailable: 'chain_unavailable',
} as const;
export type CancelReason = (typeof CancelReason)[keyof typeof CancelReason];

/** What the cancel needs from the chain: whether a payer's authorization for this payment was used. */
export interface AuthorizationReader {
  authorizationState(authorizer: Address, nonce: Hex): Promise<boolean>;
}

export class PaymentCancellation {
  constructor(
    private readonly payments: PaymentsService,
    private readonly chain: AuthorizationReader,
    /** The EIP-3009 nonce settlement issues for a payment (SettlementService.nonceFor). */
    private readonly nonceFor: (paymentId: string) => Hex,
  ) {}

  /** Cancels the account's pending payment; canceling a canceled one returns it again. */
  async cancel(accountId: string, id: string, input: CancelPaymentInput = {}, livemode = true): Promise<Result<{ payment: Payment }, CancelReason>> {
    const p = await this.payments.getForAccount(accountId, id, livemode);
    if (!p) return fail(CancelReason.notFound, `No such payment: ${id}`);
    const refused = refusal(p);
    if (refused) return refused;
    if (p.status === 'canceled') return { ok: true, payment: p };

    if (hasSettleAttempt(p)) {
      // A wallet's authorization for this payment was relayed once and may have reached the
      // chain after all (docs/settlement.md, "Expiry after a settle attempt"). Money that moved
      // must settle the payment, not vanish behind a `canceled` status.
      let used: boolean;
      try {
        used = await this.anyAuthorizationUsed(p);
      } catch {
        return fail(CancelReason.chainUnavailable, 'The chain could not be reached to check an earlier payment attempt; try again shortly.');
      }
      if (used) {
        return fail(
          CancelReason.usedOnChain,
          'The customer already paid on-chain; the payment is being settled. Refund it once it is settled: POST /api/v1/payments/{id}/refunds.'.replace('{id}', p.id),
        );
      }
    }
    const canceled = await this.payments.transition(p.id, 'pending', 'canceled', {
      canceledAt: new Date().toISOString(),
      ...(input.reason !== undefined ? { cancellationReason: input.reason } : {}),
    });
    if (canceled) return { ok: true, payment: canceled };
    // Lost a race (a settle started, the sweeper expired it, or another cancel): answer from now.
    const now = await this.payments.getForAccount(accountId, id, livemode);
    if (!now) return fail(CancelReason.notFound, `No such payment: ${id}`);
    if (now.status === 'canceled') return { ok: true, payment: now };
    return refusal(now) ?? fail(CancelReason.processing, 'The payment changed state while canceling; read it and try again.');
  }

  private async anyAuthorizationUsed(p: Payment): Promise<boolean> {
    const nonce = this.nonceFor(p.id);
    for (const payer of p.attemptedBy ?? []) {
      if (await this.chain.authorizationState(payer as Address, nonce)) return true;
    }
    return false;
  }
}

/** Why a payment in this (effective) status cannot be canceled; undefined for pending and canceled. */
function refusal(p: Payment) {
  const refundHint = `Refund it instead: POST /api/v1/payments/${p.id}/refunds.`;
  switch (p.status) {
    case 'pending':
    case 'canceled':
      return undefined;
    case 'settled':
      return fail(CancelReason.settled, `This payment has settled and cannot be canceled. ${refundHint}`);
    case 'refunded':
      return fail(CancelReason.settled, 'This payment has settled and was refunded in full; there is nothing to cancel.');
    case 'processing':
      return fail(
        CancelReason.processing,
        'The customer is paying right now (the payment is processing) and it cannot be canceled. If it settles, refund it.',
      );
    case 'failed':
    case 'expired':
      return fail(CancelReason.finished, `This payment has ${p.status === 'failed' ? 'failed' : 'expired'}; only a pending payment can be canceled.`);
  }
}
