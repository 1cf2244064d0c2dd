import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Sixteenth round (h16eval), found by a probe of phrasings no eval set holds: airtime or data asked for
 * a person ("recharge 500 for @amaka", "top up @amaka 1k", "recárgale 100 a @lupita", "weka @zawadi bundles
 * za 100") was sent to that person at once as a transfer. A top-up is a bill on a phone number; a transfer
 * is not what was asked, so the transfer is held for confirmation, never sent at once.
 */
describe('a top-up asked for a person is not sent to them at once', () => {
  for (const [cur, text] of [
    ['NGN', 'recharge 1k for @aisha abeg'],
    ['NGN', 'top up @aisha 2k'],
    ['GHS', 'reload @yawboat 20 cedis'],
    ['MXN', 'recárgale 50 a @juanperez'],
    ['BRL', 'recarrega 15 pra @ana_souza'],
    ['XOF', 'fais une recharge de 500 à @aminata'],
    ['INR', '@arjun ko 100 ka recharge kar do'],
    ['KES', 'weka @musa_kip bundles za 50'],
    ['NGN', 'send @aisha 1k airtime'],
  ] as const) {
    it(text, () => {
      const r = parse(cur, text);
      expect(atOnce(r)?.name, JSON.stringify(r)).not.toBe('send_transfer');
    });
  }
  it('money sent for airtime or data (a purpose) still goes at once', () => {
    expect(atOnce(parse('NGN', 'send 2k to @aisha for data'))).toMatchObject({ name: 'send_transfer', input: { amount: '2000' } });
    expect(atOnce(parse('KES', 'tuma 200 kwa @zawadi ya bundles'))).toMatchObject({ name: 'send_transfer', input: { amount: '200' } });
    expect(atOnce(parse('NGN', 'send 5k to @aisha'))).toMatchObject({ name: 'send_transfer' });
  });
});
