import { describe, expect, it } from 'vitest';
import { atOnce, nameOf, parse, reason } from './local-parse-helpers.js';

/**
 * Lead, sixteenth round, from a probe of the tools beside transfers (bills, links, refunds, quotes):
 * "no need to send 5000 to @amaka" SENT 5,000 and "no need to pay the ikedc … 3000" paid the bill
 * (English "no" negated only a verb right after it); "forget the 5000 link", "não precisa fazer o
 * link de 80" and six more made links; "send half of 10k to @amaka" held a send of 10,000 and
 * "refund half of pay_x" a FULL refund, one tap from moving; "give me a quote for 100 usd to @amina"
 * held the send it asked the price of.
 */
describe('"no need to …" in eight languages: the move is not wanted', () => {
  const notWanted: Array<[string, string]> = [
    ['NGN', 'no need to send 5000 to @amaka'],
    ['NGN', 'no need to pay the ikedc 45123456789 3000'],
    ['NGN', 'no need to make the link for 5000'],
    ['NGN', 'forget the 5000 link'],
    ['NGN', 'you dont have to transfer 2k to @chidi again'],
    ['NGN', 'sending 5k to @amaka is not necessary'],
    ['BRL', 'não precisa fazer o link de 80'],
    ['BRL', 'nem precisa mandar 80 pro @rafa'],
    ['MXN', 'no hace falta mandar 200 a @lupita'],
    ['MXN', 'no es necesario el link de 350'],
    ['XOF', "pas besoin d'envoyer 5000 à @awa"],
    ['XOF', 'pas la peine de créer le lien de 5000'],
    ['KES', 'hakuna haja ya kutuma 500 kwa @musa_kip'],
    ['KES', 'usitengeneze link ya 500'],
    ['INR', '@rahul ko 500 bhejne ki zaroorat nahi'],
    ['PHP', 'di na kailangan yung link na 500'],
    ['PHP', 'hindi na kailangan magpadala ng 500 kay @josebau'],
  ];
  it('moves nothing, makes nothing, and says it was taken as a negation', () => {
    for (const [cur, text] of notWanted) {
      expect(atOnce(parse(cur, text)), text).toBeUndefined();
      expect(parse(cur, text).kind, text).toBe('none');
      expect(reason(cur, text), text).toBe('negation');
    }
  });
  it('"no need" about something else leaves the request as it was', () => {
    // The word after the phrase is another verb: the request in the next clause stands.
    expect(atOnce(parse('NGN', 'no need to wait, send 5000 to @amaka'))).toBeUndefined(); // held: the clause's words unplaced, as before
    expect(nameOf('NGN', 'no need to wait, send 5000 to @amaka')).toBe('send_transfer');
    expect(nameOf('BRL', 'manda 80 pro @rafa, não precisa de recibo')).toBe('send_transfer');
    expect(nameOf('XOF', 'envoie 5000 à @awa, pas besoin de me confirmer')).toBe('send_transfer');
    expect(atOnce(parse('NGN', 'send 5000 to @amaka'))).toMatchObject({ name: 'send_transfer', input: { amount: '5000' } });
    expect(atOnce(parse('NGN', 'make a payment link for 15000 for the ankara fabric'))).toMatchObject({ name: 'create_payment_link', input: { amount: '15000' } });
    // Swahili "usiku" (night) is no negative imperative.
    expect(reason('KES', 'usiku huu tuma 500 kwa @musa_kip')).not.toBe('negation');
  });
});

describe('a share of a figure ("half of 10k", "50% of pay_x") is never the figure', () => {
  const shares: Array<[string, string, string]> = [
    ['NGN', 'send half of 10k to @amaka', 'half of 10k'],
    ['NGN', 'refund half of pay_abc123', 'half of pay_abc123'],
    ['NGN', 'refund 50% of pay_abc123', '50% of pay_abc123'],
    ['NGN', 'pay ikedc 45123456789 half of 6000', 'half of 6000'],
    ['NGN', 'stake half of 2k on yes for the arsenal market', 'half of 2k'],
    ['KES', 'tuma nusu ya 10k kwa @musa_kip', 'nusu ya 10k'],
    ['XOF', 'envoie la moitié de 10000 à @awa', 'moitié de 10000'],
    ['BRL', 'manda metade de 100 pro @rafa', 'metade de 100'],
    ['MXN', 'manda la mitad de 1000 a @lupita', 'mitad de 1000'],
    ['INR', '@rahul ko 1000 ka aadha bhej do', '1000 ka aadha'],
    ['PHP', 'ipadala mo kalahati ng 1000 kay @josebau', 'kalahati ng 1000'],
  ];
  it('is refused as an amount that could not be read, quoting the words, with nothing held', () => {
    for (const [cur, text, words] of shares) {
      const r = parse(cur, text);
      expect(r.kind, text).toBe('refuse');
      expect(r.kind === 'refuse' ? r.reply : '', text).toContain(words);
    }
  });
  it('a share outside the amount ("half for school fees", a reason) changes nothing', () => {
    expect(nameOf('NGN', 'send 5000 to @amaka, half for school fees')).toBe('send_transfer');
    expect(atOnce(parse('NGN', 'refund pay_abc123, customer returned half of the order'))).toMatchObject({ name: 'refund_payment', input: { payment_id: 'pay_abc123' } });
    expect(atOnce(parse('NGN', 'send 1.5k to @amaka'))).toMatchObject({ name: 'send_transfer', input: { amount: '1500' } });
  });
});

