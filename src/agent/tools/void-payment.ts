import { z } from 'zod';
import { usdcDecimal } from '../../lib/money.js';
import { shortHash } from '../money-format.js';
import { checkInput, defineTool, withPreview, type ToolContext, type ToolOutcome, type ToolPreview, type ToolRun } from './contract.js';
import { PaymentIdArg, baseToCurrency, bothSides, callerPayment, paymentFigures, paymentLabel } from './payment-ops.js';
import { MERCHANT_GROUP } from './payment-ops.js';
import { heldFailure, stepFailure, type HoldDeps } from './hold-ops.js';
import { detectPaymentOp } from '../local/detect-payment-op.js';

export const VoidPaymentInput = z.object({ payment_id: PaymentIdArg }).strict();
export type VoidPaymentInput = z.infer<typeof VoidPaymentInput>;

/**
 * void_payment: releases what one of the caller's manual-capture payments still holds in escrow
 * back to the payer (`POST /v1/payments/:id/void`, docs/x402.md). What was captured stays captured.
 */
export const voidPayment = defineTool({
  name: 'void_payment',
  input: VoidPaymentInput,
  action: 'payment',
  description:
    "Void the hold of one of the user's authorized (manual-capture) payments: what is not captured goes back to the payer. Use when the user asks to void, release or cancel the hold or authorization of a payment by its id (pay_...).",
  movesMoney: true,
  readOnly: false,
  // The merchant's own payment by id, with its own complete reading (payment-ops.ts), before the read-only questions.
  local: { detect: { rank: 10, run: (a, ctx) => detectPaymentOp(a, ctx, 'void_payment') } },
  prompt: { group: MERCHANT_GROUP },
  describe: (i) => `Release what payment ${i.payment_id} still holds back to its payer.`,
  handler: (deps) => voidHandler(deps),
});

function voidHandler(deps: HoldDeps): ToolRun<VoidPaymentInput> {
  const prepare = async (input: unknown, ctx: ToolContext) => {
    const checked = checkInput(voidPayment, input);
    if (!checked.ok) return checked;
    const found = await callerPayment(deps, ctx, checked.input.payment_id, 'payment');
    if (!found.ok) return found;
    const held = heldFailure(deps, found.payment);
    return held ?? { ok: true as const, payment: found.payment };
  };

  const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const ready = await prepare(input, ctx);
    if (!ready.ok) return ready;
    const p = ready.payment;
    const done = await deps.manualCapture!()!.void(p);
    if (!done.ok) return stepFailure(p, 'void', done);
    const after = done.payment;
    const released = BigInt(after.amountVoided ?? '0') - BigInt(p.amountVoided ?? '0');
    const tx = done.settle.transaction ? ` (tx ${shortHash(done.settle.transaction)})` : '';
    const kept = BigInt(after.amountCaptured ?? '0') > 0n ? ` The ${usdcDecimal(after.amountCaptured!)} USDC captured stays yours.` : '';
    return {
      ok: true,
      action: 'payment',
      result: { ...paymentFigures(after), voided_now: usdcDecimal(released > 0n ? released : 0n), tx_hash: done.settle.transaction || null },
      summary: `Released ${usdcDecimal(released > 0n ? released : 0n)} USDC held for payment ${p.id} back to the payer${tx}.${kept}`,
    };
  };

  const preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const ready = await prepare(input, ctx);
    if (!ready.ok) return ready;
    const p = ready.payment;
    const held = BigInt(p.amountCapturable ?? '0');
    const decimals = deps.fx.currency(p.currency)?.decimals ?? 2;
    return {
      ok: true,
      description: `Release the ${bothSides(baseToCurrency(p, held, decimals), p.currency, held)} still held for payment ${paymentLabel(p)} back to the payer${p.payer ? ` ${p.payer}` : ''}. Nothing more can be captured after that.`,
      details: { payment_id: p.id, amount: baseToCurrency(p, held, decimals), currency: p.currency, stablecoin_amount_base_units: held.toString() },
    };
  };
  return withPreview(run, preview);
}
