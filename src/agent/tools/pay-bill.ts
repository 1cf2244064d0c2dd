import type { BillPayment, BillsService } from '../../bills/bills.js';
import { PayBillInput } from '../../bills/bill-inputs.js';
import { formatMeterToken } from '../../bills/sandbox-provider.js';
import type { FxService } from '../../fx/rates.js';
import { formatUsdc, usdcDecimal } from '../../lib/money.js';
import { local, shortHash } from '../money-format.js';
import { amountIn, callMeta, checkInput, defineTool, withPreview, type ToolContext, type ToolFailure, type ToolOutcome, type ToolPreview, type ToolRun } from './contract.js';
import { findPhrase, hasLemma } from '../local/analysis.js';
import { buildBill } from '../local/build-bill.js';
import { amountPoints, BILL_NOUNS, shapesOf } from '../local/intent-shapes.js';
import { BILL_CUES } from '../local/lexicon.js';

/** pay_bill: a biller of the catalogue paid from the caller's wallet, with its receipt or token. */
export const payBill = defineTool({
  name: 'pay_bill',
  input: PayBillInput,
  action: 'bill',
  description:
    "Pay a bill (electricity, airtime, water, TV) from the user's own wallet. The account number is the meter, smartcard/IUC or phone number at the biller.",
  movesMoney: true,
  readOnly: false,
  local: {
    scored: {
      rank: 20,
      cues: BILL_CUES,
      // A biller by name says "bill" louder than a generic word ("airtime"); so does an account number.
      score: (a) => {
        const s = shapesOf(a);
        return (s.billerHit ? (s.namedBiller ? 4 : 2) : 0) + (s.accountLike ? 2 : 0) + (s.marketWord ? -3 : 0) + amountPoints(s);
      },
      gate: (a) => shapesOf(a).billerHit || hasLemma(a, ...BILL_NOUNS) || findPhrase(a, ['top', 'up']) >= 0,
      instruction: 'moves_money',
      build: buildBill,
    },
    wholeReading: true,
  },
  prompt: { line: "pay electricity, airtime, water or TV bills from the user's own wallet." },
  describe: (i) => `Pay ${amountIn(i.amount, i.currency, "the biller's currency")} to ${i.biller} for account ${i.account_number}.`,
  handler: (deps) => payBillHandler({ bills: deps.bills, fx: deps.fx, ...(deps.livemodeOfKey ? { livemodeOfKey: deps.livemodeOfKey } : {}) }),
});

const failed = (r: { reason: string; message: string }): ToolFailure => ({ ok: false, action: 'bill', reason: r.reason, message: r.message });

function billResult(fx: FxService, b: BillPayment): Record<string, unknown> {
  return {
    id: b.id,
    status: b.status,
    biller_id: b.billerId,
    biller: b.billerName,
    category: b.category,
    account_number: b.accountNumber,
    customer_name: b.customerName,
    amount: b.amount,
    currency: b.currency,
    amount_text: local(fx, b.amountMinor, b.currency),
    stablecoin: 'USDC',
    stablecoin_amount: usdcDecimal(b.stablecoinAmount),
    stablecoin_amount_base_units: b.stablecoinAmount,
    rate: b.rate,
    fee: '0',
    tx_hash: b.txHash ?? null,
    receipt_number: b.receipt?.receiptNumber ?? null,
    token: b.receipt?.token ?? null,
    units: b.receipt?.units ?? null,
    unit_label: b.receipt?.unitLabel ?? null,
    refund_tx_hash: b.refundTxHash ?? null,
    created_at: b.createdAt,
    completed_at: b.completedAt ?? null,
  };
}

function payBillHandler(deps: { bills: BillsService; fx: FxService; livemodeOfKey?: (keyId: string) => Promise<boolean> }): ToolRun<PayBillInput> {
  const { bills, fx } = deps;
  const run = async (input: unknown, ctx: ToolContext): Promise<ToolOutcome> => {
    const checked = checkInput(payBill, input);
    if (!checked.ok) return checked;
    // Under a spend policy the reservation is written in the bill's own transaction (spendInAction below).
    const res = await bills.pay(ctx.accountId, checked.input, { ...(await callMeta(ctx, deps.livemodeOfKey)), ...(ctx.spendSlot ? { spend: ctx.spendSlot } : {}) });
    if (!res.ok) return failed(res);
    const b = res.bill;
    const what = `${local(fx, b.amountMinor, b.currency)} to ${b.billerName} for ${b.accountNumber} (${b.customerName}): ${formatUsdc(b.stablecoinAmount)} at ${b.rate} ${b.currency}/USDC`;
    let summary: string;
    if (b.status === 'completed') {
      const r = b.receipt!;
      const token = r.token ? ` Token: ${formatMeterToken(r.token)}${r.units ? ` (${r.units} ${r.unitLabel ?? 'kWh'})` : ''}.` : '';
      summary = `Paid ${what}. Receipt ${r.receiptNumber}.${token} Tx ${shortHash(b.txHash!)}.`;
    } else if (b.status === 'paid') {
      summary = `Paid ${what} (tx ${shortHash(b.txHash!)}). ${b.billerName} has not issued the receipt yet; it will follow.`;
    } else {
      summary = `Submitted ${what}. Waiting for the network to confirm; nothing will be paid twice.`;
    }
    return { ok: true, action: 'bill', result: billResult(fx, b), summary };
  };
  const preview = async (input: unknown, ctx: ToolContext): Promise<ToolPreview> => {
    const checked = checkInput(payBill, input);
    if (!checked.ok) return checked;
    const q = await bills.quote(ctx.accountId, checked.input);
    if (!q.ok) return failed(q);
    const b = q.quote;
    return {
      ok: true,
      description:
        `Pay ${local(fx, b.amountMinor, b.biller.currency)} to ${b.biller.name} for ${b.biller.account.label.toLowerCase()} ${b.accountNumber} ` +
        `(${b.customerName}): ${formatUsdc(b.stablecoinAmount)} at ${b.rate} ${b.biller.currency}/USDC, no fee.`,
      details: {
        biller: b.biller.name,
        account_number: b.accountNumber,
        customer_name: b.customerName,
        amount: b.amount,
        currency: b.biller.currency,
        stablecoin_amount: usdcDecimal(b.stablecoinAmount),
        rate: b.rate,
        amount_text: local(fx, b.amountMinor, b.biller.currency),
        account_label: b.biller.account.label.toLowerCase(),
      },
    };
  };
  return Object.assign(withPreview(run, preview), { spendInAction: true });
}
