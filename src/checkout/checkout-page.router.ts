import { fileURLToPath } from 'node:url';
import express, { Router, type Request } from 'express';
import QRCode from 'qrcode';
import type { Core } from '../core/core.js';
import { sessionToken } from '../http/auth.js';
import type { Account } from '../accounts/accounts.js';
import { addressUrl, txUrl, type NetworkInfo } from '../wallet/wallets.js';
import { formatUsdc, groupThousands, usdcCents, usdcDecimal } from '../lib/money.js';
import type { CheckoutSessionView } from '../checkout-sessions/view.js';
import { captureModel } from './capture.js';
import { ASSETS, checkoutPage, notFoundPage, type AppWalletModel, type ReceiptModel } from './page.js';

const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/** The network the session pays on, as its view names it (CHAIN_NAME / CHAIN_EXPLORER_URL override the defaults). */
function viewNetwork(v: CheckoutSessionView): NetworkInfo {
  return { chainId: v.chainId, name: v.networkName, ...(v.explorerUrl ? { explorerUrl: v.explorerUrl } : {}) };
}

/** "1 USDC = 129.25 KES": the rate locked at creation (units of the currency per stablecoin). */
export function rateText(p: { rate: string; currency: string }, tokenSymbol: string): string {
  return `1 ${tokenSymbol} = ${groupThousands(p.rate)} ${p.currency}`;
}

/** A QR code as inline SVG of a URL we build (origin + id, or the EIP-681 link): never user text. */
async function qrSvg(url: string): Promise<string | undefined> {
  try {
    const svg = await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2, color: { dark: '#000000', light: '#ffffff' } });
    return svg.replace('<svg ', '<svg aria-hidden="true" focusable="false" ');
  } catch {
    return undefined; // too long for a QR code: the page works without it
  }
}

async function signedInAccount(deps: Core, req: Request): Promise<Account | undefined> {
  const token = sessionToken(req);
  return token ? deps.accounts.accountForSession(token).catch(() => undefined) : undefined;
}

async function appWalletModel(deps: Core, account: Account, v: CheckoutSessionView): Promise<AppWalletModel> {
  // The wallet's money on the session's mode's chain.
  const wallets = deps.forMode(v.livemode).wallets;
  const address = wallets.addressOf(account);
  const balance = await wallets.balanceOf(address).catch(() => undefined);
  return {
    name: account.name,
    balanceText: balance === undefined ? 'unavailable' : formatUsdc(balance),
    enough: balance !== undefined && balance >= BigInt(v.stablecoinBaseUnits),
    own: v.payTo !== undefined && v.payTo.toLowerCase() === address.toLowerCase(),
  };
}

/** "5,000.00 KES" from decimal text in a currency (as the fx module writes it). */
function money(deps: Pick<Core, 'fx'>, amount: string, currency: string): string {
  const parsed = deps.fx.parseAmount(amount, currency);
  return parsed.ok ? deps.fx.format(parsed.minor, currency) : `${groupThousands(amount)} ${currency}`;
}

/** The receipt block from the session's receipt: when and how it was paid, and every refund. */
function receiptModel(deps: Pick<Core, 'fx'>, v: CheckoutSessionView, network: NetworkInfo): ReceiptModel {
  const r = v.receipt;
  return {
    paidAt: r?.paidAt,
    txHash: r?.txHash,
    txUrl: txUrl(network, r?.txHash),
    payer: r?.payer,
    payerUrl: addressUrl(network, r?.payer),
    refunds: (r?.refunds ?? []).map((x) => ({
      amountText: money(deps, x.amount, v.currency),
      stablecoinText: formatUsdc(x.stablecoinBaseUnits),
      status: x.status,
      at: x.at,
      txHash: x.txHash,
      txUrl: txUrl(network, x.txHash),
    })),
    refundedText: r?.amountRefunded && money(deps, r.amountRefunded, v.currency),
    refundedStablecoinText: r?.amountRefunded && r.stablecoinRefunded ? formatUsdc(r.stablecoinRefunded) : undefined,
  };
}

