/**
 * The hosted checkout page (/pay/:id), rendered on the server. The page works as a status page
 * without JavaScript; assets/checkout.js adds the countdown and the wallet payment (the CSP
 * allows only same-origin scripts, so nothing is inline).
 */
import type { PaymentStatus } from '../payments/schemas.js';

export const ASSETS = '/pay/assets';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export interface CheckoutPageModel {
  id: string;
  merchantName: string;
  description: string;
  /** Already formatted, e.g. "5,000.00 KES". */
  amountText: string;
  /** Stablecoin amount rounded to cents for display, e.g. "38.68". */
  stablecoinText: string;
  /** The exact amount signed, e.g. "38.68472", when it is not a whole number of cents. */
  stablecoinExact?: string;
  tokenSymbol: string;
  currency: string;
  status: PaymentStatus;
  expiresAt: string;
  chainId: number;
  /** Dev-only "Pay with a test wallet" button. */
  testWallet: boolean;
  /** Where "Return to the merchant" goes; only for terminal states. */
  returnUrl?: string;
}

const STATUS_TEXT: Record<PaymentStatus, string> = {
  pending: 'Awaiting payment',
  processing: 'Your payment is being confirmed on the network…',
  settled: 'Paid. Thank you!',
  failed: 'This payment failed. Nothing was charged.',
  expired: 'This payment session has expired. Nothing was charged.',
  canceled: 'The merchant canceled this payment. Nothing was charged.',
  refunded: 'Paid, then refunded by the merchant.',
};

function remainingText(expiresAt: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

function shell(title: string, body: string, withScript: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}/checkout.css">
${withScript ? `<script type="module" src="${ASSETS}/checkout.js"></script>` : ''}
</head>
<body>
${body}
</body>
</html>`;
}

export function checkoutPage(m: CheckoutPageModel): string {
  const payable = m.status === 'pending';
  const approximate = m.stablecoinExact !== undefined;
  const attrs = [
    ['data-payment-id', m.id],
    ['data-status', m.status],
    ['data-expires-at', m.expiresAt],
    ['data-chain-id', String(m.chainId)],
    ['data-merchant', m.merchantName],
    ['data-test-wallet', m.testWallet ? 'true' : 'false'],
  ]
    .map(([k, v]) => `${k}="${escapeHtml(v)}"`)
    .join(' ');

  const actions = payable
    ? `<div class="actions" id="actions">
      <button type="button" class="btn btn-primary" id="pay-wallet">Pay with browser wallet</button>
      ${
        m.testWallet
          ? `<button type="button" class="btn" id="pay-test" aria-describedby="test-hint">Pay with a test wallet</button>
      <p class="hint" id="test-hint">Development only: a throwaway wallet is funded from the test faucet and pays for you.</p>`
          : ''
      }
    </div>`
    : '';

  const back =
    m.returnUrl && !payable && m.status !== 'processing'
      ? `<p class="return"><a class="btn btn-link" id="return" href="${escapeHtml(m.returnUrl)}">Return to ${escapeHtml(m.merchantName)}</a></p>`
      : '';

  const body = `<main id="main" class="checkout" ${attrs}>
  <section class="card" aria-labelledby="title">
    <p class="eyebrow">Secure checkout</p>
    <h1 id="title">Pay ${escapeHtml(m.merchantName)}</h1>
    ${m.description ? `<p class="description" id="description">${escapeHtml(m.description)}</p>` : ''}
    <dl class="amounts">
      <div class="row"><dt>Amount</dt><dd class="amount" id="amount">${escapeHtml(m.amountText)}</dd></div>
      <div class="row"><dt>You pay</dt><dd id="stablecoin-amount">${approximate ? '≈ ' : ''}${escapeHtml(m.stablecoinText)} ${escapeHtml(m.tokenSymbol)}</dd></div>
    </dl>
    ${approximate ? `<p class="hint exact" id="stablecoin-exact">Exact amount: ${escapeHtml(m.stablecoinExact ?? '')} ${escapeHtml(m.tokenSymbol)}</p>` : ''}
    ${
      payable
        ? `<p class="expiry" id="expiry">Expires in <time id="countdown" role="timer" aria-label="Time left to pay" datetime="${escapeHtml(m.expiresAt)}">${remainingText(m.expiresAt)}</time></p>`
        : ''
    }
    <p class="status status-${escapeHtml(m.status)}" id="status" role="status" aria-live="polite">${escapeHtml(STATUS_TEXT[m.status])}</p>
    <div class="error" id="error" role="alert" tabindex="-1" hidden></div>
    ${actions}
    ${back}
    ${
      payable
        ? `<p class="fine">You sign a one-time authorization to transfer exactly this amount of ${escapeHtml(m.tokenSymbol)}. No gas needed: network fees are paid for you.</p>`
        : ''
    }
  </section>
  <noscript><p class="fine">Paying needs JavaScript to talk to your wallet.</p></noscript>
</main>`;
  return shell(`Pay ${m.merchantName}`, body, true);
}

export function notFoundPage(id: string): string {
  return shell(
    'Payment not found',
    `<main id="main" class="checkout">
  <section class="card" aria-labelledby="title">
    <h1 id="title">Payment not found</h1>
    <p class="status" role="status">No such payment: ${escapeHtml(id)}. Check the link you were given.</p>
  </section>
</main>`,
    false,
  );
}
