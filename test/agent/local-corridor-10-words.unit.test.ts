import { describe, expect, it } from 'vitest';
import { atOnce, nameOf, parse, reason } from './local-parse-helpers.js';

/**
 * Issue h15: the classes of failure the corridor-10 set (test/agent/eval/corridor-10.json, written
 * and committed before reading the parser) showed. Each row is a class, checked on other words
 * than the eval's, with the near misses that must still hold, ask or refuse as before.
 */

describe('a currency sign written after the amount (was rand for "R$", US dollars for a Mexican "500$")', () => {
  it('"150,00 R$", "1.250,00R$", "50 US$", "80 GH₵": the sign of letters and symbol after the number names its currency', () => {
    const rows: Array<[string, string, string, string]> = [
      ['BRL', 'faz um pix de 99,90 R$ pra @joana', '99.9', 'BRL'],
      ['ZAR', 'manda 1.250,00R$ pra @joana', '1250', 'BRL'],
      ['NGN', 'send 50 US$ to @amaka', '50', 'USD'],
      ['NGN', 'send 80 GH₵ to @yawboat', '80', 'GHS'],
    ];
    for (const [cur, text, amount, currency] of rows) expect(atOnce(parse(cur, text)), text).toMatchObject({ name: 'send_transfer', input: { amount, currency } });
  });

  it('"500$" from a peso account is pesos, as "$500" is; from others, and "US$" anywhere, it stays dollars', () => {
    expect(atOnce(parse('MXN', 'mándale 500$ a @lupita'))).toMatchObject({ input: { amount: '500', currency: 'MXN' } });
    expect(atOnce(parse('MXN', 'pásale 1,200$ a @juanperez porfa'))).toMatchObject({ input: { amount: '1200', currency: 'MXN' } });
    expect(atOnce(parse('MXN', 'manda 800$ MXN a @lupita'))).toMatchObject({ input: { currency: 'MXN' } });
    expect(atOnce(parse('MXN', 'manda 20 US$ a @lupita'))).toMatchObject({ input: { currency: 'USD' } });
    expect(atOnce(parse('ZAR', 'send 500$ to @rico'))).toMatchObject({ input: { currency: 'USD' } });
    // A loose "R" after a number is still the rand.
    expect(atOnce(parse('ZAR', 'send 350R to @rico'))).toMatchObject({ input: { amount: '350', currency: 'ZAR' } });
  });
});

describe('"if you can" asking the agent\'s ability, chat greetings and "ok" (was a conditional refusal, or held on the word)', () => {
  it('"si tu peux", "si puedes", "se puder", "agar ho sake", "kung pwede", "slt ça va ?", "qué onda", "faz favor", "ok sawa", "ek kaam karo": the transfer acts at once', () => {
    const rows: Array<[string, string, string, string]> = [
      ['XOF', 'si vous pouvez envoyez 2 000 à @aminata', '@aminata', '2000'],
      ['MXN', 'si puedes mándale 200 a @juanperez', '@juanperez', '200'],
      ['BRL', 'se puder manda 60 pra @joana', '@joana', '60'],
      ['INR', 'agar ho sake to @priya ko 400 bhej do', '@priya', '400'],
      ['PHP', 'kung pwede send 300 kay @josebau', '@josebau', '300'],
      ['XOF', 'slt ça va? envoie 1 000 à @moussa', '@moussa', '1000'],
      ['MXN', 'qué onda, mándale 100 a @lupita', '@lupita', '100'],
      ['ZAR', 'faz favor manda 200 rands pro @rico', '@rico', '200'],
      ['KES', 'ok sawa, tuma 700 kwa @zawadi', '@zawadi', '700'],
      ['INR', 'ek kaam karo, @priya ko 250 bhej do', '@priya', '250'],
      ['NGN', 'abeg send 1k to my padi @emeka', '@emeka', '1000'],
    ];
    for (const [cur, text, recipient, amount] of rows) expect(atOnce(parse(cur, text)), text).toMatchObject({ name: 'send_transfer', input: { recipient, amount } });
  });

  it('near misses: a condition on an event, or on someone else, is still a condition', () => {
    for (const [cur, text] of [
      ['XOF', 'si Moussa paie, envoie 2 000 à @aminata'],
      ['MXN', 'si gana el América mándale 200 a @juanperez'],
      ['BRL', 'se ela pagar manda 60 pra @joana'],
      ['PHP', 'kung manalo ang Gilas send 300 kay @josebau'],
    ] as const) expect(reason(cur, text), text).toBe('conditional');
    // "If you can" with a money verb of its own before the request's is a condition on paying something else.
    for (const [cur, text] of [
      ['BRL', 'se puder pagar a conta, manda 50 pra @joana'],
      ['MXN', 'si puedes pagar la renta mándale 500 a @lupita'],
      ['XOF', 'si tu peux payer mon loyer, envoie 5 000 à @moussa'],
      ['NGN', 'if you can pay the rent send 5k to @amaka'],
    ] as const) expect(reason(cur, text), text).toBe('conditional');
    // "sawa" alone is "the same": no amount, nothing at once.
    expect(atOnce(parse('KES', 'tuma kiasi sawa kwa @zawadi'))).toBeUndefined();
  });
});