/** The hosted checkout page `/pay/:id` and its static assets. */
export function checkoutPageRouter(deps: Core): Router {
  const r = Router();
  r.use(ASSETS, express.static(ASSETS_DIR, { index: false, fallthrough: false, cacheControl: true, maxAge: 0 }));

  r.get('/pay/:id', async (req, res) => {
    const id = String(req.params.id);
    res.set('Cache-Control', 'no-store');
    const v = await deps.checkoutSessions.view(id);
    if (!v) {
      res.status(404).type('html').send(notFoundPage(id));
      return;
    }
    const network = viewNetwork(v);
    const payable = v.status === 'pending';
    const paid = v.status === 'settled' || v.status === 'refunded' || v.status === 'captured';
    const units = BigInt(v.stablecoinBaseUnits);
    const pageUrl = deps.payments.checkoutUrl(v.id);
    const visitor = payable ? await signedInAccount(deps, req) : undefined;
    // The session's own deposit address (given out on first view) for a plain transfer from any wallet.
    const deposit = payable ? v.deposit : undefined;
    res.type('html').send(
      checkoutPage({
        id: v.id,
        merchantName: v.merchantName,
        description: v.description,
        reference: v.reference || undefined,
        amountText: money(deps, v.amountDecimal, v.currency),
        // A receipt states exactly what was paid; before paying, cents with the exact amount below.
        stablecoinText: paid ? formatUsdc(units).replace(/ USDC$/, '') : groupThousands(usdcCents(units)),
        stablecoinExact: paid || units % 10_000n === 0n ? undefined : groupThousands(v.stablecoinAmount),
        tokenSymbol: v.tokenSymbol,
        currency: v.currency,
        rateText: rateText(v, v.tokenSymbol),
        status: v.status,
        expiresAt: v.expiresAt,
        chainId: v.chainId,
        networkName: v.networkName,
        pageUrl,
        qrSvg: payable ? await qrSvg(pageUrl) : undefined,
        deposit: deposit && {
          address: deposit.address,
          uri: deposit.uri,
          qrSvg: deposit.uri ? await qrSvg(deposit.uri) : undefined,
          dueText: formatUsdc(BigInt(deposit.remaining) > 0n ? BigInt(deposit.remaining) : units),
          receivedText: deposit.received !== '0' ? formatUsdc(deposit.received) : undefined,
          received: deposit.received !== '0' ? usdcDecimal(deposit.received) : '',
        },
        testWallet: deps.forMode(v.livemode).wallets.devTools,
        testMode: !v.livemode,
        // The way back: while pending (status=pending tells the merchant nothing was paid) and
        // once the payment is over, as after paying. None for a payment link the agent made (its
        // redirect is the merchant's own dashboard): the payer stays on the receipt, as with a
        // Stripe Payment Link without a redirect (h16tour: paid, they were sent to a log-in page).
        returnUrl: v.status === 'processing' || toOwnApp(v.returnUrl, deps.config.PUBLIC_URL) ? undefined : v.returnUrl,
        appWallet: visitor ? await appWalletModel(deps, visitor, v) : undefined,
        loginUrl: `/app/login?next=${encodeURIComponent(`/pay/${v.id}`)}`,
        receipt: paid ? receiptModel(deps, v, network) : undefined,
        capture: v.capture && captureModel(v.capture, v.tokenSymbol),
        canceledAt: v.canceledAt,
        autoReturn: paid && req.query.paid === '1',
      }),
    );
  });
  return r;
}

/** Whether `url` is this service's own dashboard (`PUBLIC_URL/app`), the agent's payment links' redirect. */
function toOwnApp(url: string, publicUrl: string): boolean {
  try {
    const u = new URL(url);
    const app = new URL(`${publicUrl.replace(/\/$/, '')}/app`);
    return u.origin === app.origin && u.pathname === app.pathname;
  } catch {
    return false;
  }
}
