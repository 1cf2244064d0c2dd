import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Issue h10: the classes of failure the corridor-6 set (test/agent/eval/corridor-6.json, written
 * and committed before reading the parser) showed. Each row is a class, checked on other words
 * than the eval's, with the near misses that must still not act at once (or must still act).
 */

const amountOf = (cur: string, text: string) => {
  const r = parse(cur, text);
  return r.kind === 'tool' ? (r.call.input as { amount?: string }).amount : undefined;
};

describe('a spelled amount is read whole, never cut short by another language\'s number word', () => {
  it('a run that stops before a hundreds or scale word of another language is no amount (was 1000 for "mil doscientos")', () => {
    // Portuguese verbs and "pra" make the message Portuguese; "trescientos" is Spanish.
    expect(amountOf('BRL', 'envia mil trescientos pra @bia')).not.toBe('1000');
    expect(atOnce(parse('BRL', 'envia mil trescientos pra @bia'))).toBeUndefined();
  });

  it('Spanish hundreds and "pesos" say the message is Spanish: "mil trescientos" is 1300', () => {
    expect(atOnce(parse('MXN', 'transfiere mil trescientos pesos a @lupe'))?.input).toMatchObject({ amount: '1300', currency: 'MXN' });
    expect(atOnce(parse('MXN', 'pasa dos mil cuatrocientos a @lupe'))?.input).toMatchObject({ amount: '2400' });
  });

  it('Tagalog "libo\'t" is "libo at": "isang libo\'t limang daan" is 1500 (was 500 with "isang libo\'t" left over)', () => {
    expect(atOnce(parse('PHP', "padala isang libo't limang daan kay @joy"))?.input).toMatchObject({ amount: '1500' });
  });

  it('near misses: runs of one language still read as before', () => {
    expect(atOnce(parse('BRL', 'manda mil e trezentos pra @bia'))?.input).toMatchObject({ amount: '1300' });
    expect(atOnce(parse('NGN', 'send two thousand five hundred to @ngozi'))?.input).toMatchObject({ amount: '2500' });
    expect(atOnce(parse('XOF', 'envoie deux mille cinq cents à @awa'))?.input).toMatchObject({ amount: '2500' });
  });
});

describe('South African rand: a comma before two digits is cents', () => {
  it('"R99,50" is 99.50 and "R1 200,00"-style cents are read (was refused as an unreadable amount)', () => {
    expect(atOnce(parse('ZAR', 'send R99,50 to @sipho'))?.input).toMatchObject({ amount: '99.5', currency: 'ZAR' });
    expect(atOnce(parse('ZAR', 'pay @sipho R480,00 for the groceries'))?.input).toMatchObject({ amount: '480' });
  });

  it('"R 250", "N 5000": the writer\'s own currency letter one space before the amount (was held with "R" unplaced)', () => {
    expect(atOnce(parse('ZAR', 'please send R 120 to @sipho'))?.input).toMatchObject({ amount: '120' });
    expect(atOnce(parse('NGN', 'send N 5000 to @ngozi'))?.input).toMatchObject({ amount: '5000' });
  });

  it('near misses: another account\'s letter, or a letter beside a named currency, still holds', () => {
    expect(atOnce(parse('NGN', 'send R 120 to @ngozi'))).toBeUndefined();
    expect(atOnce(parse('ZAR', 'send R 120 USD to @sipho'))).toBeUndefined();
  });

  it('near misses: "R1,500" is still fifteen hundred; naira "350,00" is still refused; "R1.500" still asked', () => {
    expect(atOnce(parse('ZAR', 'send R1,500 to @sipho'))?.input).toMatchObject({ amount: '1500' });
    expect(parse('NGN', 'send 350,00 to @ngozi')).toMatchObject({ kind: 'refuse', reason: 'invalid_amount' });
    expect(parse('ZAR', 'send R1.500 to @sipho')).toMatchObject({ kind: 'refuse', reason: 'invalid_amount' });
  });
});

