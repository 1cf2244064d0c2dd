/**
 * The hosted checkout page (/pay/:id), rendered on the server. The page works as a status page
 * without JavaScript; assets/checkout.js adds the countdown, the wallet payments, Copy and Print
 * (the CSP allows only same-origin scripts, so nothing is inline). Headings, labels and the title
 * follow the payment's state: "Pay …" only while it can be paid, a receipt once it is paid.
 * The blocks live beside it: pay-options.ts (pending), receipt.ts (paid, refunds), html.ts.
 */
import type { PaymentStatus } from '../payments/payment-schemas.js';
import { ASSETS, escapeHtml, row, shell } from './html.js';
import { appWalletBlock, phoneBlock, type AppWalletModel, type DepositModel } from './pay-options.js';
import { paidStatusText, receiptBlock, timeText, type ReceiptModel } from './receipt.js';
import { captureRows, captureStatusText, type CaptureModel } from './capture.js';

export { ASSETS, escapeHtml };
export type { AppWalletModel, CaptureModel, DepositModel, ReceiptModel };

export interface CheckoutPageModel {
  id: string;
  merchantName: string;
  description: string;
  reference?: string;
  /** Already formatted, e.g. "5,000.00 KES". */
  amountText: string;
  /** Stablecoin amount rounded to cents for display, e.g. "38.68". */
  stablecoinText: string;
  /** The exact amount signed, e.g. "38.68472", when it is not a whole number of cents. */
  stablecoinExact?: string;
  tokenSymbol: string;
  currency: string;
  /** "1 USDC = 129.25 KES", locked when the payment was created. */
  rateText: string;
  status: PaymentStatus;
  expiresAt: string;
  /** When the merchant canceled it (canceled pages say when). */
  canceledAt?: string;
  chainId: number;
  networkName: string;
  /** This page's public URL: what the QR code and the wallet-app links open. */
  pageUrl: string;
  /** Inline SVG of a QR code of `pageUrl` (generated on the server from a fixed alphabet: no user text). */
  qrSvg?: string;
  /** The session's deposit address, for paying with a plain token transfer from any wallet app (EIP-681). */
  deposit?: DepositModel;
  /** Dev-only "Pay with a test wallet" button. */
  testWallet: boolean;
  /** A test key's payment (livemode false): the customer is told no real money moves. */
  testMode: boolean;
  /** Where "Return to the merchant" goes (with payment_id and status in the query). */
  returnUrl?: string;
  /** Signed in to the app: pay from that wallet. Undefined: offer to sign in. */
  appWallet?: AppWalletModel;
  /** Where "Sign in to pay from your StablePay wallet" goes. */
  loginUrl: string;
  receipt?: ReceiptModel;
  /** Manual capture (x402 auth-capture): held, captured and returned amounts. */
  capture?: CaptureModel;
  /** Just paid on this page: return to the merchant after a short, stoppable countdown. */
  autoReturn: boolean;
}

interface StateText {
  eyebrow: string;
  heading: (merchant: string) => string;
  status: string;
  /** Label of the stablecoin row. */
  payLabel: string;
  amountLabel: string;
}

const STATES: Record<string, StateText> = {
  pending: { eyebrow: 'Secure checkout', heading: (m) => `Pay ${m}`, status: 'Awaiting payment', payLabel: 'You pay', amountLabel: 'Amount' },
  processing: {
    eyebrow: 'Secure checkout',
    heading: () => 'Confirming your payment',
    status: 'Your payment is being confirmed on the network…',
    payLabel: 'Paying',
    amountLabel: 'Amount',
  },
  settled: { eyebrow: 'Receipt', heading: (m) => `Paid to ${m}`, status: 'Paid. Thank you!', payLabel: 'Paid', amountLabel: 'Amount paid' },
  refunded: {
    eyebrow: 'Receipt',
    heading: (m) => `Refunded by ${m}`,
    status: 'Paid, then refunded by the merchant.',
    payLabel: 'Paid',
    amountLabel: 'Amount paid',
  },
  failed: {
    eyebrow: 'Checkout',
    heading: () => 'Payment failed',
    status: 'This payment failed. Nothing was charged.',
    payLabel: 'Stablecoin amount',
    amountLabel: 'Amount',
  },
  expired: {
    eyebrow: 'Checkout',
    heading: () => 'Payment session expired',
    status: 'This payment session has expired. Nothing was charged.',
    payLabel: 'Stablecoin amount',
    amountLabel: 'Amount',
  },
  // Manual capture (x402 auth-capture): the money is held first, charged (captured) or released later.
  authorized: {
    eyebrow: 'Authorization',
    heading: (m) => `Authorized for ${m}`,
    status: 'Authorized: the amount is held, not yet charged.',
    payLabel: 'Authorized',
    amountLabel: 'Amount',
  },
  captured: { eyebrow: 'Receipt', heading: (m) => `Paid to ${m}`, status: 'Captured by the merchant.', payLabel: 'Authorized', amountLabel: 'Amount' },
  voided: {
    eyebrow: 'Authorization',
    heading: () => 'Authorization released',
    status: 'The held amount was returned to you. Nothing was charged.',
    payLabel: 'Authorized',
    amountLabel: 'Amount',
  },
  canceled: {
    eyebrow: 'Checkout',
    heading: () => 'Payment canceled',
    status: 'The merchant canceled this payment. Nothing was charged.',
    payLabel: 'Stablecoin amount',
    amountLabel: 'Amount',
  },
};

