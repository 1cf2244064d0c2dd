import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Sixteenth round (h16eval), found by a probe of phrasings no eval set holds: a bare "no" closing the
 * message ("send 5k to @amaka, no", "manda 50 pro @joana, não", "envoie 5000 à @moussa, non", "… nahi",
 * "…, hapana", "…, hindi") acted at once: its lemma "no" is also the Portuguese/Spanish connector ("no
 * Flamengo"), so it was placed. A no with nothing after it connects nothing: the request is held.
 */
describe('a no that closes the message takes the request back', () => {
  for (const [cur, text] of [
    ['NGN', 'send 2k to @aisha, no'],
    ['NGN', 'send 2k to @aisha abeg no'],
    ['BRL', 'manda 30 pra @ana_souza não'],
    ['MXN', 'pásale 200 a @juanperez, no'],
    ['XOF', 'envoie 1000 à @aminata... non'],
    ['KES', 'tuma 300 kwa @zawadi, hapana'],
    ['INR', '@arjun ko 200 bhej do, nahi'],
    ['PHP', 'pasend 150 kay @josebau, hindi'],
  ] as const) {
    it(text, () => expect(atOnce(parse(cur, text)), text).toBeUndefined());
  }
  it('a no right before the money verb negates it; "no, send…" (an answer, then the request) still acts', () => {
    for (const [cur, text] of [['KES', 'hapana tuma 300 kwa @zawadi'], ['KES', 'hapana lipa 300 kwa @zawadi']] as const) expect(atOnce(parse(cur, text)), text).toBeUndefined();
    expect(atOnce(parse('NGN', 'no, send 2k to @aisha'))).toMatchObject({ name: 'send_transfer', input: { amount: '2000' } });
  });
  it('a no that is the side staked on, or the connector before a word, still acts', () => {
    expect(atOnce(parse('BRL', 'aposta 30 no Não pro Flamengo'))).toMatchObject({ name: 'stake_market', input: { outcome: 'Não' } });
    expect(atOnce(parse('GHS', 'put 50 on No for arsenal'))).toMatchObject({ name: 'stake_market', input: { outcome: 'No' } });
    expect(atOnce(parse('MXN', 'pon 150 al No en lo del América'))).toMatchObject({ name: 'stake_market' });
  });
});
