import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Sixteenth round (h16eval), found by a probe of phrasings no eval set holds: a relative OF the person
 * named ("manda 50 pro irmão da @joana": to Joana's brother; "@priya ke bhai ko 500 bhej do": to Priya's
 * brother) was sent to the handle itself at once. The handle only says whose relative; the money is for
 * someone else, so the transfer is held.
 */
describe('a relative of the person named is not that person', () => {
  for (const [cur, text] of [
    ['BRL', 'manda 40 pro filho da @ana_souza'],
    ['MXN', 'mándale 300 a la hermana de @juanperez'],
    ['XOF', 'envoie 2000 au frère de @aminata'],
    ['INR', '@arjun ke bhai ko 700 bhej do'],
    ['INR', '@arjun ki behen ko 700 bhej do'],
    ['PHP', 'pasend 200 sa kapatid ni @josebau'],
    ['NGN', 'send 2k to the brother of @aisha'],
  ] as const) {
    it(text, () => expect(atOnce(parse(cur, text)), text).toBeUndefined());
  }
  it('the relation said of the person named ("my sister @x", "minha irmã @x") still acts', () => {
    expect(atOnce(parse('NGN', 'send 2k to my sister @aisha'))).toMatchObject({ input: { recipient: '@aisha', amount: '2000' } });
    expect(atOnce(parse('BRL', 'manda 40 pra minha irmã @ana_souza'))).toMatchObject({ input: { recipient: '@ana_souza' } });
    expect(atOnce(parse('MXN', 'mándale 300 a mi hermano @juanperez'))).toMatchObject({ input: { recipient: '@juanperez' } });
  });
});
