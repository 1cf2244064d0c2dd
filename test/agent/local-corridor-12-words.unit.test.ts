import { describe, expect, it } from 'vitest';
import { atOnce, nameOf, parse, reason } from './local-parse-helpers.js';
import { readNumberWords } from '../../src/agent/local/number-words.js';
import { detectLanguage } from '../../src/agent/local/language.js';

/**
 * Seventeenth round (h17eval): the classes of failure corridor-12 (test/agent/eval/corridor-12.json,
 * written blind) and the last round's known misses showed, each tested with phrasings of its own,
 * never the set's rows.
 */

describe('Hindi fractions of a hundred or a scale: "dhai sau" 250, "dedh sau" 150, "sawa" +¼, "paune" -¼, "saadhe" +½', () => {
  it('reads them as one exact number', () => {
    const read = (s: string) => readNumberWords(s.split(' '), 'hi')?.value;
    expect(read('dhai sau')).toBe('250');
    expect(read('dedh sau')).toBe('150');
    expect(read('derh hazaar')).toBe('1500');
    expect(read('sawa sau')).toBe('125');
    expect(read('sawa do sau')).toBe('225');
    expect(read('sava lakh')).toBe('125000');
    expect(read('paune sau')).toBe('75');
    expect(read('paune teen hazaar')).toBe('2750');
    expect(read('saadhe chaar sau')).toBe('450');
    expect(read('sadhe paanch hazaar')).toBe('5500');
  });
  it('a share with nothing to scale is no number ("saadhe sau", "sawa" alone)', () => {
    const read = (s: string) => readNumberWords(s.split(' '), 'hi')?.value;
    expect(read('saadhe sau')).toBeUndefined();
    expect(read('sawa')).toBeUndefined();
    expect(read('paune das')).toBeUndefined();
  });
  it('moves exactly that amount, never the hundred alone', () => {
    expect(atOnce(parse('INR', '@arjun ko dhai sau bhej do'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@arjun', amount: '250' } });
    expect(atOnce(parse('INR', '@arjun ko dedh sau bhejna'))).toMatchObject({ input: { amount: '150' } });
    expect(atOnce(parse('INR', '@priya ko paune do hazaar bhej do'))).toMatchObject({ input: { amount: '1750' } });
    expect(atOnce(parse('INR', 'sawa sau ka payment link banao'))).toMatchObject({ name: 'create_payment_link', input: { amount: '125' } });
  });
  it('Swahili "sawa" (ok) is still no number', () => {
    const r = parse('KES', 'sawa, tuma 700 kwa @zawadi');
    expect(r.kind === 'tool' && r.call.input.amount).toBe('700');
  });
});

describe('a stake on a side named by who wins ("on X winning", "no X campeão", "a que X gana")', () => {
  it('names the market by the clause and the side by the winner', () => {
    expect(atOnce(parse('NGN', 'place 3k on Nigeria winning afcon'))).toMatchObject({ name: 'stake_market', input: { market: 'Nigeria winning afcon', outcome: 'Nigeria winning', amount: '3000' } });
    expect(atOnce(parse('KES', 'bet 200 on Arsenal to win the league'))).toMatchObject({ name: 'stake_market', input: { outcome: 'Arsenal win', amount: '200' } });
  });
  it('a yes or no said as well is the side', () => {
    expect(atOnce(parse('BRL', 'bota 40 no Flamengo campeão, Não'))).toMatchObject({ input: { outcome: 'Não' } });
  });
  it('a name after the link and a yes or no said apart: the name is the market, the yes/no the side', () => {
    expect(parse('PHP', 'pusta 150 sa Gilas, No!')).toMatchObject({ kind: 'tool', call: { input: { market: 'Gilas', outcome: 'No' } } });
    expect(parse('GHS', 'stake 20 on Arsenal, Yes')).toMatchObject({ kind: 'tool', call: { input: { market: 'Arsenal', outcome: 'Yes' } } });
  });
  it('two sides named by who wins is no stake on either', () => {
    expect(atOnce(parse('NGN', 'put 2k on Nigeria winning or Senegal winning'))).toBeUndefined();
  });
  it('Portuguese "no" (in the) before the name is never the side "No"', () => {
    const r = parse('BRL', 'coloca 40 no Flamengo campeão');
    expect(r.kind === 'tool' && r.call.input.outcome).not.toBe('No');
    expect(r.kind === 'tool' && r.call.input.outcome).toBe('Flamengo campeão');
  });
});

describe('a time in a later clause about a third person is no schedule: held, not refused', () => {
  for (const [cur, text] of [
    ['KES', 'weka 300 kwa Hapana kwa ile ya mvua, they say it rains every weekend'],
    ['NGN', 'put 1k on No for the bbnaija thing, they always choose men every season'],
  ] as const) {
    it(text, () => {
      expect(reason(cur, text)).not.toBe('scheduled');
      expect(atOnce(parse(cur, text))).toBeUndefined();
    });
  }
  it('a recurrence of the payment itself is still refused, and a day in such a clause is still a schedule', () => {
    expect(reason('NGN', 'send 2k to @amaka, every friday')).toBe('scheduled');
    expect(reason('NGN', 'send 2k to @amaka, she needs it on friday')).toBe('scheduled');
  });
});

describe('Spanish, Portuguese and French words that were not language markers ("hazme", "pago", "unos", "faz", "fais")', () => {
  it('picks the language the message is written in', () => {
    expect(detectLanguage('haz un link de pago de 700')).toBe('es');
    expect(detectLanguage('hazle un link de pago de 1200')).toBe('es');
    expect(detectLanguage('faz um link de pagamento de 60')).toBe('pt');
    expect(detectLanguage('fais un lien de 3000')).toBe('fr');
  });
  it('an estimate on a payment link is asked about, in Spanish', () => {
    const r = parse('MXN', 'haz un link de pago de unos 800');
    expect(r.kind).toBe('none');
    expect(r.kind === 'none' && r.reply).toMatch(/¿Cuánto/);
  });
});

describe('a quote of a share of an amount prices the share, never the whole', () => {
  it('halves, quarters and percentages', () => {
    expect(atOnce(parse('NGN', 'how much is half of 20k in usd?'))).toMatchObject({ name: 'quote_transfer', input: { amount: '10000' } });
    expect(atOnce(parse('KES', 'robo ya 8000 ni dola ngapi?'))).toMatchObject({ name: 'quote_transfer', input: { amount: '2000' } });
    expect(atOnce(parse('MXN', '¿cuánto es el 10% de 3000 en dólares?'))).toMatchObject({ name: 'quote_transfer', input: { amount: '300' } });
  });
  it('a share that is not exact is asked about, and a share to send is never guessed', () => {
    expect(nameOf('NGN', 'what is a third of 10k in dollars')).toBe('refuse');
    expect(nameOf('NGN', 'send half of 20k to @amaka')).toBe('refuse');
  });
});

describe('probe round: money moved that nobody asked for', () => {
  it('a possessive before a word of address makes it a person talked about, not a call ("my boss put 50 on…")', () => {
    for (const [cur, text] of [
      ['GHS', 'my boss put 40 on Yes in the arsenal market'],
      ['NGN', 'my oga put 2k on Nigeria for the afcon market'],
      ['ZAR', 'his bru put R100 on No for the arsenal market'],
    ] as const) expect(atOnce(parse(cur, text)), text).toBeUndefined();
    // Still a call when it calls: "boss, send…", "sawa boss tuma…".
    expect(atOnce(parse('NGN', 'boss send 3k to @amaka'))).toMatchObject({ input: { amount: '3000' } });
    expect(atOnce(parse('KES', 'sawa boss tuma 300 kwa @zawadi'))).toMatchObject({ input: { amount: '300' } });
  });
  it('nine or more bare digits are never an amount (a phone typed without its 0)', () => {
    expect(atOnce(parse('KES', 'tuma 711222333 kwa @musa_kip'))).toBeUndefined();
    expect(atOnce(parse('NGN', 'send 8031112233 to @aisha'))).toBeUndefined();
    expect(atOnce(parse('NGN', 'send 2500000 to @aisha'))).toMatchObject({ input: { amount: '2500000' } });
  });
  it('a recurrence in a later clause is held, never acted on at once', () => {
    for (const [cur, text] of [
      ['XOF', 'envoie 3000 à @aminata, elle en a besoin chaque mois'],
      ['MXN', 'mándale 300 a @juanperez, él lo necesita cada semana'],
      ['BRL', 'manda 80 pra @joana, ela precisa toda semana'],
    ] as const) expect(atOnce(parse(cur, text)), text).toBeUndefined();
  });
});
