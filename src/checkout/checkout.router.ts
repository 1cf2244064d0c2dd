import { fileURLToPath } from 'node:url';
import express, { Router, type Request } from 'express';
import QRCode from 'qrcode';
import type { Core } from '../core/core.js';
import { redirectFor } from '../http/settle-answer.js';
import { sessionToken } from '../http/auth.js';
import type { Account } from '../accounts/accounts.js';
import { addressUrl, txUrl, type NetworkInfo } from '../wallet/wallets.js';
import { formatUsdc, groupThousands, usdcCents, usdcDecimal } from '../lib/money.js';
import { stablecoinText, type Payment } from '../payments/payments.js';
import { merchantNameFor } from '../payments/merchant-name.js';
import { ASSETS, checkoutPage, notFoundPage, type AppWalletModel, type ReceiptModel } from './page.js';

const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/** The network the page pays on (CHAIN_NAME / CHAIN_EXPLORER_URL override the defaults). */
export function checkoutNetwork(deps: Pick<Core, 'forMode'>, p?: Pick<Payment, 'livemode'>): NetworkInfo {
  return deps.forMode(p?.livemode !== false).wallets.network;
}

/** "1 USDC = 129.25 KES": the rate locked at creation (units of the currency per stablecoin). */
export function rateText(p: Pick<Payment, 'rate' | 'currency'>, tokenSymbol: string): string {
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

async function appWalletModel(deps: Core, account: Account, p: Payment): Promise<AppWalletModel> {
  // The wallet's money on the session's mode's chain.
  const wallets = deps.forMode(p.livemode !== false).wallets;
  const address = wallets.addressOf(account);
  const recipient = await deps.settlement.recipientFor(p);
  const balance = await wallets.balanceOf(address).catch(() => undefined);
  return {
    name: account.name,
    balanceText: balance === undefined ? 'unavailable' : formatUsdc(balance),
    enough: balance !== undefined && balance >= BigInt(p.stablecoinAmount),
    own: recipient !== undefined && recipient.toLowerCase() === address.toLowerCase(),
  };
}

/** "5,000.00 KES" from decimal text in a currency (as the fx module writes it). */
function money(deps: Core, amount: string, currency: string): string {
  const parsed = deps.fx.parseAmount(amount, currency);
  return parsed.ok ? deps.fx.format(parsed.minor, currency) : `${groupThousands(amount)} ${currency}`;
}

/** The receipt: when and how it was paid, and every refund that succeeded or is on its way. */
async function receiptModel(deps: Core, p: Payment, network: NetworkInfo): Promise<ReceiptModel> {
  const refunds = (await deps.refunds.ofPayment(p.accountId, p.id)).filter((r) => r.status !== 'failed');
  const refunded = p.amountRefunded && p.amountRefunded !== '0' ? p.amountRefunded : undefined;
  return {
    paidAt: p.settledAt,
    txHash: p.txHash,
    txUrl: txUrl(network, p.txHash),
    payer: p.payer,
    payerUrl: addressUrl(network, p.payer),
    refunds: refunds.map((r) => ({
      amountText: money(deps, r.amount, r.currency),
      stablecoinText: formatUsdc(r.stablecoinAmount),
      status: r.status === 'succeeded' ? 'succeeded' : 'pending',
      at: r.succeededAt ?? r.createdAt,
      txHash: r.txHash,
      txUrl: txUrl(network, r.txHash),
    })),
    refundedText: refunded && money(deps, refunded, p.currency),
    refundedStablecoinText: refunded && p.stablecoinRefunded ? formatUsdc(p.stablecoinRefunded) : undefined,
  };
}

/** The hosted checkout page `/pay/:id` and its static assets. */
export function checkoutPageRouter(deps: Core): Router {
  const r = Router();
  r.use(ASSETS, express.static(ASSETS_DIR, { index: false, fallthrough: false, cacheControl: true, maxAge: 0 }));

  r.get('/pay/:id', async (req, res) => {
    const id = String(req.params.id);
    res.set('Cache-Control', 'no-store');
    const p = await deps.payments.get(id);
    if (!p) {
      res.status(404).type('html').send(notFoundPage(id));
      return;
    }
    const account = await deps.accounts.get(p.accountId);
    const merchantName = merchantNameFor(p, account);
    const amountText = money(deps, p.amount, p.currency);
    const extras = deps.present.checkout(p);
    const tokenSymbol = typeof extras.tokenSymbol === 'string' ? extras.tokenSymbol : 'USDC';
    const network = checkoutNetwork(deps, p);
    const payable = p.status === 'pending';
    const paid = p.status === 'settled' || (p.status as string) === 'refunded';
    const pageUrl = deps.payments.checkoutUrl(p.id);
    const visitor = payable ? await signedInAccount(deps, req) : undefined;
    // The session's own deposit address (given out on first view) for a plain transfer from any wallet.
    const deposit = payable ? await deps.settlement.deposits.depositFor(p).catch((err) => void req.log.warn({ err, paymentId: p.id }, 'no deposit address for this session now')) : undefined;
    res.type('html').send(
      checkoutPage({
        id: p.id,
        merchantName,
        description: p.description ?? '',
        reference: p.reference,
        amountText,
        // A receipt states exactly what was paid; before paying, cents with the exact amount below.
        stablecoinText: paid ? formatUsdc(BigInt(p.stablecoinAmount)).replace(/ USDC$/, '') : groupThousands(usdcCents(BigInt(p.stablecoinAmount))),
        stablecoinExact: paid || BigInt(p.stablecoinAmount) % 10_000n === 0n ? undefined : groupThousands(stablecoinText(p)),
        tokenSymbol,
        currency: p.currency,
        rateText: rateText(p, tokenSymbol),
        status: p.status,
        expiresAt: p.expiresAt,
        chainId: network.chainId,
        networkName: network.name,
        pageUrl,
        qrSvg: payable ? await qrSvg(pageUrl) : undefined,
        deposit: deposit && {
          address: deposit.address,
          uri: deposit.uri,
          qrSvg: deposit.uri ? await qrSvg(deposit.uri) : undefined,
          dueText: formatUsdc(deposit.remaining > 0n ? deposit.remaining : BigInt(p.stablecoinAmount)),
          receivedText: deposit.received > 0n ? formatUsdc(deposit.received) : undefined,
          received: deposit.received > 0n ? usdcDecimal(deposit.received) : '',
        },
        testWallet: deps.forMode(p.livemode !== false).wallets.devTools,
        // The way back: while pending (status=pending tells the merchant nothing was paid) and
        // once the payment is over, as after paying.
        returnUrl: p.status === 'processing' ? undefined : redirectFor(p),
        appWallet: visitor ? await appWalletModel(deps, visitor, p) : undefined,
        loginUrl: `/app/login?next=${encodeURIComponent(`/pay/${p.id}`)}`,
        receipt: paid ? await receiptModel(deps, p, network) : undefined,
        canceledAt: p.canceledAt,
        autoReturn: paid && req.query.paid === '1',
      }),
    );
  });
  return r;
}