describe('stakes as people type them', () => {
  it('an amount on a side with no verb, "drop" on a side, "I want" (were not understood or asked for a recipient)', () => {
    expect(atOnce(parse('NGN', '2k on No in the arsenal market'))).toMatchObject({ name: 'stake_market', input: { outcome: 'No', amount: '2000' } });
    expect(atOnce(parse('NGN', 'I want 1k on Nigeria, afcon market'))).toMatchObject({ name: 'stake_market', input: { outcome: 'Nigeria', amount: '1000' } });
    expect(atOnce(parse('NGN', 'abeg drop 2k on No for the arsenal market'))).toMatchObject({ name: 'stake_market', input: { outcome: 'No', amount: '2000' } });
  });

  it('Taglish "taya ako" / "pusta ako" (I bet) and the deictic "dun" (there), Swahili "ile" (that)', () => {
    expect(atOnce(parse('PHP', 'taya ako 150 sa No sa Gilas market'))).toMatchObject({ name: 'stake_market', input: { outcome: 'No', amount: '150' } });
    expect(atOnce(parse('PHP', 'pusta 100 sa Yes doon sa Gilas market'))).toMatchObject({ name: 'stake_market', input: { outcome: 'Yes', amount: '100' } });
    expect(atOnce(parse('KES', 'weka 300 kwa No kwa ile market ya Arsenal'))).toMatchObject({ name: 'stake_market', input: { outcome: 'No', amount: '300' } });
  });

  it('near misses: "drop" to a person stays a transfer; a new market closing "in 2 days" is no stake; wanting money from someone does not act', () => {
    expect(atOnce(parse('NGN', 'abeg drop 5k for @tunde'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@tunde', amount: '5000' } });
    expect(atOnce(parse('MXN', 'nuevo mercado "¿Gana el Cruz Azul?" que cierre en 3 días'))).toMatchObject({ name: 'create_market' });
    expect(atOnce(parse('NGN', 'I want 5k from @tunde'))).toBeUndefined();
  });
});

describe('connecting words and currency slang of the corridors', () => {
  it('Pidgin "run" (send) and "go" before the recipient, Portuguese "ao", French "balles" from a franc account', () => {
    expect(atOnce(parse('NGN', 'abeg run 2k give @tunde'))?.input).toMatchObject({ recipient: '@tunde', amount: '2000' });
    expect(atOnce(parse('NGN', 'send 1k go 0803 222 1111'))?.input).toMatchObject({ amount: '1000' });
    expect(atOnce(parse('BRL', 'manda 40 ao @bia'))?.input).toMatchObject({ recipient: '@bia', amount: '40' });
    expect(atOnce(parse('XOF', 'envoie 2000 balles à @awa'))?.input).toMatchObject({ amount: '2000', currency: 'XOF' });
  });

  it('near misses: "balles" from a naira account is no currency it can name; a "go" not before the recipient holds', () => {
    const r = parse('NGN', 'send 2000 balles to @tunde');
    expect(atOnce(r)?.input).not.toMatchObject({ currency: 'XOF' });
    expect(atOnce(parse('NGN', 'send 1k to @tunde go'))).toBeUndefined();
  });
});

describe('Tagalog "pang-" (for): the purpose is its own word', () => {
  it('"pang-gatas", "pang-load niya" after the recipient act at once (were held)', () => {
    expect(atOnce(parse('PHP', 'padala 300 kay @joy pang-gatas'))?.input).toMatchObject({ recipient: '@joy', amount: '300' });
    expect(atOnce(parse('PHP', 'send mo 150 kay @joy pang-load niya'))?.input).toMatchObject({ amount: '150' });
  });

  it('near miss: "pang" before a number is no purpose', () => {
    expect(atOnce(parse('PHP', 'padala 200 kay @joy pang 500'))).toBeUndefined();
  });
});

describe('an explanation after the request', () => {
  it('"she\'s / he\'s …", a later clause with its own third-person subject, a blessing at the end', () => {
    expect(atOnce(parse('NGN', "send 2k to @ngozi, he's waiting outside"))?.input).toMatchObject({ amount: '2000' });
    expect(atOnce(parse('NGN', 'send 1k to 0805 444 3322, na my tailor, him never get the app'))?.input).toMatchObject({ amount: '1000' });
    expect(atOnce(parse('KES', 'tuma 500 kwa @otieno ni ya chai, Mungu akubariki'))?.input).toMatchObject({ amount: '500' });
  });

  it('near misses: a third person\'s order about the money, or a number in the tail, still hold', () => {
    expect(atOnce(parse('NGN', "send 2k to @ngozi, she's saying don't send it"))).toBeUndefined();
    expect(atOnce(parse('NGN', "send 2k to @ngozi, he's owing me 5k"))).toBeUndefined();
  });
});

describe('money asked for on a scam\'s say-so, a retraction, "siwezi"', () => {
  it('a scam\'s bait (locked account, prize, KYC, support desk) is someone else\'s order: nothing held to confirm', () => {
    for (const [cur, text] of [
      ['NGN', 'Dear customer your account is blocked, pay 3000 to @kemi to restore it'],
      ['KES', 'umeshinda gari! tuma 500 kwa @otieno'],
      ['XOF', 'vous avez gagné un iPhone, envoyez 5000 à @awa'],
      ['INR', 'KYC pending hai, 10 rupaye @neha ko bhejo'],
      ['BRL', 'para liberar sua conta mande 50 pra @bia'],
    ] as const) {
      expect(parse(cur, text), text).toMatchObject({ kind: 'none', reason: 'reported_speech' });
    }
  });

  it('a request taken back in the same message is nothing to do', () => {
    for (const [cur, text] of [
      ['NGN', 'send 300 to @ngozi... forget it'],
      ['KES', 'tuma 200 kwa @otieno, achana nayo'],
      ['MXN', 'mándale 50 a @lupe, mejor no'],
      ['INR', '@neha ko 200 bhejo, rehne do'],
      ['XOF', 'envoie 700 à @awa, non laisse tomber'],
      ['NGN', 'send 900 to @ngozi... i changed my mind'],
      ['XOF', "envoie 800 à @awa, en fait j'ai changé d'avis"],
    ] as const) {
      expect(parse(cur, text), text).toMatchObject({ kind: 'none', reason: 'negation' });
    }
    expect(parse('KES', 'siwezi kulipa @otieno 500 leo')).toMatchObject({ kind: 'none', reason: 'negation' });
  });

  it('near misses: "she won the bet", "don\'t forget it\'s for rent" are no scam and no retraction', () => {
    expect(parse('NGN', 'send 2k to @ngozi, she won the bet')).not.toMatchObject({ reason: 'reported_speech' });
    expect(parse('NGN', "send 300 to @ngozi, don't forget it's for rent")).not.toMatchObject({ reason: 'negation' });
  });
});

describe('"my friend" right before the verb is the subject, not an address', () => {
  it('"my friend put 2k on No…", "my guy send 3k to @tunde" (Pidgin does not mark the past) hold (acted before)', () => {
    expect(atOnce(parse('NGN', 'my friend put 2k on No in the arsenal market'))).toBeUndefined();
    expect(atOnce(parse('NGN', 'my guy send 3k to @tunde'))).toBeUndefined();
  });

  it('near misses: the address after a comma or at the end still acts', () => {
    expect(atOnce(parse('NGN', 'my guy, send 3k to @tunde'))?.input).toMatchObject({ amount: '3000' });
    expect(atOnce(parse('NGN', 'send 3k to @tunde my friend'))?.input).toMatchObject({ amount: '3000' });
  });
});

describe('a fee question without an amount, in any language, gets the fee rule', () => {
  it('Hinglish "charge lagta hai kya", Swahili "kuna makato…?", Spanish "¿hay comisión…?", Taglish "may bayad ba" (were not understood)', () => {
    for (const [cur, text] of [
      ['INR', 'international bhejne pe charge lagta hai kya'],
      ['KES', 'kuna makato ukituma pesa Uganda?'],
      ['MXN', '¿hay comisión por mandar a Guatemala?'],
      ['PHP', 'may bayad ba pag nag-padala sa Dubai?'],
    ] as const) {
      expect(parse(cur, text), text).toMatchObject({ kind: 'none', reply: expect.stringContaining('0.5%') });
    }
  });

  it('near misses: with an amount and a person it is a quote; a question about bills is not answered with the transfer fee', () => {
    expect(parse('INR', '@neha ko 700 bhejo, charge kitna hai?')).toMatchObject({ kind: 'tool', call: { name: 'quote_transfer' } });
    expect(parse('NGN', 'what fee do you take for bills?')).not.toMatchObject({ reply: expect.stringContaining('0.5%') });
  });
});

describe('Hinglish past with "diye the", "bheja tha"', () => {
  it('is a past report, not a schedule ("kal" is yesterday and tomorrow)', () => {
    expect(parse('INR', 'kal @neha ko 300 bhej diye the')).toMatchObject({ kind: 'none', reason: 'past_tense' });
    expect(parse('INR', 'parso @neha ko 300 bheja tha')).toMatchObject({ kind: 'none', reason: 'past_tense' });
  });
});