describe('a quote asked for by name is a quote, not the send it prices', () => {
  it('quotes (moves nothing) in each phrasing', () => {
    for (const [cur, text, amount] of [
      ['USD', 'quote me 100 usd to @amina', '100'],
      ['USD', 'give me a quote for 100 usd to @amina', '100'],
      ['NGN', 'get me a quote: 50k to @amaka', '50000'],
      ['BRL', 'me passa a cotação de 500 reais pro @rafa', '500'],
      ['MXN', 'cotízame 1000 pesos a @lupita', '1000'],
      ['XOF', 'fais-moi un devis pour 5000 à @awa', '5000'],
    ] as const) {
      expect(atOnce(parse(cur, text)), text).toMatchObject({ name: 'quote_transfer', input: { amount } });
    }
  });
});

describe('a ceiling ("up to 5000", "até 50") and a doubting emoji are no plain request', () => {
  it('holds instead of acting', () => {
    for (const [cur, text] of [
      ['NGN', 'send up to 5000 to @amaka'],
      ['BRL', 'manda até 50 pro @rafa'],
      ['NGN', 'send 5000 to @amaka ❌'],
      ['NGN', 'send 5000 to @amaka 🚫'],
      ['NGN', 'send 5000 to @amaka 🤔'],
      ['KES', 'tuma 500 kwa @musa_kip 🙅'],
      ['NGN', 'pay ikedc 45123456789 3000 ⛔'],
    ] as const) {
      const r = parse(cur, text);
      expect(atOnce(r), text).toBeUndefined();
      expect(r.kind, text).toBe('tool'); // held for confirmation, with what was understood
    }
  });
  it('a friendly emoji, "top up", "até amanhã" before a plain request still act', () => {
    expect(atOnce(parse('NGN', 'send 5000 to @amaka 🙏🏾'))).toMatchObject({ name: 'send_transfer', input: { amount: '5000' } });
    expect(atOnce(parse('NGN', 'send 5000 to @amaka 😘'))).toMatchObject({ name: 'send_transfer', input: { amount: '5000' } });
    expect(atOnce(parse('BRL', 'manda 50 pro @rafa'))).toMatchObject({ name: 'send_transfer', input: { amount: '50' } });
  });
});

describe('Pidgin "make i check first" after a request is the writer checking first, not its purpose', () => {
  it('holds', () => {
    for (const text of ['send 5k to @amaka make i check first', 'abeg send 5k to @amaka, e remain small make i confirm', 'send 2k to @chidi make i verify am']) {
      expect(atOnce(parse('NGN', text)), text).toBeUndefined();
      expect(nameOf('NGN', text), text).toBe('send_transfer');
    }
  });
  it('a purpose after "make" still acts', () => {
    expect(atOnce(parse('NGN', 'send 5k to @amaka make she buy food'))).toMatchObject({ name: 'send_transfer', input: { amount: '5000' } });
  });
});

// "sava sau" is read since h17eval (125: local-corridor-12-words.unit.test.ts).
describe('a word or number touching the amount that nothing placed may scale it ("2 mill", "5k5")', () => {
  it('is asked for in plain digits instead of held with the bare figure as its amount', () => {
    for (const [cur, text, quoted] of [
      ['NGN', 'send 2 mill to @amaka', '2 mill'],
      ['NGN', 'send 5k5 to @amaka', '5k5'],
      ['KES', 'tuma ngiri mbili kwa @musa_kip', 'ngiri mbili'],
      ['BRL', 'manda 10 pau pro @rafa', '10 pau'],
      ['MXN', 'mándale 2 palos a @lupita', '2 palos'],
      ['INR', '@rahul ko 5 peti bhejo', '5 peti'],
    ] as const) {
      const r = parse(cur, text);
      expect(r.kind, text).toBe('refuse');
      expect(r.kind === 'refuse' ? r.reply : '', text).toContain(quoted);
    }
  });
  it('words that only say the figure is exact, and currency words, keep their old reading', () => {
    for (const [cur, text] of [['NGN', 'send 500 only to @amaka'], ['KES', 'tuma 500 tu kwa @musa_kip'], ['MXN', 'mándale 200 nomas a @lupita'], ['NGN', 'send 5000 nairas to @amaka']] as const) {
      expect(parse(cur, text).kind, text).toBe('tool');
    }
    expect(atOnce(parse('GHS', 'send 50 cedis to @yaw'))).toMatchObject({ name: 'send_transfer', input: { amount: '50', currency: 'GHS' } });
    // A word after a figure of 100 or more is no scale to fear ("send 500 fast"): held, as before, never refused.
    for (const text of ['send 500 fast to @amaka', 'send 500 cuz to @amaka', 'manda 500 amigo pro @rafa']) expect(parse('NGN', text).kind, text).toBe('tool');
    expect(atOnce(parse('KES', 'tuma 500 bob kwa @musa_kip'))).toMatchObject({ name: 'send_transfer', input: { amount: '500' } });
  });
});
