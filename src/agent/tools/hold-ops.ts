/**
 * What capture_payment and void_payment share: the manual-capture core (`ManualCaptureSessions`,
 * the one behind `POST /v1/payments/:id/capture` and `/void`), and its refusals in the tools' terms.
 */
import type { Payment } from '../../payments/payments.js';
import type { StepResult } from '../../x402/auth-capture/manual-capture-sessions.js';
import type { ToolDeps, ToolFailure } from './contract.js';

export type HoldDeps = Pick<ToolDeps, 'payments' | 'fx' | 'manualCapture' | 'livemodeOfKey'>;

/** Why nothing held can be taken or released for this payment, or undefined when something is held. */
export function heldFailure(deps: HoldDeps, p: Payment): ToolFailure | undefined {
  if (!deps.manualCapture?.()) return { ok: false, action: 'payment', reason: 'not_available', message: 'Manual capture is not available on this chain.' };
  if (p.captureMethod !== 'manual') {
    return { ok: false, action: 'payment', reason: 'not_capturable', message: `Payment ${p.id} is not a manual-capture payment: nothing is held for it (status ${p.status}).` };
  }
  if ((p.status !== 'authorized' && p.status !== 'captured') || BigInt(p.amountCapturable ?? '0') === 0n) {
    return { ok: false, action: 'payment', reason: 'not_capturable', message: `Nothing is held for payment ${p.id} (status ${p.status}).` };
  }
  return undefined;
}

/** A step the escrow did not take (or has not confirmed yet). */
export function stepFailure(p: Payment, step: 'capture' | 'void', done: Extract<StepResult, { ok: false }>): ToolFailure {
  if (done.status === 202) {
    return { ok: false, action: 'payment', reason: 'settlement_pending', message: `The ${step} of payment ${p.id} was sent and is not confirmed yet; check the payment in a moment, nothing will move twice.` };
  }
  const why = done.message ? `${done.message} (${done.reason})` : done.reason;
  return { ok: false, action: 'payment', reason: done.reason === 'not_capturable' || done.reason === 'not_voidable' ? 'not_capturable' : done.reason, message: `The ${step} of payment ${p.id} was not done: ${why}.` };
}
