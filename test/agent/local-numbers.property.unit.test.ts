import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseMessage, type ParseContext } from '../../src/agent/local/index.js';
import { readDigits, styleFor } from '../../src/agent/local/numbers.js';
import { readNumberWords, toWords } from '../../src/agent/local/number-words.js';
import type { Lang } from '../../src/agent/local/language.js';
import { billerAliasIndex, loadBillerCatalogue } from '../../src/bills/catalogue.js';

/**
 * Issue 11, item 2: numbers are exact or refused. Every rendering of a random amount in each
 * supported notation reads back exactly, through the number reader and through the whole
 * parser; every malformed rendering is refused and never becomes a transfer.
 */

const billers = billerAliasIndex(loadBillerCatalogue());
const ctx = (localCurrency = 'NGN'): ParseContext => ({ now: new Date('2026-03-11T10:00:00Z'), localCurrency, billers });
const RUNS = { numRuns: 300 };

const group = (digits: string, sep: string) => digits.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
const decimal = (n: number, cents: number) => (cents ? `${n}.${String(cents).padStart(2, '0').replace(/0$/, '')}` : String(n));

/** An amount: integer part and cents, and its exact decimal string. */
const amount = fc.record({ n: fc.integer({ min: 1, max: 999_999_999 }), cents: fc.integer({ min: 0, max: 99 }) });

function transferAmount(message: string, localCurrency = 'NGN'): string | undefined {
  const r = parseMessage(message, ctx(localCurrency));
  return r.kind === 'tool' && r.call.name === 'send_transfer' ? r.call.input.amount : undefined;
}

describe('number reader: every notation reads back exactly', () => {
  it('plain, comma-grouped and dot-decimal ("1234.5", "1,234.50")', () => {
    fc.assert(
      fc.property(amount, ({ n, cents }) => {
        const want = decimal(n, cents);
        const c = cents ? `.${String(cents).padStart(2, '0')}` : '';
        for (const written of [`${n}${c}`, `${group(String(n), ',')}${c}`]) {
          if (/^\d+$/.test(written)) continue; // plain digits need no reader
          expect(readDigits(written, styleFor('USD', 'en'))).toEqual({ ok: true, value: want });
          expect(transferAmount(`send ${written} USD to @amina`)).toBe(want);
        }
        expect(transferAmount(`send ${n}${c} USD to @amina`)).toBe(want);
      }),
      RUNS,
    );
  });

  it('dot thousands and decimal comma where the currency writes so ("1.000,50 EUR", "R$ 120,00")', () => {
    fc.assert(
      fc.property(amount, ({ n, cents }) => {
        const want = decimal(n, cents);
        const c = cents ? `,${String(cents).padStart(2, '0')}` : '';
        const written = `${group(String(n), '.')}${c}`;
        expect(transferAmount(`send ${written} EUR to @amina`)).toBe(want);
        expect(transferAmount(`manda R$ ${written} pra @ana`, 'BRL')).toBe(want);
      }),
      RUNS,
    );
  });

  it('space thousands ("10 000") and k/m suffixes ("5k", "2.5m")', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 999_999_999 }), (n) => {
        expect(transferAmount(`send ${group(String(n), ' ')} KES to @amina`, 'KES')).toBe(String(n));
      }),
      RUNS,
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999 }), fc.integer({ min: 0, max: 9 }), (k, tenth) => {
        const kText = tenth ? `${k}.${tenth}` : String(k);
        expect(transferAmount(`send ${kText}k to @amina`)).toBe(String(k * 1000 + tenth * 100));
        expect(transferAmount(`send ${kText}m to @amina`)).toBe(String(k * 1_000_000 + tenth * 100_000));
      }),
      RUNS,
    );
  });

  it('number words in English through the parser ("twenty dollars", "two million five hundred thousand")', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999 }), (n) => {
        expect(transferAmount(`send ${toWords(n, 'en')} dollars to @amina`)).toBe(String(n));
      }),
      RUNS,
    );
  });

  const reads = (n: number, lang: Lang) => {
    const words = toWords(n, lang).split(' ');
    const r = readNumberWords(words, lang);
    expect(r, `${lang}: ${words.join(' ')}`).toMatchObject({ value: String(n), length: words.length });
  };

  it.each(['fr', 'es', 'pt'] as const)('number words in %s up to the millions', (lang) => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 999_999_999 }), (n) => reads(n, lang)), RUNS);
  });

  it('number words in Swahili ("elfu tatu", "mia tano", "milioni mbili na elfu mia tano")', () => {
    // Groups below a hundred right after "elfu kumi" are ambiguous in speech ("elfu kumi na tano"
    // is said for 15,000); the generator keeps to amounts Swahili writes one way.
    const sw = fc
      .record({ m: fc.integer({ min: 0, max: 999 }), th: fc.oneof(fc.constant(0), fc.integer({ min: 10, max: 999 })), rest: fc.oneof(fc.constant(0), fc.integer({ min: 100, max: 999 })) })
      .map(({ m, th, rest }) => m * 1_000_000 + th * 1000 + rest)
      .filter((n) => n > 0);
    fc.assert(fc.property(sw, (n) => reads(n, 'sw')), RUNS);
    expect(readNumberWords(['elfu', 'tatu'], 'sw')?.value).toBe('3000');
  });

  it('number words in Hindi-English ("do hazaar", "paanch sau", "dhai lakh")', () => {
    const small = fc.constantFrom(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90);
    const hi = fc
      .record({ lakh: fc.oneof(fc.constant(0), small), th: fc.oneof(fc.constant(0), small), hd: fc.integer({ min: 0, max: 9 }), r: fc.oneof(fc.constant(0), small) })
      .map(({ lakh, th, hd, r }) => lakh * 100_000 + th * 1000 + hd * 100 + r)
      .filter((n) => n > 0);
    fc.assert(fc.property(hi, (n) => reads(n, 'hi')), RUNS);
    expect(readNumberWords(['dhai', 'lakh'], 'hi')?.value).toBe('250000');
  });

  it('number words in Taglish ("dalawang libo", "limang daan")', () => {
    const below = fc.integer({ min: 0, max: 999 }).filter((x) => x % 100 < 11 || x % 100 > 19);
    const tl = fc
      .record({ th: below, rest: below })
      .map(({ th, rest }) => th * 1000 + rest)
      .filter((n) => n > 0);
    fc.assert(fc.property(tl, (n) => reads(n, 'tl')), RUNS);
  });
});

