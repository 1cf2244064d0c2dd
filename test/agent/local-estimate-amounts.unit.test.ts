import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Sixteenth round (h16eval): an amount the writer did not fix. A bound right before it ("up to",
 * "jusqu'à", "até", "hasta", "hadi", "hanggang") or a rounding after it ("max", "hivi", "tak") was
 * placed as a connector or left alone, so "send @x up to 100 cedis" sent exactly 100 at once; and a
 * payment link "for about 5000" was made with the description "about". src/agent/local/estimate.ts.
 */
describe('a bound or an estimate around the amount holds a money move', () => {
  const cases: [string, string][] = [
    ['GHS', 'send @yawboat up to 100 cedis'],
    ['GHS', 'pls transfer at most 300 to @yawboat'],
    ['NGN', 'send @aisha 4k max'],
    ['NGN', 'send ~2000 to @aisha'],
    ['XOF', "envoie jusqu'à 5000 à @aminata"],
    ['XOF', 'envoie dans les 3000 à @aminata'],
    ['BRL', 'manda até 80 pra @ana_souza'],
    ['MXN', 'pásale hasta 700 a @lupita'],
    ['KES', 'tuma hadi 800 kwa @zawadi'],
    ['KES', 'tuma 800 hivi kwa @zawadi'],
    ['INR', '@arjun ko 700 tak bhej do'],
    ['PHP', 'pasend hanggang 300 kay @josebau'],
    ['NGN', 'buy airtime of about 500 for 08031234567'],
  ];
  for (const [cur, text] of cases) {
    it(text, () => {
      const r = parse(cur, text);
      expect(r.kind).toBe('tool');
      expect(atOnce(r)).toBeUndefined();
    });
  }
  it('exact amounts, and "send over", still act', () => {
    expect(atOnce(parse('GHS', 'send @yawboat 100 cedis'))).toMatchObject({ input: { amount: '100' } });
    expect(atOnce(parse('NGN', 'send over 5k to @aisha'))).toMatchObject({ input: { amount: '5000' } });
    expect(atOnce(parse('MXN', 'pásale 700 a @lupita'))).toMatchObject({ input: { amount: '700' } });
  });
});

describe('a payment link for an estimate asks how much, never takes the estimate word as its description', () => {
  for (const [cur, text] of [
    ['NGN', 'create a payment link for about 5000'],
    ['NGN', 'payment link for roughly 7500 for the ankara'],
    ['GHS', 'make me a link for around 200 cedis'],
    ['XOF', "crée un lien de paiement d'environ 5000"],
    ['BRL', 'cria um link de pagamento de uns 50 reais'],
    ['INR', 'lagbhag 500 ka payment link bana do'],
  ] as const) {
    it(text, () => {
      const r = parse(cur, text);
      expect(r.kind, JSON.stringify(r)).toBe('none');
    });
  }
  it('an exact link keeps its description', () => {
    expect(atOnce(parse('NGN', 'make a payment link for 5000 for shoes'))).toMatchObject({ name: 'create_payment_link', input: { amount: '5000', description: 'shoes' } });
  });
});
