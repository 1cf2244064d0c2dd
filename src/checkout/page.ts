/**
 * The hosted checkout page (/pay/:id), rendered on the server. The page works as a status page
 * without JavaScript; assets/checkout.js adds the countdown and the wallet payments (the CSP
 * allows only same-origin scripts, so nothing is inline). Headings, labels and the title follow
 * the payment's state: "Pay …" only while it can be paid, a receipt once it is paid.
 */
import type { PaymentStatus } from '../payments/schemas.js';

export const ASSETS = '/pay/assets';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The signed-in customer's app wallet, when the visitor has an app session. */
export interface AppWalletModel {
  /** Shown as "Signed in as …". */
  name: string;
  /** "120.00 USDC" */
  balanceText: string;
  /** The balance covers this payment. */
  enough: boolean;
  /** The payment settles to this very wallet (the merchant looking at their own page). */
  own: boolean;
}

export interface ReceiptModel {
  /** ISO time the payment settled. */
  paidAt?: string;
  txHash?: string;
  /** Explorer page of the transaction, when an explorer is configured. */
  txUrl?: string;
  payer?: string;
  payerUrl?: string;
}

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
  /** Where "Return to the merchant" goes (with payment_id and status in the query). */
  returnUrl?: string;
  /** Signed in to the app: pay from that wallet. Undefined: offer to sign in. */
  appWallet?: AppWalletModel;
  /** Where "Sign in to pay from your StablePay wallet" goes. */
  loginUrl: string;
  receipt?: ReceiptModel;
  /** Just paid on this page: return to the merchant after a short, stoppable countdown. */
  autoReturn: boolean;
}

export interface DepositModel {
  address: string;
  /** `ethereum:<token>@<chainId>/transfer?address=<deposit>&uint256=<base units still due>`; absent once everything arrived. */
  uri?: string;
  /** Inline SVG of a QR code of `uri`. */
  qrSvg?: string;
  /** What to send, e.g. "12.50 USDC" (the rest, after a part arrived). */
  dueText: string;
  /** Received so far, e.g. "5.00 USDC"; undefined when nothing arrived. */
  receivedText?: string;
  /** Decimal text of what arrived (for the page script to notice a change). */
  received: string;
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

/** "26 Nov 2026, 21:04:05 UTC": the receipt's time, readable without JavaScript. */
function utcText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const date = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(d);
  const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false, timeZone: 'UTC' }).format(d);
  return `${date}, ${time} UTC`;
}

const short = (hex: string) => (hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-6)}` : hex);

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

function appWalletBlock(m: CheckoutPageModel): string {
  const amount = `${m.stablecoinExact ?? m.stablecoinText} ${m.tokenSymbol}`;
  if (!m.appWallet) {
    return `<p class="app-wallet-login"><a class="btn btn-link" id="app-wallet-login" href="${escapeHtml(m.loginUrl)}">Sign in to pay from your StablePay wallet</a></p>`;
  }
  const w = m.appWallet;
  if (w.own) {
    return `<p class="hint" id="app-wallet-hint">Signed in as ${escapeHtml(w.name)}. This payment goes to your own StablePay wallet, so pay it from another wallet.</p>`;
  }
  const note = w.enough
    ? `Signed in as ${escapeHtml(w.name)} · balance ${escapeHtml(w.balanceText)}`
    : `Signed in as ${escapeHtml(w.name)} · balance ${escapeHtml(w.balanceText)}, not enough for this payment`;
  return `<button type="button" class="btn" id="pay-app-wallet" aria-describedby="app-wallet-hint">Pay ${escapeHtml(amount)} from your StablePay wallet</button>
      <p class="hint" id="app-wallet-hint">${note}</p>`;
}

function phoneBlock(m: CheckoutPageModel): string {
  if (!m.qrSvg) return '';
  const url = new URL(m.pageUrl);
  const metamask = `https://metamask.app.link/dapp/${url.host}${url.pathname}`;
  const coinbase = `https://go.cb-w.com/dapp?cb_url=${encodeURIComponent(m.pageUrl)}`;
  // Open once part of the amount arrived at the deposit address: the customer is mid-payment.
  return `<details class="phone" id="phone"${m.deposit?.receivedText ? ' open' : ''}>
      <summary>Pay with a phone wallet</summary>
      <div class="phone-body">
        <div class="qr" id="qr" role="img" aria-label="QR code that opens this payment page">${m.qrSvg}</div>
        <div class="phone-text">
          <p>Scan with your wallet app’s scanner to open this page in its browser, then choose <strong>Pay with browser wallet</strong>. You sign the same one-time authorization; no gas needed.</p>
          <p class="wallet-links">On this phone: <a href="${escapeHtml(metamask)}" id="open-metamask" rel="noopener">Open in MetaMask</a> · <a href="${escapeHtml(coinbase)}" id="open-coinbase" rel="noopener">Open in Coinbase Wallet</a></p>
        </div>
      </div>
      ${depositBlock(m)}
    </details>`;
}

