/**
 * The receipt part of the checkout page once a payment is paid: when, the transaction (explorer
 * link where the network has one, and Copy), who paid, and every refund with its amount, date
 * and transaction. Printable: the stylesheet's print rules keep only the card.
 */
import { timeText } from '../lib/time-text.js';
import { escapeHtml, hashHtml, row } from './html.js';

export interface RefundLine {
  /** "1,000.00 KES" */
  amountText: string;
  /** "7.74 USDC" */
  stablecoinText: string;
  status: 'pending' | 'succeeded';
  /** ISO time it succeeded (or was asked for, while pending). */
  at: string;
  txHash?: string;
  txUrl?: string;
}

export interface ReceiptModel {
  /** ISO time the payment settled. */
  paidAt?: string;
  txHash?: string;
  /** Explorer page of the transaction, when an explorer is configured. */
  txUrl?: string;
  payer?: string;
  payerUrl?: string;
  /** Refunds that succeeded or are on their way, oldest first. */
  refunds: RefundLine[];
  /** Total refunded so far ("1,000.00 KES"), when anything was. */
  refundedText?: string;
  refundedStablecoinText?: string;
}

export { timeText };

/** "Paid. The merchant refunded 1,000.00 KES of it on 26 Nov 2026, 21:04 UTC." and the like. */
export function paidStatusText(r: ReceiptModel | undefined, fullyRefunded: boolean): string | undefined {
  const done = r?.refunds.filter((x) => x.status === 'succeeded') ?? [];
  const last = done.at(-1);
  if (!r?.refundedText || !last) return r?.refunds.length ? 'Paid. A refund is on its way to your wallet.' : undefined;
  const when = timeText(last.at);
  return fullyRefunded
    ? `Paid, then refunded in full by the merchant (${r.refundedText}), last on ${when}.`
    : `Paid. The merchant refunded ${r.refundedText} of it, last on ${when}.`;
}

function refundsBlock(r: ReceiptModel): string {
  if (!r.refunds.length) return '';
  const items = r.refunds.map((x, i) => {
    const n = i + 1;
    return `<li class="refund" id="refund-${n}">
        <dl class="amounts">
          ${row('Refunded', `<span id="refund-${n}-amount">${escapeHtml(x.amountText)}</span><span class="sub">${escapeHtml(x.stablecoinText)}</span>`)}
          ${row(x.status === 'succeeded' ? 'Refunded on' : 'Asked for on', `<time id="refund-${n}-at" datetime="${escapeHtml(x.at)}">${escapeHtml(timeText(x.at))}</time>${x.status === 'pending' ? '<span class="sub">on its way to your wallet</span>' : ''}`)}
          ${x.txHash ? row('Refund transaction', hashHtml(`refund-${n}-tx`, x.txHash, x.txUrl, 'refund transaction')) : ''}
        </dl>
      </li>`;
  });
  return `<h3 id="refunds-title">Refunds</h3>
      ${r.refundedText ? `<p class="hint" id="refunded-total">Refunded so far: <strong>${escapeHtml(r.refundedText)}</strong>${r.refundedStablecoinText ? ` (${escapeHtml(r.refundedStablecoinText)})` : ''}, to the wallet that paid.</p>` : ''}
      <ol class="refunds" id="refunds" aria-labelledby="refunds-title">${items.join('')}</ol>`;
}

export function receiptBlock(r: ReceiptModel | undefined, id: string): string {
  if (!r) return '';
  const rows: string[] = [];
  if (r.paidAt) rows.push(row('Paid on', `<time id="paid-at" datetime="${escapeHtml(r.paidAt)}">${escapeHtml(timeText(r.paidAt))}</time>`));
  if (r.txHash) rows.push(row('Transaction', hashHtml('tx', r.txHash, r.txUrl), ' id="tx"'));
  if (r.payer) rows.push(row('Paid from', hashHtml('payer', r.payer, r.payerUrl, 'paying address'), ' id="payer"'));
  rows.push(row('Payment id', `<code id="receipt-id">${escapeHtml(id)}</code>`));
  return `<section class="receipt" id="receipt" aria-labelledby="receipt-title">
      <h2 id="receipt-title">Receipt</h2>
      <dl class="amounts">${rows.join('')}</dl>
      ${refundsBlock(r)}
      <p class="print-line"><button type="button" class="btn" id="print">Print or save as PDF</button></p>
    </section>`;
}
