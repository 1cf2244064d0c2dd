import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../src/agent/local/index.js';
import { billerAliasIndex, loadBillerCatalogue } from '../../src/bills/catalogue.js';

/**
 * Issue 20: a bill whose biller the engine does not recognise is answered with the question
 * which biller, in the person's language, quoting none of their small words as if one were the
 * biller ("pour ma ?", "para sa yung?", "Ka ka meter…"). Real users' phrasings, per language.
 */
const billers = billerAliasIndex(loadBillerCatalogue());
const now = new Date('2030-01-01T00:00:00Z');

/** The language's "which biller?" question (or the whole "tell me biller, number and amount"). */
const WHICH: Record<string, RegExp> = {
  en: /^(Which biller should I pay\?|To pay a bill, tell me the biller)/,
  pcm: /^Which biller I go pay\?/,
  sw: /^Nilipe bili gani\?/,
  fr: /^(Quel fournisseur dois-je payer \?|Pour payer une facture, donnez le fournisseur)/,
  pt: /^Qual conta devo pagar\?/,
  es: /^¿Qué servicio debo pagar\?/,
  hi: /^Kaunsa bill bharna hai\?/,
  tl: /^Aling biller ang babayaran ko\?/,
};

const ROWS: [string, string, string][] = [
  ['en', 'NGN', 'pay my bill please 500'],
  ['en', 'NGN', 'pay the bill for my mum 2000'],
  ['pcm', 'NGN', 'abeg pay my light bill 5000'],
  ['pcm', 'NGN', 'abeg pay dis bill for me 3000'],
  // Issue h12: "token" is now the generic "tokens" (KPLC prepaid in Kenya: its meter number is asked); "stima" alone names no biller.
  ['sw', 'KES', 'lipa stima ya mita yangu 500'],
  ['sw', 'KES', 'lipa bill ya mama 1000'],
  ['sw', 'KES', 'nunua airtime ya mama 100'],
  ['fr', 'XOF', 'Pour ma facture de courant paye 5000'],
  ['fr', 'XOF', 'paie ma facture de mon frère 2000'],
  ['pt', 'BRL', 'paga minha conta de luz 100'],
  ['pt', 'BRL', 'paga a conta da minha mãe 80'],
  ['es', 'MXN', 'paga mi recibo de luz 300'],
  ['es', 'MXN', 'paga la factura de mi mamá 300'],
  ['hi', 'INR', 'mera bijli ka bill bhar do 500'],
  ['hi', 'INR', 'meri mummy ka bill bhar do 700'],
  ['tl', 'PHP', 'bayaran mo yung bill ko sa tubig 500'],
  ['tl', 'PHP', 'pakibayad ang bill ko 500'],
];

/** Small words a question must never name as the biller. */
const JUNK = /pour ma|pour la|para sa|para minha|para mi\b|para la\b|for my|ka meter|Ka ka|ya (lipa|nunua|lipia)|ni ipi/i;

describe('an unrecognised biller is asked for, not guessed from small words', () => {
  it.each(ROWS)('%s (%s): "%s"', (lang, currency, message) => {
    const r = parseMessage(message, { now, localCurrency: currency, billers });
    expect(r.kind, JSON.stringify(r)).toBe('none');
    const reply = (r as { reply: string }).reply;
    expect(reply).toMatch(WHICH[lang]!);
    expect(reply).not.toMatch(JUNK);
  });

  it('a name the catalogue does not know, in front of "meter", is still taken as the biller', () => {
    expect(parseMessage('pay my XYZ meter 12345678 with 500', { now, localCurrency: 'NGN', billers })).toMatchObject({
      kind: 'tool',
      call: { name: 'pay_bill', input: { biller: 'XYZ', account_number: '12345678', amount: '500' } },
    });
  });
});