/**
 * The EIP-681 path: a plain transfer to this session's own deposit address, which the service
 * watches (docs/checkout.md). The customer pays gas in the native coin, so it comes second.
 */
function depositBlock(m: CheckoutPageModel): string {
  const d = m.deposit;
  if (!d) return '';
  // The whole amount arrived and is being confirmed: no second QR code or link to pay again.
  if (!d.uri) {
    return `<div class="phone-body deposit" id="deposit">
        <p class="deposit-received" id="deposit-received"><strong>Received ${escapeHtml(d.receivedText ?? d.dueText)}.</strong> Your transfer arrived; the payment is being confirmed on the network. This page updates by itself. Do not send it again.</p>
      </div>`;
  }
  const received = d.receivedText
    ? `<p class="deposit-received" id="deposit-received"><strong>Received so far: ${escapeHtml(d.receivedText)}.</strong> Send the remaining ${escapeHtml(d.dueText)} to the same address.</p>`
    : '';
  return `<div class="phone-body deposit" id="deposit">
        ${d.qrSvg ? `<div class="qr" id="deposit-qr" role="img" aria-label="QR code of a ${escapeHtml(d.dueText)} transfer to this payment's address">${d.qrSvg}</div>` : ''}
        <div class="phone-text">
          <p><strong>Or send ${escapeHtml(m.tokenSymbol)} from any wallet app.</strong> Scan with the wallet (not the camera) to fill in a transfer of <strong>${escapeHtml(d.dueText)}</strong> on ${escapeHtml(m.networkName)} to this payment’s own address:</p>
          <p><code class="deposit-address" id="deposit-address">${escapeHtml(d.address)}</code></p>
          <p>This way you pay the network fee in the network’s own coin (such as ETH). The payment is confirmed once the transfer arrives; anything sent after the session ends is sent back.</p>
          <p><a href="${escapeHtml(d.uri)}" id="deposit-link" rel="noopener">Open the transfer in your wallet app</a></p>
          ${received}
        </div>
      </div>`;
}

function receiptBlock(m: CheckoutPageModel): string {
  const r = m.receipt;
  if (!r) return '';
  const rows: string[] = [];
  if (r.paidAt) rows.push(`<div class="row"><dt>Paid on</dt><dd><time id="paid-at" datetime="${escapeHtml(r.paidAt)}">${escapeHtml(utcText(r.paidAt))}</time></dd></div>`);
  if (r.txHash) {
    const hash = `<code title="${escapeHtml(r.txHash)}">${escapeHtml(short(r.txHash))}</code>`;
    rows.push(
      `<div class="row"><dt>Transaction</dt><dd id="tx">${
        r.txUrl
          ? `<a id="tx-link" href="${escapeHtml(r.txUrl)}" rel="noopener noreferrer" target="_blank">${hash}<span class="visually-hidden"> (opens the block explorer in a new tab)</span></a>`
          : hash
      }</dd></div>`,
    );
  }
  if (r.payer) {
    const payer = `<code title="${escapeHtml(r.payer)}">${escapeHtml(short(r.payer))}</code>`;
    rows.push(
      `<div class="row"><dt>Paid from</dt><dd id="payer">${r.payerUrl ? `<a href="${escapeHtml(r.payerUrl)}" rel="noopener noreferrer" target="_blank">${payer}</a>` : payer}</dd></div>`,
    );
  }
  rows.push(`<div class="row"><dt>Payment id</dt><dd><code id="receipt-id">${escapeHtml(m.id)}</code></dd></div>`);
  if (m.reference) rows.push(`<div class="row"><dt>Reference</dt><dd id="receipt-reference">${escapeHtml(m.reference)}</dd></div>`);
  return `<section class="receipt" id="receipt" aria-labelledby="receipt-title">
      <h2 id="receipt-title">Receipt</h2>
      <dl class="amounts">${rows.join('')}</dl>
    </section>`;
}

