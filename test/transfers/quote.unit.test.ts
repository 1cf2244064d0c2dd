import { describe, expect, it } from 'vitest';
import { parseUnits } from 'viem';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { DEFAULT_FEE_POLICY, crossRate, quoteTransfer, transferFee } from '../../src/transfers/quote.js';

const fx = new FxService(loadFxTable());
const usdc = (s: string) => parseUnits(s, 6);

describe('transfer fee', () => {
  it('is 0.5% rounded down to a base unit', () => {
    expect(transferFee(usdc('100'))).toBe(usdc('0.5'));
    expect(transferFee(usdc('38.68472'))).toBe(193_423n); // 38_684_720 * 50 / 10_000 = 193_423.6 -> 193_423
    expect(transferFee(199n)).toBe(0n); // too small to charge anything
    expect(transferFee(0n)).toBe(0n);
  });

  it('is capped at 2 USDC', () => {
    expect(transferFee(usdc('400'))).toBe(usdc('2'));
    expect(transferFee(usdc('2000'))).toBe(usdc('2'));
    expect(transferFee(usdc('399.999999'))).toBe(1_999_999n);
  });

  it('follows a custom policy (zero fee)', () => {
    expect(transferFee(usdc('100'), { bps: 0n, cap: 0n })).toBe(0n);
    expect(DEFAULT_FEE_POLICY.bps).toBe(50n);
  });
});

describe('cross rate', () => {
  it('divides the two USD rates with 8 decimals, half up', () => {
    expect(crossRate('129.25', '1545.50')).toBe('11.95744681'); // 11.957446808...
    expect(crossRate('1545.50', '129.25')).toBe('0.08362989'); // 0.0836298932...
    expect(crossRate('1', '1')).toBe('1');
    expect(crossRate('129.25', '1')).toBe('0.00773694'); // 0.0077369439...
    expect(crossRate('3', '2')).toBe('0.66666667'); // half up
  });
});

describe('quoteTransfer', () => {
  it('KES -> stablecoin -> NGN, fee on top', () => {
    const q = quoteTransfer(fx, { amount: '5000', currency: 'KES', recipientCurrency: 'NGN' });
    expect(q.ok).toBe(true);
    if (!q.ok) return;
    // 5000 / 129.25 = 38.684719535... -> 38.684720 (half up at 6 decimals)
    expect(q.quote.stablecoinAmount).toBe(38_684_720n);
    expect(q.quote.fee).toBe(193_423n);
    expect(q.quote.totalDebit).toBe(38_684_720n + 193_423n);
    // 38.684720 * 1545.50 = 59787.2347... -> 59787.23 NGN
    expect(q.quote.recipientAmount).toBe('59787.23');
    expect(q.quote.recipientAmountMinor).toBe(5_978_723n);
    expect(q.quote.rate).toBe('11.95744681');
    expect(q.quote.sourceRate).toBe('129.25');
    expect(q.quote.recipientRate).toBe('1545.50');
  });

  it('same currency: the recipient sees the same amount', () => {
    const q = quoteTransfer(fx, { amount: '5000', currency: 'KES', recipientCurrency: 'KES' });
    expect(q.ok && q.quote.recipientAmount).toBe('5000');
    expect(q.ok && q.quote.rate).toBe('1');
  });

  it('external payouts are quoted in USDC', () => {
    const q = quoteTransfer(fx, { amount: '10', currency: 'USD', recipientCurrency: 'USDC' });
    expect(q.ok && q.quote.stablecoinAmount).toBe(usdc('10'));
    expect(q.ok && q.quote.recipientAmount).toBe('10');
  });

  it('rejects unknown currencies, too many decimals and dust', () => {
    const bad = quoteTransfer(fx, { amount: '10', currency: 'XYZ', recipientCurrency: 'KES' });
    expect(!bad.ok && bad.reason).toBe('unsupported_currency');
    const decimals = quoteTransfer(fx, { amount: '10.001', currency: 'KES', recipientCurrency: 'KES' });
    expect(!decimals.ok && decimals.reason).toBe('too_many_decimals');
    const dust = quoteTransfer(fx, { amount: '0.000001', currency: 'NGN', recipientCurrency: 'KES' });
    expect(!dust.ok && dust.reason).toBe('too_many_decimals');
    const tiny = quoteTransfer(fx, { amount: '1', currency: 'UGX', recipientCurrency: 'KES' });
    expect(tiny.ok).toBe(true); // 1 UGX = 0.000271 USDC: still a positive number of base units
  });
});