describe('a stake with the writer\'s comment after a comma (was "which market?")', () => {
  it('the market\'s words stop at the clause mark; the comment is left unplaced, so the stake is held, never asked "which market"', () => {
    for (const [cur, text, market] of [
      ['BRL', 'aposta 20 reais no Sim pro Flamengo, esse ano vai', 'Flamengo'],
      ['XOF', 'mets 500 F sur Oui pour le Sénégal, on est les meilleurs', 'Sénégal'],
      ['MXN', 'ponle 100 al Sí en lo del América, este año sí', 'América'],
    ] as const) {
      const r = parse(cur, text);
      expect(r.kind === 'tool' && r.call.name, text).toBe('stake_market');
      expect(r.kind === 'tool' && r.call.input, text).toMatchObject({ market });
      expect(r.kind === 'tool' && r.hold, text).toBeTruthy();
    }
  });

  it('near misses: Spanish "ni" (not even) opens no explanation, Swahili "ni" (it is) still does', () => {
    const r = parse('MXN', 'ponle 100 al Sí en lo del América, ni de chiste ganan');
    expect(atOnce(r)).toBeUndefined();
    expect(atOnce(parse('MXN', 'mándale 300 a @lupita, ni modo'))).toBeUndefined();
    expect(atOnce(parse('KES', 'tuma 300 kwa @zawadi, ni ya fare'))).toMatchObject({ name: 'send_transfer' });
  });
});

describe('a time of day after "since" (was a schedule refusal)', () => {
  it('"since morning", "depuis ce matin", "subah se", "desde la mañana": how long something lasted, not when to pay', () => {
    for (const [cur, text] of [
      ['NGN', 'abeg buy 3k EKEDC light for meter 12345678901, light don go since morning'],
      ['XOF', 'envoie 2 000 à @moussa, il attend depuis ce matin'],
      ['INR', '@priya ko 500 bhej do, subah se wait kar rahi hai'],
      ['MXN', 'mándale 300 a @lupita, está esperando desde la mañana'],
    ] as const) {
      expect(reason(cur, text), text).toBeUndefined();
      expect(parse(cur, text).kind, text).toBe('tool');
    }
    expect(atOnce(parse('NGN', 'abeg buy 3k EKEDC light for meter 12345678901, light don go since morning'))).toMatchObject({ name: 'pay_bill' });
  });

  it('near misses: a day or "tomorrow" is still a schedule, after "since"/"desde"/"se" too', () => {
    for (const [cur, text] of [
      ['NGN', 'send 5k to @amaka tomorrow morning'],
      ['MXN', 'mándale 300 a @lupita desde mañana'],
      ['INR', '@priya ko 500 kal subah se bhejna'],
    ] as const) expect(reason(cur, text), text).toBe('scheduled');
  });
});

describe('a Swahili genitive before a day names the occasion ("soko la mvua Jumamosi"; was a schedule refusal)', () => {
  it('"la", "za" before the noun and its day, in Swahili: a stake or a purpose, not a schedule', () => {
    expect(atOnce(parse('KES', 'weka 200 kwa Yes soko la mvua Jumamosi'))).toMatchObject({ name: 'stake_market', input: { outcome: 'Yes', amount: '200' } });
    expect(reason('KES', 'niwekee 100 kwa No kwenye soko la mvua Jumamosi')).toBeUndefined();
    expect(reason('KES', 'tuma 500 kwa @zawadi za sherehe Jumamosi')).toBeUndefined();
  });

  it('near misses: a day after a person, or after a bare "la", is the payment\'s day', () => {
    expect(reason('KES', 'tuma 500 kwa @zawadi Jumamosi')).toBe('scheduled');
    expect(reason('KES', 'tuma 500 kwa @zawadi la Jumamosi')).toBe('scheduled');
    expect(reason('XOF', 'envoie 500 à @moussa la semaine samedi')).toBe('scheduled');
  });
});