export function stateText(status: string): StateText {
  return STATES[status] ?? { ...STATES.failed!, heading: () => 'Payment', status: `Status: ${status}` };
}

function remainingText(expiresAt: string, now = Date.now()): string {
  const s = Math.max(0, Math.floor((Date.parse(expiresAt) - now) / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** What the exchange-rate row says under the rate: only a paid page was charged at it. */
function rateNote(status: string): string {
  if (status === 'pending' || status === 'processing') return 'locked for this session';
  if (status === 'settled' || status === 'refunded' || status === 'authorized' || status === 'captured' || status === 'voided') return 'locked at checkout';
  return 'quoted for this session';
}

/** The line under the amounts: what happened, with when, where the page knows it. */
function statusLine(m: CheckoutPageModel, text: StateText): string {
  const held = captureStatusText(m.status, m.capture, m.merchantName);
  if (held) return held;
  if (m.status === 'expired') return `This payment session expired on ${timeText(m.expiresAt)}. Nothing was charged.`;
  if (m.status === 'canceled' && m.canceledAt) return `The merchant canceled this payment on ${timeText(m.canceledAt)}. Nothing was charged.`;
  if (m.status === 'settled' || m.status === 'refunded') return paidStatusText(m.receipt, m.status === 'refunded') ?? text.status;
  return text.status;
}

/** States whose heading names the merchant: the title needs no second mention. */
const NAMED_IN_HEADING = new Set<string>(['settled', 'refunded', 'authorized', 'captured']);

export function checkoutPage(m: CheckoutPageModel): string {
  const payable = m.status === 'pending';
  const text = stateText(m.status);
  const approximate = m.stablecoinExact !== undefined;
  const autoReturn = m.autoReturn && !!m.returnUrl;
  const attrs = [
    ['data-payment-id', m.id],
    ['data-status', m.status],
    ['data-expires-at', m.expiresAt],
    ['data-chain-id', String(m.chainId)],
    ['data-network', m.networkName],
    ['data-merchant', m.merchantName],
    ['data-test-wallet', m.testWallet ? 'true' : 'false'],
    ['data-livemode', m.testMode ? 'false' : 'true'],
    ['data-return-url', m.returnUrl ?? ''],
    ['data-auto-return', autoReturn ? 'true' : 'false'],
    ['data-deposit-received', m.deposit?.received ?? ''],
  ]
    .map(([k, v]) => `${k}="${escapeHtml(v)}"`)
    .join(' ');

  const options = {
    amount: `${m.stablecoinExact ?? m.stablecoinText} ${m.tokenSymbol}`,
    tokenSymbol: m.tokenSymbol,
    networkName: m.networkName,
    pageUrl: m.pageUrl,
    qrSvg: m.qrSvg,
    deposit: m.deposit,
    appWallet: m.appWallet,
    loginUrl: m.loginUrl,
  };
  const actions = payable
    ? `<div class="actions" id="actions">
      <button type="button" class="btn btn-primary" id="pay-wallet">Pay with browser wallet</button>
      ${appWalletBlock(options)}
      ${
        m.testWallet
          ? `<button type="button" class="btn" id="pay-test" aria-describedby="test-hint">Pay with a test wallet</button>
      <p class="hint" id="test-hint">Development only: a throwaway wallet is funded from the test faucet and pays for you.</p>`
          : ''
      }
      ${phoneBlock(options)}
    </div>`
    : '';

  // While pending the customer may leave (and come back to this link while it is open); once
  // over, this is the way back. Never while a payment is being confirmed.
  const back = !m.returnUrl || m.status === 'processing'
    ? ''
    : payable
      ? `<p class="return return-pending"><a id="return" href="${escapeHtml(m.returnUrl)}">Return to ${escapeHtml(m.merchantName)} without paying</a></p>`
      : `<p class="return"><a class="btn btn-link" id="return" href="${escapeHtml(m.returnUrl)}">Return to ${escapeHtml(m.merchantName)}</a></p>`;
  // Just paid: the countdown to leaving and its Stay control sit at the top of the card, so
  // they are seen on any screen before the page leaves (WCAG 2.2.1).
  const leaving = autoReturn
    ? `<p class="auto-return" id="auto-return" hidden><span id="auto-return-text"></span> <button type="button" class="btn-inline" id="stay">Stay on this page</button></p>`
    : '';
  // Headings that name the merchant need no second line with the name.
  const heading = text.heading(m.merchantName);
  const merchantLine = heading.includes(m.merchantName) ? '' : `<p class="merchant-line" id="merchant-line">${escapeHtml(m.merchantName)}</p>`;

  const body = `<main id="main" class="checkout" ${attrs}>
  <section class="card" aria-labelledby="title">
    ${leaving}
    ${
      // A test key's session looks like any other: say so before anything else (Stripe's "Test mode" badge).
      m.testMode ? '<p class="test-mode" id="test-mode"><strong>Test mode.</strong> This is a test payment on a test network: no real money moves.</p>' : ''
    }
    <p class="eyebrow" id="eyebrow">${escapeHtml(text.eyebrow)}</p>
    <h1 id="title">${escapeHtml(heading)}</h1>
    ${merchantLine}
    ${m.description ? `<p class="description" id="description">${escapeHtml(m.description)}</p>` : ''}
    <dl class="amounts">
      <div class="row"><dt id="amount-label">${escapeHtml(text.amountLabel)}</dt><dd class="amount" id="amount">${escapeHtml(m.amountText)}</dd></div>
      <div class="row"><dt id="pay-label">${escapeHtml(text.payLabel)}</dt><dd><span id="stablecoin-amount">${approximate ? '≈ ' : ''}${escapeHtml(m.stablecoinText)} ${escapeHtml(m.tokenSymbol)}</span>${
        // Next to the rounded figure it qualifies, not below the table.
        approximate ? `<span class="sub" id="stablecoin-exact">Exact amount: ${escapeHtml(m.stablecoinExact ?? '')} ${escapeHtml(m.tokenSymbol)}</span>` : ''
      }</dd></div>
      ${captureRows(m.capture)}
      ${m.receipt?.refundedText ? row('Refunded', `<span id="refunded">${escapeHtml(m.receipt.refundedText)}</span>`) : ''}
      <div class="row"><dt>Exchange rate</dt><dd id="rate">${escapeHtml(m.rateText)}<span class="sub" id="rate-note">${rateNote(m.status)}</span></dd></div>
      <div class="row"><dt>Network</dt><dd id="network">${escapeHtml(m.networkName)}</dd></div>
      ${m.reference ? row('Order reference', `<span id="reference">${escapeHtml(m.reference)}</span>`) : ''}
    </dl>
    ${
      payable
        ? `<p class="expiry" id="expiry">Expires in <time id="countdown" role="timer" aria-label="Time left to pay" datetime="${escapeHtml(m.expiresAt)}">${remainingText(m.expiresAt)}</time></p>`
        : ''
    }
    <p class="status status-${escapeHtml(m.status)}" id="status" role="status" aria-live="polite">${escapeHtml(statusLine(m, text))}</p>
    <div class="error" id="error" role="alert" tabindex="-1" hidden></div>
    ${receiptBlock(m.receipt, m.id)}
    ${actions}
    ${back}
    ${
      payable
        ? `<p class="fine">You sign a one-time authorization to transfer exactly this amount of ${escapeHtml(m.tokenSymbol)} on ${escapeHtml(m.networkName)}. No gas needed: network fees are paid for you.</p>`
        : ''
    }
    <p class="copy-status visually-hidden" id="copy-status" role="status" aria-live="polite"></p>
  </section>
  <noscript><p class="fine">Paying needs JavaScript to talk to your wallet.</p></noscript>
</main>`;
  const title = payable ? `Pay ${m.merchantName}` : `${heading}${NAMED_IN_HEADING.has(m.status) ? '' : ` · ${m.merchantName}`}`;
  return shell(title, body, true);
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
