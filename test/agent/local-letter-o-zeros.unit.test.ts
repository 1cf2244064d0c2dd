import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Sixteenth round (h16eval), found by a probe of phrasings no eval set holds: letter o typed for zeros
 * and glued to the digits ("5ooo", "15oo") was read as the digits before it: "send 5ooo to @amaka" sent
 * 5 naira at once. Refused as a malformed amount (like "2o,000"), never moved.
 */
describe('letter o glued to the digits is no amount', () => {
  for (const [cur, text] of [['NGN', 'send 3ooo to @aisha'], ['KES', 'tuma 25oo kwa @zawadi'], ['GHS', 'send @yawboat 1OO cedis'], ['PHP', 'pasend 5oo kay @josebau']] as const) {
    it(text, () => {
      const r = parse(cur, text);
      expect(atOnce(r), JSON.stringify(r)).toBeUndefined();
      expect(r.kind).toBe('refuse');
    });
  }
  it('the Pidgin particle "o", apart from the number, still lets the send go', () => {
    expect(atOnce(parse('NGN', 'abeg send 3k o to @aisha'))).toMatchObject({ name: 'send_transfer', input: { amount: '3000' } });
  });
});
