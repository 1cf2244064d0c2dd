import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Issue h9: the classes of failure the corridor-5 set (test/agent/eval/corridor-5.json, written
 * before reading the parser) showed. Each row is a class, checked on other words than the eval's,
 * with the near misses that must still not act at once (or must still act).
 */

describe('a correction of the amount in the same message is asked about, never held with either amount', () => {
  it('two amounts with a correcting word between them, in the eight languages', () => {
    for (const [cur, text] of [
      ['NGN', 'send 4000 to @ngozi, sorry i mean 400'],
      ['NGN', 'abeg send 7k to @tunde, no wait 5k'],
      ['KES', 'tuma 800 kwa @otieno, samahani 600'],
      ['XOF', 'envoie 7500 à @awa, pardon 5000'],
      ['BRL', 'manda 90 pra @bia, não pera, 70'],
      ['MXN', 'mándale 900 a @lupe, perdón, 800'],
      ['INR', '@neha ko 700 bhejo, matlab 600'],
      ['PHP', 'padala 900 kay @joy, teka, 800 pala'],
    ] as const) {
      expect(parse(cur, text), text).toMatchObject({ kind: 'none', reason: 'correction' });
    }
    expect(parse('XOF', 'envoie 7500 à @awa, pardon 5000')).toMatchObject({ reply: expect.stringContaining('montant') });
  });

  it('near misses: one amount with "sorry", a repeated amount, a meter number, Tagalog "pera" (money) are no correction', () => {
    expect(atOnce(parse('NGN', 'send 4000 to @ngozi, sorry for the delay'))).toBeUndefined();
    expect(parse('NGN', 'send 4000 to @ngozi, sorry for the delay')).not.toMatchObject({ reason: 'correction' });
    expect(parse('NGN', 'send 2000 2000 to @ngozi')).toMatchObject({ kind: 'tool', hold: ['2000'] });
    expect(atOnce(parse('NGN', 'pay 3,000 naira IKEDC meter no 45012345678'))?.input).toMatchObject({ amount: '3000', account_number: '45012345678' });
    expect(parse('PHP', 'send 300 kay @joy, wala pa siyang pera padala mo 500')).not.toMatchObject({ reason: 'correction' });
  });
});

describe('a spelled amount after an identifier is read whole', () => {
  it('Swahili says the thousand first ("elfu tatu"); a meter or account number is no multiplicand', () => {
    expect(atOnce(parse('KES', 'lipia KPLC meter 37198765432 elfu tatu'))?.input).toMatchObject({ account_number: '37198765432', amount: '3000' });
    expect(atOnce(parse('KES', 'lipa Zuku TV account 7654321 elfu moja'))?.input).toMatchObject({ account_number: '7654321', amount: '1000' });
  });

  it('digits before a scale still multiply ("2 elfu", "3 million")', () => {
    expect(atOnce(parse('KES', 'tuma 2 elfu kwa @otieno'))?.input).toMatchObject({ amount: '2000' });
    expect(atOnce(parse('NGN', 'send 3 million to @ngozi'))?.input).toMatchObject({ amount: '3000000' });
  });
});

describe('taking back an earlier payment is a cancellation, in every language', () => {
  it('"undo it", "annule ça", "desfaz isso", "deshaz eso", "futa hiyo", "radd karo"', () => {
    for (const [cur, text] of [
      ['NGN', 'undo it pls'],
      ['XOF', 'annule ça'],
      ['BRL', 'desfaz isso'],
      ['MXN', 'deshaz eso'],
      ['KES', 'futa hiyo transaction'],
      ['INR', 'pichla payment cancel karo'],
    ] as const) {
      expect(parse(cur, text), text).toMatchObject({ kind: 'none', reason: 'cancellation' });
    }
  });

  it('near misses: a market or a payment named by id keeps its own cancel', () => {
    expect(atOnce(parse('NGN', 'cancel the arsenal market'))).toMatchObject({ name: 'cancel_market' });
    expect(parse('NGN', 'cancel mkt_xyz')).not.toMatchObject({ reason: 'cancellation' });
  });
});

describe('Hindi in Devanagari reads like Roman Hinglish', () => {
  it('a transfer, and the gate\'s negation, past and condition', () => {
    expect(atOnce(parse('INR', '@neha को 300 रुपये भेजो'))?.input).toMatchObject({ recipient: '@neha', amount: '300', currency: 'INR' });
    expect(atOnce(parse('INR', '@neha को दो हज़ार भेज दो'))?.input).toMatchObject({ recipient: '@neha', amount: '2000' });
    expect(parse('INR', '@neha को 300 मत भेजो')).toMatchObject({ kind: 'none', reason: 'negation' });
    expect(parse('INR', 'मैंने कल @neha को 300 भेजा था')).toMatchObject({ kind: 'none', reason: 'past_tense' });
    expect(parse('INR', 'अगर वो आए तो @neha को 300 भेजो')).toMatchObject({ kind: 'none', reason: 'conditional' });
    expect(atOnce(parse('INR', 'मेरा बैलेंस कितना है?'))).toMatchObject({ name: 'get_balance' });
  });

  it('a Devanagari word outside the list stays unplaced: held', () => {
    expect(parse('INR', '@neha को 300 भेजो जल्दी')).toMatchObject({ kind: 'tool', hold: ['जल्दी'] });
  });
});

describe('an explanation that the recipient has no account or app yet', () => {
  it('"he doesnt have an account", Swahili "hawana app", Taglish "wala pa siyang account"', () => {
    expect(atOnce(parse('NGN', 'send 1k to 0805 111 2233, he doesnt have an account'))?.input).toMatchObject({ recipient: '08051112233', amount: '1000' });
    expect(atOnce(parse('KES', 'tuma 700 kwa 0722 987 654, hawana app'))?.input).toMatchObject({ recipient: '0722987654', amount: '700' });
    expect(atOnce(parse('PHP', 'send 250 sa 0917 555 1234, wala pa siyang account'))?.input).toMatchObject({ recipient: '09175551234', amount: '250' });
  });

  it('near misses: having an account, or a new order in the tail, still hold', () => {
    expect(atOnce(parse('NGN', 'send 1k to 0805 111 2233, he has an account'))).toBeUndefined();
    expect(atOnce(parse('KES', 'tuma 700 kwa 0722 987 654, hana pesa, tuma 500'))).toBeUndefined();
  });

  it('a message ending in "pa" does not throw', () => {
    expect(() => parse('PHP', 'send 300 kay @joy, wala pa')).not.toThrow();
  });
});

describe('small words corridor-5 showed', () => {
  it('the Swahili applicative with an object ("niwekee", "mwekee", "mnunulie") is the verb', () => {
    expect(atOnce(parse('KES', 'niwekee credo ya 50 kwa 0733 123 456'))).toMatchObject({ name: 'pay_bill', input: { account_number: '0733123456', amount: '50' } });
    expect(atOnce(parse('KES', 'mnunulie airtime ya 20 kwa 0722 334 455'))).toMatchObject({ name: 'pay_bill', input: { amount: '20' } });
  });

  it('greetings alone are answered with help; a greeting before a request does not change it', () => {
    for (const [cur, text] of [['XOF', 'bonsoir'], ['INR', 'namaskar'], ['KES', 'niaje'], ['BRL', 'olá'], ['PHP', 'kumusta'], ['MXN', 'buenos días']] as const) {
      expect(parse(cur, text), text).toEqual({ kind: 'help' });
    }
    expect(atOnce(parse('BRL', 'oi, manda 60 pra @bia'))?.input).toMatchObject({ recipient: '@bia', amount: '60' });
  });
});
