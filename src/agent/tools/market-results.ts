import type { FxService } from '../../fx/rates.js';
import type { Market, PayoutReport, Stake } from '../../markets/markets.js';
import { formatUsdc, usdcDecimal } from '../../lib/money.js';
import { local } from '../money-format.js';
import type { ToolFailure } from './contract.js';

/** What the market tools (create, stake, resolve, cancel, list_markets) share: their failure and result shapes. */

export const failed = (r: { reason: string; message: string }): ToolFailure => ({ ok: false, action: 'market', reason: r.reason, message: r.message });

export function stakeResult(fx: FxService, s: Stake, m: Market, escrow: string): Record<string, unknown> {
  return {
    id: s.id,
    market_id: m.id,
    question: m.question,
    outcome: s.outcomeLabel,
    status: s.status,
    amount: s.localAmount,
    currency: s.currency,
    amount_text: local(fx, s.localAmountMinor, s.currency),
    stablecoin: 'USDC',
    stablecoin_amount: usdcDecimal(s.amount),
    stablecoin_amount_base_units: s.amount,
    rate: s.rate,
    fee: '0',
    tx_hash: s.txHash ?? null,
    escrow_address: escrow,
  };
}

export function reportResult(r: PayoutReport) {
  return {
    paid: r.paid,
    unpaid: r.unpaid,
    total_paid_out: usdcDecimal(r.total),
    total_paid_out_base_units: r.total.toString(),
    payouts: r.payouts.map((p) => ({ ...p, amount: usdcDecimal(p.amount), amount_base_units: p.amount.toString() })),
  };
}

/** "Resolved ... 12.00 USDC paid from escrow to 3 stakes. Pool 12.00 USDC." */
export const settleSummary = (verb: string, m: Market, r: PayoutReport): string =>
  `${verb} ${formatUsdc(r.total)} paid from escrow to ${r.paid} stake${r.paid === 1 ? '' : 's'}` +
  (r.unpaid ? `; ${r.unpaid} payout${r.unpaid === 1 ? ' is' : 's are'} still being confirmed and will be retried` : '') +
  `. Pool ${formatUsdc(m.totalPool)}.`;
