import { describe, expect, it } from 'vitest';
import { atOnce, nameOf, parse, reason } from './local-parse-helpers.js';

/**
 * Sixteenth round (h16eval): the classes of failure corridor-11 (test/agent/eval/corridor-11.json,
 * written blind) showed, each tested with phrasings of its own, never the set's rows.
 */

describe('"lucas" after a number are thousands of pesos (Argentina, Colombia, Chile)', () => {
  it('reads the thousands, never the bare figure', () => {
    expect(atOnce(parse('MXN', 'pasale 5 lucas a @lupita porfa'))).toMatchObject({ input: { recipient: '@lupita', amount: '5000' } });
    expect(atOnce(parse('MXN', 'mándale 1.5 lucas a @juanperez'))).toMatchObject({ input: { amount: '1500' } });
    expect(atOnce(parse('MXN', 'mandale 3 luquitas a @lupita'))).toMatchObject({ input: { amount: '3000' } });
  });
  it('a person called Lucas is no scale', () => {
    expect(atOnce(parse('MXN', 'mándale 500 a Lucas'))).toBeUndefined();
  });
});

describe('a time that dates a noun ("kal ka dinner", "la fiesta de mañana") is no schedule: held, not refused', () => {
  for (const [cur, text] of [
    ['INR', '@arjun ko 900 bhej do, kal ki movie'],
    ['INR', 'kal ke lunch ke liye @arjun ko 300 bhej do'],
    ['MXN', 'pásale 400 a @juanperez, los tacos de ayer'],
    ['BRL', 'manda 30 pra @ana_souza, a pizza de ontem'],
    ['XOF', 'envoie 2000 à @aminata pour le taxi de demain'],
  ] as const) {
    it(text, () => {
      const r = parse(cur, text);
      expect(r.kind, JSON.stringify(r)).toBe('tool');
      expect(atOnce(r)).toBeUndefined();
    });
  }
  it('the time of the payment itself is still a schedule', () => {
    for (const [cur, text] of [['INR', '@arjun ko kal 900 bhej dena'], ['MXN', 'pásale 400 a @juanperez mañana'], ['BRL', 'manda 30 pra @ana_souza amanhã']] as const) expect(reason(cur, text), text).toBe('scheduled');
  });
});

describe('a bill named only by its kind: the one biller of that kind in the country whose account fits', () => {
  it('Kenyan electricity with a meter is KPLC prepaid', () => {
    for (const text of ['lipia umeme 1,500 mita 37123456789', 'nunua stima ya 500, mita ni 37123456789', 'pay electricity 800 meter 37123456789']) {
      expect(atOnce(parse('KES', text)), text).toMatchObject({ name: 'pay_bill', input: { biller: 'ke-kplc-prepaid', account_number: '37123456789' } });
    }
  });
  it('where several fit (Nigeria, South Africa, Ghana) it still asks which', () => {
    expect(nameOf('NGN', 'pay electricity 5k meter 45123456789')).toBe('none');
    expect(nameOf('ZAR', 'buy electricity R150 meter 01234567890')).toBe('none');
    expect(nameOf('GHS', 'buy light 40 cedis meter 20123456789')).toBe('none');
  });
});

describe('bets in the plural asked for as open are a listing, not a stake without its market', () => {
  for (const [cur, text] of [['XOF', 'montre-moi les paris ouverts stp'], ['GHS', 'which bets are open now?'], ['MXN', 'qué apuestas hay abiertas hoy'], ['BRL', 'quais apostas estão abertas?']] as const) {
    it(text, () => expect(atOnce(parse(cur, text))).toMatchObject({ name: 'list_markets', input: { status: 'open' } }));
  }
  it('a stake with its amount is still a stake', () => {
    expect(atOnce(parse('XOF', 'mets 1000 sur Non pour la CAN'))?.name).toBe('stake_market');
  });
});

describe('Pidgin copula "na" between the account word and its number', () => {
  for (const text of ['abeg buy 3k EKEDC token, meter na 12345678901', 'pay my IKEDC 4k, my meter na 45123456789']) {
    it(text, () => expect(atOnce(parse('NGN', text))).toMatchObject({ name: 'pay_bill' }));
  }
});
