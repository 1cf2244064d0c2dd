import { describe, expect, it } from 'vitest';
import { checkoutPage, type CheckoutPageModel } from '../../src/checkout/page.js';

// Unit layer: the checkout page's deposit block as rendered HTML (the Chromium proof of the
// live page is checkout.deposit.browser.test.ts).
const base: CheckoutPageModel = {
  id: 'pay_test',
  merchantName: 'Acme Books',
  description: 'Order 1',
  amountText: '12.50 USD',
  stablecoinText: '12.50',
  tokenSymbol: 'USDC',
  currency: 'USD',
  rateText: '1 USDC = 1 USD',
  status: 'pending',
  expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  chainId: 31337,
  networkName: 'Local test chain',
  pageUrl: 'http://localhost/pay/pay_test',
  qrSvg: '<svg id="page-qr"></svg>',
  testWallet: false,
  testMode: false,
  loginUrl: '/app/login',
  autoReturn: false,
};
const address = '0x00000000000000000000000000000000000d3905';

describe('checkout page: deposit block', () => {
  it('while something is due: the EIP-681 link, the QR code and what remains', () => {
    const uri = `ethereum:0xtoken@31337/transfer?address=${address}&uint256=7500000`;
    const html = checkoutPage({ ...base, deposit: { address, uri, qrSvg: '<svg></svg>', dueText: '7.50 USDC', receivedText: '5.00 USDC', received: '5' } });
    expect(html).toContain('id="deposit-link"');
    expect(html).toContain('id="deposit-qr"');
    expect(html).toContain('Send the remaining 7.50 USDC');
  });

  it('once the whole amount arrived: no link or QR code to pay again, it says it is being confirmed', () => {
    const html = checkoutPage({ ...base, deposit: { address, dueText: '12.50 USDC', receivedText: '12.50 USDC', received: '12.5' } });
    expect(html).not.toContain('id="deposit-link"');
    expect(html).not.toContain('id="deposit-qr"');
    expect(html).not.toContain('ethereum:');
    expect(html).toContain('Received 12.50 USDC.');
    expect(html).toContain('Do not send it again.');
  });
});
