import { fileURLToPath } from 'node:url';
import express, { Router } from 'express';
import { formatUnits } from 'viem';
import type { AppDeps } from '../api/deps.js';
import { devRoutesEnabled } from '../api/dev.router.js';
import { redirectFor } from '../api/settlement.router.js';
import { stablecoinText, TERMINAL } from '../payments/payments.js';
import { ASSETS, checkoutPage, notFoundPage } from './page.js';

const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/** Groups the integer part of a decimal string ("1234.5" -> "1,234.5") without float maths. */
function group(decimal: string): string {
  const [int, frac] = decimal.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac ? `${grouped}.${frac}` : grouped;
}

/** Stablecoin base units (6 decimals) rounded half up to cents, always two decimals ("38.68"). */
function centsText(baseUnits: bigint): string {
  const [int, frac = ''] = formatUnits((baseUnits + 5_000n) / 10_000n, 2).split('.');
  return `${int}.${frac.padEnd(2, '0')}`;
}

/** The hosted checkout page `/pay/:id` and its static assets. */
export function checkoutPageRouter(deps: AppDeps): Router {
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
    const merchantName = p.merchantName ?? account?.name ?? 'Merchant';
    const parsed = deps.fx.parseAmount(p.amount, p.currency);
    const amountText = parsed.ok ? deps.fx.format(parsed.minor, p.currency) : `${group(p.amount)} ${p.currency}`;
    const extras = deps.checkoutExtras?.() ?? {};
    const tokenSymbol = typeof extras.tokenSymbol === 'string' ? extras.tokenSymbol : 'USDC';
    const terminal = TERMINAL.has(p.status);
    res.type('html').send(
      checkoutPage({
        id: p.id,
        merchantName,
        description: p.description ?? '',
        amountText,
        stablecoinText: group(centsText(BigInt(p.stablecoinAmount))),
        stablecoinExact: BigInt(p.stablecoinAmount) % 10_000n === 0n ? undefined : group(stablecoinText(p)),
        tokenSymbol,
        currency: p.currency,
        status: p.status,
        expiresAt: p.expiresAt,
        chainId: deps.chain.chainId,
        testWallet: devRoutesEnabled(deps) && Boolean(deps.settlement),
        // Only once the payment is over: the customer's way back, as after paying.
        returnUrl: terminal ? redirectFor(p) : undefined,
      }),
    );
  });
  return r;
}
