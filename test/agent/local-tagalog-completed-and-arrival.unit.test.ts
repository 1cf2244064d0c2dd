import { describe, expect, it } from 'vitest';
import { atOnce, nameOf, parse, reason } from './local-parse-helpers.js';

/**
 * Sixteenth round (h16eval): Tagalog's completed aspect ("nag send ako…", "nagtransfer ako…": I sent)
 * was read as a send and held for confirmation (a "yes" would have sent it again), and a not-yet
 * arrival question ("…, bakit wala pa?", Swahili "haijafika?", "hajapokea?") as a refusal of the past
 * send instead of the activity it asks about.
 */
describe('Tagalog completed aspect of a money verb is a past send, never a new one', () => {
  for (const text of ['nag send ako ng 300 kay @josebau kagabi', 'nagtransfer ako ng 2k kay @lizareyes', 'nag-padala ako ng 1,000 kay @josebau', 'nakapag-send na ako ng 700 kay @lizareyes', 'nag load ako ng 100 sa 0917 123 4567']) {
    it(text, () => {
      const r = parse('PHP', text);
      expect(r.kind === 'tool' ? r.call.name : r.kind, text).not.toBe('send_transfer');
      expect(atOnce(r)?.name === 'send_transfer' || atOnce(r)?.name === 'pay_bill').toBe(false);
    });
  }
  it('the request forms still act', () => {
    for (const text of ['mag-send ka ng 300 kay @josebau', 'pa-send ng 300 kay @josebau', 'paki send 300 kay @josebau']) expect(atOnce(parse('PHP', text)), text).toMatchObject({ name: 'send_transfer', input: { amount: '300' } });
  });
  it('the statement is answered as already done', () => {
    expect(reason('PHP', 'nagtransfer ako ng 2k kay @lizareyes')).toBe('past_tense');
  });
});

describe('a not-yet arrival question about money sent asks for the activity', () => {
  for (const [cur, text] of [
    ['PHP', 'nagpadala ako ng 1k kay @josebau kahapon, bakit wala pa?'],
    ['PHP', 'nag send ako kanina ng 250 kay @lizareyes bakit wala pa po?'],
    ['KES', 'nimetuma 2k kwa @musa_kip, hajapokea?'],
    ['KES', 'nilituma 1,500 kwa @zawadi jana haijafika?'],
  ] as const) {
    it(text, () => expect(nameOf(cur, text)).toBe('list_activity'));
  }
});
