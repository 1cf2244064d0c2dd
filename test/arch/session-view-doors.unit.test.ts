import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Issue 22, step 1: every door that shows a checkout session renders the one typed view
 * (src/checkout-sessions/view.ts) that `CheckoutSessions` builds: the API's public JSON, the
 * hosted page, the settle answers and the x402 door's requirements. None re-reads what the view
 * already holds (the merchant's name, the recipient, the deposit address, the token, the network).
 */
const DOORS = {
  'src/api/checkout.router.ts': /checkoutSessions\.read\(/,
  'src/checkout/checkout-page.router.ts': /checkoutSessions\.view\(/,
  'src/http/settle-answer.ts': /checkoutSessions\.viewOf\(/,
  'src/api/x402-pay.router.ts': /checkoutSessions\.viewOf\(/,
} as const;

/** What only the view may work out: a door that does it again re-guesses a field. */
const REGUESSED: Record<string, RegExp> = {
  'the merchant name (account read, the "Merchant" fallback)': /accounts\.get\(|merchantName(Of|For)\(|'Merchant'/,
  'the recipient': /recipientFor\(|payoutAddress/,
  'the deposit address': /\.deposits\.|depositFor\(/,
  'the token symbol': /['"]USDC['"]/,
  'the network shown': /wallets\.network|networkInfo\(/,
};

const source = (f: string) => readFileSync(new URL(`../../${f}`, import.meta.url), 'utf8');

describe('doors render the one checkout-session view', () => {
  it('each door showing a session gets it from CheckoutSessions', () => {
    for (const [file, call] of Object.entries(DOORS)) expect(source(file), file).toMatch(call);
  });

  it('no such door works out a field the view holds', () => {
    const found: string[] = [];
    for (const file of Object.keys(DOORS)) {
      const text = source(file);
      for (const [what, re] of Object.entries(REGUESSED)) if (re.test(text)) found.push(`${file}: ${what} (${text.match(re)![0]})`);
    }
    expect(found).toEqual([]);
  });
});
