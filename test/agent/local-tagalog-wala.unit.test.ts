import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Lead, fifteenth round: Tagalog "wala" ("none, no more"; "wala na" is also "forget it") was placed
 * as Hindi's linking "wala" ("IKEDC wala bill") and, after a request, as the opener of an
 * explanation with nothing after it, so "send 500 kay @josebau wala na" acted at once.
 */
describe('Tagalog "wala" after a complete request', () => {
  it('with nothing it explains ("wala na", "wala na pala"), the request holds instead of acting', () => {
    for (const text of ['send 500 kay @josebau wala na', 'pasend 1k kay @liza, wala na', 'send 500 sa @josebau wala na pala', 'send 500 sa @josebau wala na']) {
      const r = parse('PHP', text);
      expect(atOnce(r), text).toBeUndefined();
      expect(r.kind === 'tool' || r.kind === 'none', text).toBe(true);
    }
  });

  it('an explanation that says what someone lacks still acts, and Hindi "wala" still links', () => {
    for (const text of ['send 500 kay @josebau, wala na akong pera', 'padala 500 kay @josebau, wala pa siyang app']) {
      expect(atOnce(parse('PHP', text)), text).toMatchObject({ name: 'send_transfer', input: { recipient: '@josebau', amount: '500' } });
    }
    expect(atOnce(parse('NGN', 'IKEDC wala bill 3000 bhar do meter 45123456789')), 'hi').toMatchObject({ name: 'pay_bill', input: { account_number: '45123456789', amount: '3000' } });
    expect(atOnce(parse('NGN', 'send 5k to 08031112233 na my sister number')), 'pcm').toMatchObject({ name: 'send_transfer', input: { amount: '5000' } });
  });
});
