import { z } from 'zod';
import { usdcDecimal } from '../../lib/money.js';
import { shortHash } from '../money-format.js';
import { checkInput, defineTool, withPreview, type ToolContext, type ToolOutcome, type ToolPreview, type ToolRun } from './contract.js';
import { OptionalAmount, OptionalCurrency, PaymentIdArg, baseToCurrency, bothSides, callerPayment, namedAmount, paymentFigures, paymentLabel } from './payment-ops.js';
import { MERCHANT_GROUP } from './payment-ops.js';
import { heldFailure, stepFailure, type HoldDeps } from './hold-ops.js';
import { detectPaymentOp } from '../local/detect-payment-op.js';

export const CapturePaymentInput = z
  .object({
    payment_id: PaymentIdArg,
    amount: OptionalAmount,
    currency: OptionalCurrency,
  })
  .strict();
export type CapturePaymentInput = z.infer<typeof CapturePaymentInput>;

/**
 * capture_payment: takes all or part of what an agent's authorization holds in escrow for one of
 * the caller's manual-capture payments (`POST /v1/payments/:id/capture`, docs/x402.md). What is
 * not captured stays held until it is voided or its deadline voids it.
 */
export const capturePayment = defineTool({
  name: 'capture_payment',
  input: CapturePaymentInput,
  action: 'payment',
  description:
    "Capture all or part of the money held for one of the user's authorized (manual-capture) payments, moving it from escrow to the user. Use when the user asks to capture or collect a held payment by its id (pay_...).",
  movesMoney: true,
  readOnly: false,
  // The merchant's own payment by id, with its own complete reading (payment-ops.ts), before the read-only questions.
  local: { detect: { rank: 10, run: (a, ctx) => detectPaymentOp(a, ctx, 'capture_payment') } },
  prompt: { group: MERCHANT_GROUP },
  describe: (i) => `Capture ${i.amount ? `${i.amount}${i.currency ? ` ${i.currency}` : ''}` : 'everything held'} of payment ${i.payment_id}.`,
  handler: (deps) => captureHandler(deps),
});

function captureHandler(deps: HoldDeps): ToolRun<CapturePaymentInput> {
  const prepare = async (input: unknown, ctx: ToolContext) => {
    const checked = checkInput(capturePayment, input);
    if (!checked.ok) return checked;
    const found = await callerPayment(deps, ctx, checked.input.payment_id, 'payment');
    if (!found.ok) return found;
    const p = found.payment;
    const held = heldFailure(deps, p);
    if (held) return held;
    const decimals = deps.fx.currency(p.currency)?.decimals ?? 2;
    const heldBase = BigInt(p.amountCapturable ?? '0');
    const i = checked.input;
    const amount = i.amount !== undefined ? namedAmount(p, decimals, i.amount, i.currency, 'payment') : { ok: true as const, amount: baseToCurrency(p, heldBase, decimals), base: heldBase };
    if (!amount.ok) return amount;
    if (amount.base <= 0n || amount.base > heldBase) {
      return { ok: false as const, action: 'payment' as const, reason: 'invalid_amount', message: `Payment ${p.id} holds ${usdcDecimal(heldBase)} USDC: capture more than 0 and at most that.` };
    }
    return { ok: true as const, input: i, payment: p, amount, heldBase, decimals };
  };

  const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const ready = await prepare(input, ctx);
    if (!ready.ok) return ready;
    const { payment: p, amount } = ready;
    const done = await deps.manualCapture!()!.capture(p, amount.base);
    if (!done.ok) return stepFailure(p, 'capture', done);
    const after = done.payment;
    const left = BigInt(after.amountCapturable ?? '0');
    const rest = left > 0n ? ` ${usdcDecimal(left)} USDC stays held until you void it${after.captureBefore ? ` or until ${after.captureBefore}` : ''}.` : '';
    const tx = done.settle.transaction ? ` (tx ${shortHash(done.settle.transaction)})` : '';
    return {
      ok: true,
      action: 'payment',
      result: { ...paymentFigures(after), captured_now: usdcDecimal(amount.base), tx_hash: done.settle.transaction || null },
      summary: `Captured ${bothSides(amount.amount, p.currency, amount.base)} of payment ${p.id}${tx}.${rest}`,
    };
  };

  const preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const ready = await prepare(input, ctx);
    if (!ready.ok) return ready;
    const { payment: p, amount, heldBase, decimals } = ready;
    const left = heldBase - amount.base;
    const held = bothSides(baseToCurrency(p, heldBase, decimals), p.currency, heldBase);
    const rest = left > 0n ? ` ${usdcDecimal(left)} USDC stays held until you void it${p.captureBefore ? ` or until ${p.captureBefore}` : ''}.` : '';
    return {
      ok: true,
      description: `Capture ${bothSides(amount.amount, p.currency, amount.base)} of the ${held} held for payment ${paymentLabel(p)}, into your wallet.${rest}`,
      details: { payment_id: p.id, amount: amount.amount, currency: p.currency, stablecoin_amount_base_units: amount.base.toString() },
      // The amount shown is the amount stored: a confirm captures exactly this.
      input: { payment_id: p.id, amount: amount.amount, currency: p.currency },
    };
  };
  return withPreview(run, preview);
}
