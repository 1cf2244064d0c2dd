import type { PaymentDetail } from '../dashboard-data.js';
import { escapeHtml, layout, type SignedInAccount } from '../layout.js';
import { formatAmount, groupThousands } from '../../lib/money.js';
import { hashHtml, shareHtml, timeHtml } from '../format.js';

export interface PaymentPageExtras {
  /** "5,000.00 KES" */
  amountText: string;
  /** What is still refundable in the payment's currency (decimal text), when it can be refunded. */
  refundable?: string;
  /** "0.00 KES" */
  refundedText: string;
  /** Decimal places of the payment's currency (the refund field's step). */
  decimals: number;
  /** Why a settled payment cannot be refunded from here. */
  refundBlocked?: string;
}



const utc = timeHtml;

function link(href: string | null | undefined, text: string, external = true): string {
  if (!href) return escapeHtml(text);
  return `<a href="${escapeHtml(href)}"${external ? ' rel="noopener noreferrer" target="_blank"' : ''}>${escapeHtml(text)}${external ? '<span class="visually-hidden"> (opens in a new tab)</span>' : ''}</a>`;
}

const badge = (status: string) => `<span class="badge badge-${escapeHtml(status.replace(/[^a-z_]/g, ''))}">${escapeHtml(status)}</span>`;

function fact(label: string, valueHtml: string, id?: string): string {
  return `<div><dt>${escapeHtml(label)}</dt><dd${id ? ` id="${id}"` : ''}>${valueHtml}</dd></div>`;
}

function actions(d: PaymentDetail, x: PaymentPageExtras): string {
  const p = d.payment;
  const parts: string[] = [];
  if (x.refundable !== undefined) {
    const step = x.decimals > 0 ? `0.${'0'.repeat(x.decimals - 1)}1` : '1';
    parts.push(`<form class="refund-form" id="refund-form" data-payment-id="${escapeHtml(p.id)}" data-currency="${escapeHtml(p.currency)}" data-max="${escapeHtml(x.refundable)}" novalidate>
    <h3 id="refund-title">Refund</h3>
    <p class="hint" id="refund-amount-hint">Up to ${escapeHtml(groupThousands(x.refundable))} ${escapeHtml(p.currency)}, paid back on-chain to the wallet that paid, at the rate locked at checkout. Leave the amount as it is for a full refund.</p>
    <div class="inline-form">
      <div class="field">
        <label for="refund-amount">Amount to refund (${escapeHtml(p.currency)})</label>
        <input type="text" inputmode="decimal" id="refund-amount" name="amount" value="${escapeHtml(x.refundable)}" data-step="${step}" aria-describedby="refund-amount-hint refund-amount-error" autocomplete="off">
        <p class="field-error" id="refund-amount-error" hidden></p>
      </div>
      <div class="field">
        <label for="refund-reason">Reason (optional)</label>
        <input type="text" id="refund-reason" name="reason" maxlength="200" autocomplete="off">
      </div>
      <button type="submit" class="btn btn-danger" id="refund-open">Refund…</button>
    </div>
  </form>`);
  }
  if (p.status === 'pending') {
    // The link to hand the customer while the session is open (issue 27).
    parts.push(`<div class="share-box">
    <h3 id="share-title">Payment link</h3>
    <p class="hint">Send it to your customer; it works until the session expires.</p>
    ${shareHtml('pay-link', p.checkout_url)}
  </div>`);
    parts.push(`<div class="cancel-box">
    <h3>Cancel</h3>
    <p class="hint" id="cancel-hint">Closes the checkout session: the customer can no longer pay it.</p>
    <button type="button" class="btn btn-danger-quiet" id="cancel-open" data-payment-id="${escapeHtml(p.id)}" aria-describedby="cancel-hint">Cancel payment…</button>
  </div>`);
  }
  const held = p.capture_method === 'manual' ? Number(p.amount_capturable) : 0;
  if (held > 0) {
    parts.push(`<div class="hold-box" id="hold-box">
    <h3>Held in escrow</h3>
    <p class="hint">${escapeHtml(formatAmount(p.amount_capturable!, 'USDC'))} is held for you. Capture all or part of it, or void it back to the payer, with the API (<code>POST /v1/payments/${escapeHtml(p.id)}/capture</code>, <code>/void</code>) or ask the assistant: “capture ${escapeHtml(p.id)}”, “void the hold on ${escapeHtml(p.id)}”. You confirm before anything moves.</p>
  </div>`);
  }
  if (!parts.length) {
    const why = x.refundBlocked
      ? x.refundBlocked
      : (p.status as string) === 'refunded'
        ? 'This payment has been fully refunded.'
        : p.status === 'processing'
          ? 'The payment is being confirmed on the network; actions are available once it settles.'
          : 'There is nothing to refund or cancel for this payment.';
    parts.push(`<p class="hint" id="no-actions">${why}</p>`);
  }
  return `<section class="card" aria-labelledby="actions-title">
  <h2 id="actions-title">Actions</h2>
  <p class="status-line" id="action-status" role="status" aria-live="polite"></p>
  ${parts.join('\n')}
</section>
<dialog class="dialog" id="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-text">
  <h2 id="confirm-title">Confirm</h2>
  <p id="confirm-text"></p>
  <p class="form-error" id="confirm-error" role="alert"></p>
  <div class="dialog-actions">
    <button type="button" class="btn" id="confirm-cancel">Keep the payment</button>
    <button type="button" class="btn btn-danger" id="confirm-ok">Confirm</button>
  </div>
</dialog>`;
}

