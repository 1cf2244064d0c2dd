/**
 * The ways to pay on a pending checkout page besides the browser wallet: the app wallet (signed
 * in, or a link to sign in), and for a phone, the QR code of this page plus the EIP-681 transfer
 * to the session's own deposit address (docs/checkout.md, "Ways to pay"). Shown open: a payer
 * with a phone in hand should not have to find them behind a collapsed section.
 */
import { escapeHtml } from './html.js';

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

export interface PayOptionsModel {
  /** "12.50 USDC" as signed. */
  amount: string;
  tokenSymbol: string;
  networkName: string;
  pageUrl: string;
  qrSvg?: string;
  deposit?: DepositModel;
  appWallet?: AppWalletModel;
  loginUrl: string;
}

export function appWalletBlock(m: PayOptionsModel): string {
  if (!m.appWallet) {
    return `<p class="app-wallet-login"><a class="btn btn-link" id="app-wallet-login" href="${escapeHtml(m.loginUrl)}">Sign in to pay from your StablePay wallet</a></p>`;
  }
  const w = m.appWallet;
  if (w.own) {
    return `<p class="hint" id="app-wallet-hint">Signed in as ${escapeHtml(w.name)}. This payment goes to your own StablePay wallet, so pay it from another wallet.</p>`;
  }
  const note = `Signed in as ${escapeHtml(w.name)} · balance ${escapeHtml(w.balanceText)}${w.enough ? '' : ', not enough for this payment'}`;
  return `<button type="button" class="btn" id="pay-app-wallet" aria-describedby="app-wallet-hint">Pay ${escapeHtml(m.amount)} from your StablePay wallet</button>
      <p class="hint" id="app-wallet-hint">${note}</p>`;
}

export function phoneBlock(m: PayOptionsModel): string {
  if (!m.qrSvg) return '';
  const url = new URL(m.pageUrl);
  const metamask = `https://metamask.app.link/dapp/${url.host}${url.pathname}`;
  const coinbase = `https://go.cb-w.com/dapp?cb_url=${encodeURIComponent(m.pageUrl)}`;
  return `<section class="phone" id="phone" aria-labelledby="phone-title">
      <h2 id="phone-title">Pay with a phone wallet</h2>
      <div class="phone-body">
        <div class="qr" id="qr" role="img" aria-label="QR code that opens this payment page">${m.qrSvg}</div>
        <div class="phone-text">
          <p>Scan with your wallet app’s scanner to open this page in its browser, then choose <strong>Pay with browser wallet</strong>. You sign the same one-time authorization; no gas needed.</p>
          <p class="wallet-links">On this phone: <a href="${escapeHtml(metamask)}" id="open-metamask" rel="noopener">Open in MetaMask</a> · <a href="${escapeHtml(coinbase)}" id="open-coinbase" rel="noopener">Open in Coinbase Wallet</a></p>
        </div>
      </div>
      ${depositBlock(m)}
    </section>`;
}

/** The deposit address on one line, with Copy. */
function addressLine(address: string): string {
  return `<div class="address-line"><code class="deposit-address" id="deposit-address">${escapeHtml(address)}</code><button type="button" class="btn-inline copy" data-copy="deposit-address">Copy<span class="visually-hidden"> the deposit</span> address</button></div>`;
}

/**
 * The EIP-681 path: a plain transfer to this session's own deposit address, which the service
 * watches (docs/checkout.md). The customer pays gas in the native coin, so it comes second.
 */
function depositBlock(m: PayOptionsModel): string {
  const d = m.deposit;
  if (!d) return '';
  // The whole amount arrived and is being confirmed: no second QR code or link to pay again.
  if (!d.uri) {
    return `<div class="deposit" id="deposit">
        <p class="deposit-received" id="deposit-received"><strong>Received ${escapeHtml(d.receivedText ?? d.dueText)}.</strong> Your transfer arrived; the payment is being confirmed on the network. This page updates by itself. Do not send it again.</p>
      </div>`;
  }
  const received = d.receivedText
    ? `<p class="deposit-received" id="deposit-received"><strong>Received so far: ${escapeHtml(d.receivedText)}.</strong> Send the remaining ${escapeHtml(d.dueText)} to the same address.</p>`
    : '';
  return `<div class="deposit" id="deposit">
        ${received}
        <h3 id="deposit-title">Or send ${escapeHtml(m.tokenSymbol)} from any wallet app</h3>
        <div class="phone-body">
          ${d.qrSvg ? `<div class="qr" id="deposit-qr" role="img" aria-label="QR code of a ${escapeHtml(d.dueText)} transfer to this payment's address">${d.qrSvg}</div>` : ''}
          <div class="phone-text">
            <p>Scan with the wallet (not the camera) to fill in a transfer of <strong>${escapeHtml(d.dueText)}</strong> on ${escapeHtml(m.networkName)} to this payment’s own address, or copy the address:</p>
            <p><a href="${escapeHtml(d.uri)}" id="deposit-link" rel="noopener">Open the transfer in your wallet app</a></p>
          </div>
        </div>
        ${addressLine(d.address)}
        <p class="hint">This way you pay the network fee in the network’s own coin (such as ETH). The payment is confirmed once the transfer arrives; anything sent after the session ends is sent back.</p>
      </div>`;
}