describe('number reader: malformed renderings are refused, never moved', () => {
  const malformedEverywhere = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: -9, max: 12 })).map(([a, e]) => `${a}e${e}`),
    fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 2, max: 99 })).map(([a, b]) => `${a}/${b}`),
    fc.integer({ min: 1, max: 99_999 }).map((a) => `-${a}`),
    fc.integer({ min: 1, max: 99_999 }).map((a) => `\u2212${a}`),
    fc.integer({ min: 1, max: 99_999 }).map((a) => `(${a})`),
    fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 100, max: 999 })).map(([a, b]) => `${a},,${b}`),
    fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 99 })).map(([a, b]) => `${a}..${b}`),
    fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 })).map(([a, b, c]) => `${a}.${b}.${c}`),
    // Shapes around the digits (issue 11's unseen messages): ranges, products, underscores, brackets,
    // a separator glued in front, a split group, superscripts and vulgar fractions.
    fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 1, max: 999 }), fc.constantFrom('-', ' - ', '\u2013')).map(([a, b, d]) => `${a}${d}${b}`),
    fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 1, max: 99 })).map(([a, b]) => `${a}*${b}`),
    fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 100, max: 999 })).map(([a, b]) => `${a}_${b}`),
    fc.integer({ min: 1, max: 99_999 }).map((a) => `[${a}]`),
    fc.tuple(fc.constantFrom(',', '.'), fc.integer({ min: 1, max: 999 })).map(([p, a]) => `${p}${a}`),
    fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 99 })).map(([a, b]) => `${a} ${String(b).padStart(2, '0')}`),
  );
  // Superscripts and vulgar fractions: refused (quoted in their plain form, "5^2", "1/2"), never merged into "52" or "2".
  const unicodeOdd = fc.oneof(
    fc.tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom('\u00B2', '\u00B3', '\u2079')).map(([a, p]) => `${a}${p}`),
    fc.tuple(fc.integer({ min: 0, max: 99 }), fc.constantFrom('\u00BD', '\u00BC', '\u00BE', '\u2153')).map(([a, f]) => `${a || ''}${f}`),
  );
  // "12,50" is 12.50 where the currency writes a decimal comma (francs, reais), ambiguous in a dot-decimal one.
  const malformed = fc.oneof(
    malformedEverywhere,
    fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 1, max: 99 })).map(([a, b]) => `${a},${String(b).padStart(2, '0')}`),
  );

  it('is refused with a reply quoting it (a dot-decimal currency, English)', () => {
    fc.assert(
      fc.property(malformed, (odd) => {
        const r = parseMessage(`send ${odd} USD to @zawadi`, ctx());
        expect(r.kind, odd).toBe('refuse');
        if (r.kind === 'refuse') expect(r.reply).toContain(`"${odd}`);
      }),
      RUNS,
    );
  });

  it('superscripts and vulgar fractions are refused, never read as other digits', () => {
    fc.assert(
      fc.property(unicodeOdd, (odd) => {
        expect(parseMessage(`send ${odd} USD to @zawadi`, ctx()).kind, odd).toBe('refuse');
      }),
      RUNS,
    );
  });

  it('never becomes a transfer in any corridor language', () => {
    const frames = ['send {x} USD to @zawadi', 'abeg send {x} naira give @amaka', 'tuma {x} kwa @musa', 'envoie {x} francs à @moussa', 'envia {x} dólares para @ana', 'envía {x} pesos a @juan', '@priya ko {x} rupaye bhejo', 'padala {x} kay @liza'];
    fc.assert(
      fc.property(fc.oneof(malformedEverywhere, unicodeOdd), fc.constantFrom(...frames), (odd, frame) => {
        const r = parseMessage(frame.replace('{x}', odd), ctx());
        expect(r.kind === 'tool' && r.call.name === 'send_transfer', `${frame} / ${odd}`).toBe(false);
      }),
      RUNS,
    );
  });
});