export function checkoutPage(m: CheckoutPageModel): string {
  const payable = m.status === 'pending';
  const text = stateText(m.status);
  const approximate = m.stablecoinExact !== undefined;
  const attrs = [
    ['data-payment-id', m.id],
    ['data-status', m.status],
    ['data-expires-at', m.expiresAt],
    ['data-chain-id', String(m.chainId)],
    ['data-network', m.networkName],
    ['data-merchant', m.merchantName],
    ['data-test-wallet', m.testWallet ? 'true' : 'false'],
    ['data-return-url', m.returnUrl ?? ''],
    ['data-auto-return', m.autoReturn && m.returnUrl ? 'true' : 'false'],
    ['data-deposit-received', m.deposit?.received ?? ''],
  ]
    .map(([k, v]) => `${k}="${escapeHtml(v)}"`)
    .join(' ');

  const actions = payable
    ? `<div class="actions" id="actions">
      <button type="button" class="btn btn-primary" id="pay-wallet">Pay with browser wallet</button>
      ${appWalletBlock(m)}
      ${
        m.testWallet
          ? `<button type="button" class="btn" id="pay-test" aria-describedby="test-hint">Pay with a test wallet</button>
      <p class="hint" id="test-hint">Development only: a throwaway wallet is funded from the test faucet and pays for you.</p>`
          : ''
      }
      ${phoneBlock(m)}
    </div>`
    : '';

  // While pending the customer may leave (and come back to this link while it is open); once
  // over, this is the way back. Never while a payment is being confirmed.
  const back = !m.returnUrl || m.status === 'processing'
    ? ''
    : payable
      ? `<p class="return return-pending"><a id="return" href="${escapeHtml(m.returnUrl)}">Return to ${escapeHtml(m.merchantName)} without paying</a></p>`
      : `<p class="return"><a class="btn btn-link" id="return" href="${escapeHtml(m.returnUrl)}">Return to ${escapeHtml(m.merchantName)}</a></p>
    <p class="hint auto-return" id="auto-return" hidden><span id="auto-return-text"></span> <button type="button" class="btn-inline" id="stay">Stay on this page</button></p>`;

  const body = `<main id="main" class="checkout" ${attrs}>
  <section class="card" aria-labelledby="title">
    <p class="eyebrow" id="eyebrow">${escapeHtml(text.eyebrow)}</p>
    <h1 id="title">${escapeHtml(text.heading(m.merchantName))}</h1>
    ${m.status !== 'pending' ? `<p class="merchant-line" id="merchant-line">${escapeHtml(m.merchantName)}</p>` : ''}
    ${m.description ? `<p class="description" id="description">${escapeHtml(m.description)}</p>` : ''}
    <dl class="amounts">
      <div class="row"><dt id="amount-label">${escapeHtml(text.amountLabel)}</dt><dd class="amount" id="amount">${escapeHtml(m.amountText)}</dd></div>
      <div class="row"><dt id="pay-label">${escapeHtml(text.payLabel)}</dt><dd><span id="stablecoin-amount">${approximate ? '≈ ' : ''}${escapeHtml(m.stablecoinText)} ${escapeHtml(m.tokenSymbol)}</span>${
        // Next to the rounded figure it qualifies, not below the table.
        approximate ? `<span class="sub" id="stablecoin-exact">Exact amount: ${escapeHtml(m.stablecoinExact ?? '')} ${escapeHtml(m.tokenSymbol)}</span>` : ''
      }</dd></div>
      <div class="row"><dt>Exchange rate</dt><dd id="rate">${escapeHtml(m.rateText)}<span class="sub" id="rate-note">${payable ? 'locked for this session' : 'locked at checkout'}</span></dd></div>
      <div class="row"><dt>Network</dt><dd id="network">${escapeHtml(m.networkName)}</dd></div>
    </dl>
    ${
      payable
        ? `<p class="expiry" id="expiry">Expires in <time id="countdown" role="timer" aria-label="Time left to pay" datetime="${escapeHtml(m.expiresAt)}">${remainingText(m.expiresAt)}</time></p>`
        : ''
    }
    <p class="status status-${escapeHtml(m.status)}" id="status" role="status" aria-live="polite">${escapeHtml(text.status)}</p>
    <div class="error" id="error" role="alert" tabindex="-1" hidden></div>
    ${receiptBlock(m)}
    ${actions}
    ${back}
    ${
      payable
        ? `<p class="fine">You sign a one-time authorization to transfer exactly this amount of ${escapeHtml(m.tokenSymbol)} on ${escapeHtml(m.networkName)}. No gas needed: network fees are paid for you.</p>`
        : ''
    }
  </section>
  <noscript><p class="fine">Paying needs JavaScript to talk to your wallet.</p></noscript>
</main>`;
  const title = payable ? `Pay ${m.merchantName}` : `${text.heading(m.merchantName)}${m.status === 'settled' || (m.status as string) === 'refunded' ? '' : ` · ${m.merchantName}`}`;
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