/** Manual capture's amounts (x402 auth-capture): held now, captured, voided, and the automatic void's time. */
function manualFacts(p: PaymentDetail['payment']): string {
  if (p.capture_method !== 'manual') return '';
  const usdc = (v: string | undefined) => escapeHtml(formatAmount(v ?? '0', 'USDC'));
  const until = p.capture_before && Number(p.amount_capturable) > 0 ? ` <span class="sub">voided automatically at ${utc(p.capture_before)}</span>` : '';
  return [
    fact('Held', `${usdc(p.amount_capturable)}${until}`, 'd-held'),
    fact('Captured', usdc(p.amount_captured), 'd-captured'),
    fact('Voided', `${usdc(p.amount_voided)} <span class="sub">back to the payer</span>`, 'd-voided'),
  ].join('\n      ');
}

/** One payment: amounts in both currencies, actions, details, metadata, timeline, events and deliveries. */
export function paymentPage(account: SignedInAccount, d: PaymentDetail, x: PaymentPageExtras): string {
  const p = d.payment;
  const meta = Object.entries(p.metadata);
  const timeline = d.timeline
    .map(
      (t) => `<li class="tl-${escapeHtml(t.kind)}"><span class="tl-time">${utc(t.at)}</span> <strong>${escapeHtml(t.title)}</strong>${
        t.detail ? ` <span class="tl-detail wrap">${escapeHtml(t.detail)}</span>` : ''
      }${t.link ? ` ${link(t.link.href, t.link.text)}` : ''}</li>`,
    )
    .join('');
  const events = d.events.length
    ? d.events
        .map(
          (e) => `<li class="event"><div><strong>${escapeHtml(e.type)}</strong> <code class="wrap">${escapeHtml(e.id)}</code> · ${utc(e.created_at)}</div>${
            e.deliveries.length
              ? `<ul class="deliveries">${e.deliveries
                  .map(
                    (dl) => `<li><span class="wrap">${escapeHtml(dl.url)}</span> ${badge(dl.status)}${
                      dl.attempts.length
                        ? `<ol class="attempts">${dl.attempts
                            .map(
                              (a) =>
                                `<li>${utc(a.at)}: ${a.succeeded ? 'delivered' : 'failed'}${a.status_code !== null ? `, HTTP ${a.status_code}` : ''}${
                                  // The error of a non-2xx answer is just its status again.
                                  a.error && a.error !== `HTTP ${a.status_code}` ? `, ${escapeHtml(a.error)}` : ''
                                } (${a.latency_ms} ms)</li>`,
                            )
                            .join('')}</ol>`
                        : '<p class="hint">Not attempted yet.</p>'
                    }${dl.next_attempt_at ? `<p class="hint">Next attempt ${utc(dl.next_attempt_at)}</p>` : ''}</li>`,
                  )
                  .join('')}</ul>`
              : '<p class="hint">No webhook endpoint was set, so nothing was delivered.</p>'
          }</li>`,
        )
        .join('')
    : '';
  return layout({
    title: `Payment ${p.reference ?? p.id}`,
    account,
    active: 'dashboard',
    scripts: ['payment.js', 'share.js'],
    body: `<p class="crumbs"><a href="/app">← Payments</a></p>
<div class="payment-head">
  <h1><span id="p-amount">${escapeHtml(x.amountText)}</span> ${badge(p.status)}</h1>
  <p class="lede wrap">${escapeHtml(p.description ?? p.reference ?? p.id)}</p>
</div>
<div class="grid-2">
  <section class="card" aria-labelledby="amounts-title">
    <h2 id="amounts-title">Amounts</h2>
    <dl class="facts">
      ${fact('Amount', escapeHtml(x.amountText), 'd-amount')}
      ${fact('Stablecoin', escapeHtml(formatAmount(p.stablecoin_amount, 'USDC')), 'd-stablecoin')}
      ${fact('Rate', `1 USDC = ${escapeHtml(groupThousands(p.rate))} ${escapeHtml(p.currency)} <span class="sub">locked at creation</span>`, 'd-rate')}
      ${fact('Refunded', `${escapeHtml(x.refundedText)} <span class="sub">${escapeHtml(formatAmount(p.stablecoin_refunded, 'USDC'))}</span>`, 'd-refunded')}
      ${manualFacts(p)}
    </dl>
  </section>
  ${actions(d, x)}
</div>
<section class="card" aria-labelledby="details-title">
  <h2 id="details-title">Details</h2>
  <dl class="facts facts-wide">
    ${fact('Payment id', `<code class="wrap">${escapeHtml(p.id)}</code>`, 'd-id')}
    ${fact('Reference', escapeHtml(p.reference ?? '—'), 'd-reference')}
    ${fact('Created', utc(p.created_at))}
    ${fact('Expires', utc(p.expires_at))}
    ${fact('Settled', utc(p.settled_at))}
    ${fact('Network', escapeHtml(d.network.name), 'd-network')}
    ${fact('Paid from', p.payer ? link(p.payer_url, p.payer) : '—', 'd-payer')}
    ${fact('Transaction', p.tx_hash ? link(p.tx_url, p.tx_hash) : '—', 'd-tx')}
    ${fact('Checkout page', link(p.checkout_url, 'Open the checkout page', false), 'd-checkout')}
    ${fact('Redirect URL', `<span class="wrap">${escapeHtml(p.redirect_url)}</span>`)}
    ${p.payout_address ? fact('Payout address', `<code class="wrap">${escapeHtml(p.payout_address)}</code>`) : ''}
    ${p.webhook_url ? fact('Webhook URL', `<span class="wrap">${escapeHtml(p.webhook_url)}</span>`) : ''}
    ${p.failure_reason ? fact('Failure', escapeHtml(p.failure_reason)) : ''}
  </dl>
</section>
<section class="card" aria-labelledby="metadata-title">
  <h2 id="metadata-title">Metadata</h2>
  ${
    meta.length
      ? `<dl class="facts facts-wide" id="metadata">${meta.map(([k, v]) => fact(k, `<span class="wrap">${escapeHtml(String(v))}</span>`)).join('')}</dl>`
      : '<p class="hint" id="metadata">No metadata.</p>'
  }
</section>
${
  d.refunds.length
    ? `<section class="card" aria-labelledby="refunds-title">
  <h2 id="refunds-title">Refunds</h2>
  <table class="rtable" id="refunds-table">
    <caption class="visually-hidden">Refunds of this payment, oldest first</caption>
    <thead><tr><th scope="col">Created</th><th scope="col">Amount</th><th scope="col" class="col-status">Status</th><th scope="col">Reason</th><th scope="col">Transaction</th></tr></thead>
    <tbody>${d.refunds
      .map(
        (r) => `<tr data-refund-id="${escapeHtml(r.id)}"><td data-label="Created">${utc(r.created_at)}</td><td data-label="Amount"><div><span class="amount">${escapeHtml(groupThousands(r.amount))} ${escapeHtml(r.currency)}</span><span class="sub">${escapeHtml(formatAmount(r.stablecoin_amount, 'USDC'))}</span></div></td><td data-label="Status" class="col-status">${badge(r.status)}</td><td data-label="Reason" class="wrap">${escapeHtml(r.reason ?? r.failure_reason ?? '—')}</td><td data-label="Transaction">${r.tx_hash ? hashHtml(r.tx_hash, r.tx_url ?? undefined) : '—'}</td></tr>`,
      )
      .join('')}</tbody>
  </table>
</section>`
    : ''
}
<section class="card" aria-labelledby="timeline-title">
  <h2 id="timeline-title">Timeline</h2>
  <ol class="timeline" id="timeline">${timeline}</ol>
</section>
<section class="card" aria-labelledby="events-title">
  <h2 id="events-title">Events and deliveries</h2>
  ${events ? `<ol class="events" id="events">${events}</ol>` : '<p class="hint" id="events">No events yet.</p>'}
</section>`,
  });
}
