import { describe, expect, it } from 'vitest';
import { formatAmount, formatMinor, formatUsdc, groupThousands, usdcCents, usdcDecimal } from '../../src/lib/money.js';

// The one money formatter module (issue 12 item 6): pins the texts the replies, pages and
// Telegram messages have always shown.
describe('src/lib/money.ts', () => {
  it('groups thousands of decimal text without touching the decimals', () => {
    expect(groupThousands('1234567.891234')).toBe('1,234,567.891234');
    expect(groupThousands('999')).toBe('999');
    expect(groupThousands('1000')).toBe('1,000');
  });

  it('writes stablecoin base units grouped, at least two decimals, never rounded', () => {
    expect(formatUsdc(2_000_000_000n)).toBe('2,000.00 USDC');
    expect(formatUsdc('38684720')).toBe('38.68472 USDC');
    expect(formatUsdc(1n)).toBe('0.000001 USDC');
    expect(usdcDecimal(38_684_720n)).toBe('38.68472');
    expect(usdcDecimal('0')).toBe('0');
  });

  it('writes minor units of a currency with its own decimals (none for a zero-decimal currency)', () => {
    expect(formatMinor(500_000n, 2, 'kes')).toBe('5,000.00 KES');
    expect(formatMinor(1500n, 0, 'JPY')).toBe('1,500 JPY');
    expect(formatMinor(1_234_567n, 3, 'KWD')).toBe('1,234.567 KWD');
    expect(formatAmount('12.5', 'usdc')).toBe('12.50 USDC');
  });

  it('rounds stablecoin base units half up to cents only where asked', () => {
    expect(usdcCents(38_684_720n)).toBe('38.68');
    expect(usdcCents(38_685_000n)).toBe('38.69');
    expect(usdcCents(1_000_000n)).toBe('1.00');
  });
});
