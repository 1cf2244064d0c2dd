import { describe, expect, it } from 'vitest';
import { expectedE164Length, splitPhone, toE164, withCallingCode } from '../../src/lib/phone.js';

// The one phone-number module (issue 12 item 6), as transfers, bills and the lexer use it.
describe('src/lib/phone.ts', () => {
  it('spells a recipient in E.164, completing a national number with the sender country', () => {
    expect(toE164('+254 712-345-678')).toBe('+254712345678');
    expect(toE164('0712345678', 'ke')).toBe('+254712345678');
    expect(toE164('0712345678')).toBeUndefined();
    expect(toE164('12345')).toBeUndefined();
  });

  it('completes a Philippine or Indian national number (trunk 0) with the sender country: transfers serve them though no biller does', () => {
    expect(toE164('09171234567', 'PH')).toBe('+639171234567');
    expect(toE164('0917 123 4567', 'PH')).toBe('+639171234567');
    expect(toE164('09812345678', 'IN')).toBe('+919812345678');
    // Indian mobiles are usually written as their ten digits, no trunk 0.
    expect(toE164('9812345678', 'IN')).toBe('+919812345678');
    expect(toE164('9812345678', 'NG')).toBeUndefined();
    // Bills still know only their own countries: a +63 number names no biller country.
    expect(splitPhone('+639171234567')).toBeUndefined();
  });

  it('issue h7: Senegal, Brazil and Mexico mobiles written without a trunk 0 complete with the sender country', () => {
    expect(toE164('771234567', 'SN')).toBe('+221771234567');
    expect(toE164('11987654321', 'BR')).toBe('+5511987654321');
    expect(toE164('5512345678', 'MX')).toBe('+525512345678');
    // Not a mobile of that country, or another country: left alone.
    expect(toE164('671234567', 'SN')).toBeUndefined();
    expect(toE164('11887654321', 'BR')).toBeUndefined();
    expect(toE164('771234567', 'NG')).toBeUndefined();
  });

  it('gives a biller phone number its "+" and calling code', () => {
    expect(withCallingCode('08031234567', 'NG')).toBe('+2348031234567');
    expect(withCallingCode('2348031234567', 'NG')).toBe('+2348031234567');
    expect(withCallingCode('+2348031234567', 'NG')).toBe('+2348031234567');
  });

  it('splits a number into its country and national significant number', () => {
    expect(splitPhone('+234 803 123 4567')).toEqual({ country: 'NG', national: '8031234567' });
    expect(splitPhone('27821234567')).toEqual({ country: 'ZA', national: '821234567' });
    expect(splitPhone('0241234567', 'GH')).toEqual({ country: 'GH', national: '241234567' });
    expect(splitPhone('0241234567')).toBeUndefined();
  });

  it('knows how long a full number is by its calling code', () => {
    expect(expectedE164Length('254712')).toBe(12);
    expect(expectedE164Length('999')).toBeUndefined();
  });
});