describe('a past day that dates what the money is for (was a past-tense refusal)', () => {
  it('"for the suya last night", "…, he covered me last night", "pour le taxi d\'hier", "ya chai jana": no past refusal', () => {
    for (const [cur, text] of [
      ['NGN', 'send ₦2,500 to @emeka, na for the suya last night'],
      ['ZAR', 'send R150 to @rico for the taxi, he covered me last night'],
      ['XOF', "envoie 3 000 à @moussa pour le taxi d'hier"],
      ['KES', 'tuma 500 kwa @zawadi ya chai jana'],
    ] as const) {
      expect(reason(cur, text), text).toBeUndefined();
      expect(parse(cur, text).kind === 'tool' && (parse(cur, text) as { call: { name: string } }).call.name, text).toBe('send_transfer');
    }
    expect(atOnce(parse('NGN', 'send ₦2,500 to @emeka, na for the suya last night'))).toMatchObject({ input: { amount: '2500' } });
  });

  it('near misses: a past verb, "already", a day right after the person or in the writer\'s own clause is still the past', () => {
    for (const [cur, text] of [
      ['NGN', 'I sent 5k to @amaka for the suya last night'],
      ['NGN', 'send 5k to @amaka yesterday'],
      ['NGN', 'send 5k to @amaka, I paid her yesterday'],
      ['NGN', 'send 5k to @amaka, forgot yesterday'],
      ['BRL', 'já fiz o pix de 150 pra @ana_souza ontem'],
      ['BRL', 'fiz o pix de 150 pra @ana_souza ontem'],
      ['MXN', 'ya le mandé 500 a @lupita ayer'],
      ['KES', 'nilituma 500 kwa @zawadi ya chai jana'],
    ] as const) expect(reason(cur, text), text).toBe('past_tense');
  });
});

describe('a greeting phrase\'s question word, with no mark after it (was a price quote)', () => {
  it('"how una dey …send", "how far send…": a transfer, not a quote', () => {
    expect(nameOf('NGN', 'how una dey i wan beg make una send 2k give @amaka')).toBe('send_transfer');
    expect(nameOf('NGN', 'how far send 2k give @amaka')).toBe('send_transfer');
  });
  it('near misses: a real price question after the greeting is still a quote', () => {
    expect(nameOf('NGN', 'how far, how much to send 2k to @amaka')).toBe('quote_transfer');
    expect(nameOf('BRL', 'tudo bem? quanto custa mandar 40 reais pra @joana')).toBe('quote_transfer');
  });
});

describe('word classes a language lacked: Tagalog "tuwing" and "sakin", Hindi "uski", electricity words', () => {
  it('"tuwing" (every / whenever) is a recurrence, refused as a schedule like "bawat"', () => {
    expect(reason('PHP', 'tuwing sweldo magpadala ka ng 3k kay @josebau')).toBe('scheduled');
    expect(reason('PHP', 'send 500 kay @lizareyes tuwing Biyernes')).toBe('scheduled');
  });

  it('"sakin"/"akin" is the writer as object: "@x dapat magbayad sakin" is money coming in, never a send', () => {
    expect(reason('PHP', 'si @lizareyes dapat magbayad sakin ng 2k, hindi ako')).toBe('reversed_direction');
    expect(reason('PHP', 'si @josebau ang magpadala sakin ng 500')).toBe('reversed_direction');
    // Near miss: a send to someone else with "for me" is not reversed (held on the word, not refused).
    expect(reason('PHP', 'padala ka ng 500 kay @josebau para sa akin')).toBeUndefined();
  });

  it('a Hindi genitive third person ("uski", "unka") opens an explanation after the request', () => {
    expect(atOnce(parse('INR', '@priya ko 1500 bhej do, uski fees bharni hai'))).toMatchObject({ name: 'send_transfer', input: { amount: '1500' } });
    expect(atOnce(parse('INR', '@priya ko 700 bhej do, unka rent baaki hai'))).toMatchObject({ name: 'send_transfer', input: { amount: '700' } });
    // Near miss: the writer's own past in the tail still holds.
    expect(atOnce(parse('INR', '@priya ko 700 bhej do, maine kal nahi bheja'))).toBeUndefined();
  });

  it('"kuryente", "umeme", "bijli" name the bill\'s kind beside its biller', () => {
    expect(atOnce(parse('ZAR', 'bayaran mo yung kuryente ko, eskom meter 01234567890, R300'))).toMatchObject({ name: 'pay_bill', input: { account_number: '01234567890' } });
    expect(atOnce(parse('KES', 'lipa umeme KPLC meter 37123456789 shilingi 500'))).toMatchObject({ name: 'pay_bill', input: { amount: '500' } });
  });
});
