import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseMessage, type ParseContext } from '../../src/agent/local/index.js';
import { toWords } from '../../src/agent/local/number-words.js';
import type { Lang } from '../../src/agent/local/language.js';

/**
 * Issue 20 (docs/local-engine.md "Two amounts side by side"): the number words of two separate
 * amounts are never glued into a new number. "do hazaar do hazaar" is not 2,002,000: the turn
 * reads the first amount and holds on the second, whether it repeats the first (emphasis) or
 * contradicts it.
 */

const ctx = (localCurrency: string): ParseContext => ({ now: new Date('2026-03-11T10:00:00Z'), localCurrency });

function read(message: string, localCurrency: string): { amount?: string; hold?: readonly string[] } {
  const r = parseMessage(message, ctx(localCurrency));
  if (r.kind !== 'tool' || r.call.name !== 'send_transfer') return {};
  return { amount: r.call.input.amount, ...(r.hold ? { hold: r.hold } : {}) };
}

describe('two spelled amounts side by side', () => {
  const cases: [string, string, string, string][] = [
    ['do hazaar do hazaar @priya ko bhejo', 'INR', '2000', 'do hazaar'],
    ['send two thousand two thousand to @amina', 'NGN', '2000', 'two thousand'],
    ['send five hundred five hundred to @amina', 'NGN', '500', 'five hundred'],
    ['send two thousand three thousand to @amina', 'NGN', '2000', 'three thousand'],
    ['tuma elfu mbili elfu mbili kwa @zawadi', 'KES', '2000', 'elfu mbili'],
    ['envoie deux mille deux mille à @moussa', 'XOF', '2000', 'deux mille'],
    ['manda dois mil dois mil pra @ana', 'BRL', '2000', 'dois mil'],
    ['envía dos mil dos mil a @juan', 'MXN', '2000', 'dos mil'],
    ['padala dalawang libo dalawang libo kay @liza', 'PHP', '2000', 'dalawang libo'],
  ];
  for (const [message, cur, amount, left] of cases) {
    it(`${message}: ${amount}, held on "${left}"`, () => {
      expect(read(message, cur)).toEqual({ amount, hold: [left] });
    });
  }

  it('one number still reads whole: "two thousand five hundred", "do hazaar paanch sau", "elfu mbili na mia tano", "2 thousand"', () => {
    expect(read('send two thousand five hundred to @amina', 'NGN')).toEqual({ amount: '2500' });
    expect(read('do hazaar paanch sau @priya ko bhejo', 'INR')).toEqual({ amount: '2500' });
    expect(read('tuma elfu mbili na mia tano kwa @zawadi', 'KES')).toEqual({ amount: '2500' });
    expect(read('send 2 thousand to @amina', 'NGN')).toEqual({ amount: '2000' });
  });

  it('property: any two spelled amounts written one after the other never act and never read as a third number', () => {
    const langs: [Lang, string, (a: string) => string][] = [
      ['en', 'NGN', (x) => `send ${x} to @amina`],
      ['fr', 'XOF', (x) => `envoie ${x} à @moussa`],
      ['es', 'MXN', (x) => `envía ${x} a @juan`],
      ['pt', 'BRL', (x) => `manda ${x} pra @ana`],
      ['sw', 'KES', (x) => `tuma ${x} kwa @zawadi`],
    ];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: langs.length - 1 }), fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 }), (li, x, y) => {
        const [lang, cur, wrap] = langs[li]!;
        const [a, b] = [x * 1000, y * 1000];
        const r = read(wrap(`${toWords(a, lang)} ${toWords(b, lang)}`), cur);
        // Held (never acted on), and the amount is one of the two written, never a glued one.
        expect(r.hold?.length ?? 0).toBeGreaterThan(0);
        expect([String(a), String(b)]).toContain(r.amount);
      }),
      { numRuns: 200 },
    );
  });
});
