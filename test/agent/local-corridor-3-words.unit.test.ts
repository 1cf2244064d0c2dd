import { describe, expect, it } from 'vitest';
import { atOnce, parse } from './local-parse-helpers.js';

/**
 * Issue h7: the classes of failure the corridor-3 set (test/agent/eval/corridor-3.json, written
 * before reading the parser) and the corridor-2 misses named in docs/agent-eval.md showed. Each
 * row is a class (a verb form, a polite frame, a stake structure), checked on messages of other
 * words than the eval's, with the near miss that must still not act at once.
 */

describe('verb forms with a pronoun or an affix glued on', () => {
  it('Spanish third-person clitics: "págale", "transfiérele", "enviarle", "apuéstale"', () => {
    expect(atOnce(parse('MXN', 'págale 300 a @juanperez'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@juanperez', amount: '300' } });
    expect(atOnce(parse('MXN', 'transfiérele 2 mil a @lupita'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@lupita', amount: '2000' } });
    expect(atOnce(parse('MXN', 'quiero enviarle 400 a @lupita'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@lupita', amount: '400' } });
    expect(atOnce(parse('MXN', 'apuéstale 50 al No del América'))).toMatchObject({ name: 'stake_market', input: { market: 'América', outcome: 'No', amount: '50' } });
    // "me" makes the writer the object: never read as a send to someone.
    expect(atOnce(parse('MXN', 'mándame 500'))).toBeUndefined();
  });

  it('Taglish "i-", "mag-" on a verb; the completed "nag-" is the past', () => {
    expect(atOnce(parse('PHP', 'i-transfer mo 800 kay @josebau'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@josebau', amount: '800' } });
    expect(atOnce(parse('PHP', 'magsend ka ng 300 kay @lizareyes'))).toMatchObject({ name: 'send_transfer', input: { recipient: '@lizareyes', amount: '300' } });
    expect(parse('PHP', 'nag-send ako ng 500 kay @lizareyes')).toMatchObject({ kind: 'none' });
    // "isa" (one) is no "i-" verb.
    expect(parse('PHP', 'isa pa').kind).not.toBe('tool');
  });
});

describe('"put" in the corridor languages: mettre, botar, rakhna, ilagay', () => {
  it('an amount put on an outcome is a stake', () => {
    expect(atOnce(parse('XOF', 'mettez 2000 sur Non pour la CAN'))).toMatchObject({ name: 'stake_market', input: { market: 'CAN', amount: '2000' } });
    expect(atOnce(parse('BRL', 'bota 30 no Sim do Flamengo'))).toMatchObject({ name: 'stake_market', input: { market: 'Flamengo', outcome: 'Sim', amount: '30' } });
    expect(atOnce(parse('INR', 'T20 market mein Yes pe 300 rakh do'))).toMatchObject({ name: 'stake_market', input: { market: 'T20', outcome: 'Yes', amount: '300' } });
    expect(atOnce(parse('PHP', 'ilagay mo 100 sa No sa Gilas market'))).toMatchObject({ name: 'stake_market', input: { market: 'Gilas', outcome: 'No', amount: '100' } });
  });

  it('without a market it asks which, in French', () => {
    expect(parse('XOF', 'mets 500 sur Non')).toMatchObject({ kind: 'none', reply: expect.stringContaining('Quel marché') });
  });
});

describe('where the market and the outcome are in a stake', () => {
  it('"on No for Arsenal": the yes/no after "on" is the outcome and the words after "for" the market', () => {
    expect(atOnce(parse('NGN', 'put 500 on No for Arsenal'))).toMatchObject({ name: 'stake_market', input: { market: 'Arsenal', outcome: 'No', amount: '500' } });
    expect(atOnce(parse('NGN', 'stake 2k on Yes for BBNaija'))).toMatchObject({ name: 'stake_market', input: { market: 'BBNaija', outcome: 'Yes', amount: '2000' } });
    expect(atOnce(parse('XOF', 'mets 1000 sur Oui pour la CAN'))).toMatchObject({ name: 'stake_market', input: { market: 'CAN', outcome: 'Oui', amount: '1000' } });
  });

  it('an article before the outcome is not part of its name ("sur le Sénégal")', () => {
    expect(atOnce(parse('XOF', 'parie 1000 sur le Sénégal dans le marché AFCON'))).toMatchObject({ name: 'stake_market', input: { market: 'AFCON', outcome: 'Sénégal' } });
  });
});

describe('polite questions and "I want" frames are requests', () => {
  it('the opener and its question mark are placed', () => {
    expect(atOnce(parse('INR', 'kya aap @priya ko 800 bhej sakte hain?'))?.input).toMatchObject({ recipient: '@priya', amount: '800' });
    expect(atOnce(parse('PHP', 'pwede nyo bang i-send 400 kay @josebau?'))?.input).toMatchObject({ recipient: '@josebau', amount: '400' });
    expect(atOnce(parse('MXN', '¿me ayudas a mandarle 300 a @lupita?'))?.input).toMatchObject({ recipient: '@lupita', amount: '300' });
    expect(atOnce(parse('XOF', 'est-ce que vous pouvez envoyer 3000 à @aminata ?'))?.input).toMatchObject({ recipient: '@aminata', amount: '3000' });
    expect(atOnce(parse('XOF', 'tu peux envoyer 2000 à @moussa ?'))?.input).toMatchObject({ recipient: '@moussa', amount: '2000' });
    expect(atOnce(parse('BRL', 'você poderia mandar 70 reais pra @joana?'))?.input).toMatchObject({ recipient: '@joana', amount: '70' });
    expect(atOnce(parse('NGN', 'I wan send 3k give @amaka'))?.input).toMatchObject({ recipient: '@amaka', amount: '3000' });
    expect(atOnce(parse('NGN', 'I wan stake 1k on Nigeria for AFCON market'))).toMatchObject({ name: 'stake_market', input: { outcome: 'Nigeria', amount: '1000' } });
  });

  it('asking whether the writer may send is a question, not a request: never at once', () => {
    expect(atOnce(parse('INR', 'kya main @priya ko 800 bhej sakta hoon?'))).toBeUndefined();
    expect(atOnce(parse('NGN', 'can I send 5k to @amaka?'))).toBeUndefined();
  });

  it('only the mark that closes the request is placed, never one inside it', () => {
    expect(atOnce(parse('XOF', 'vire 3000 à @moussa quand tu peux merci ?'))?.input).toMatchObject({ recipient: '@moussa', amount: '3000' });
    expect(atOnce(parse('XOF', 'vire ? 3000 à @moussa quand tu peux merci'))).toBeUndefined();
    expect(atOnce(parse('XOF', 'vire 3000 ? à @moussa quand tu peux merci'))).toBeUndefined();
  });
});

describe('messages that say they are not meant: a hypothetical, a joke', () => {
  it('"what if I send…" in any language is a condition, not a price question', () => {
    for (const [cur, m] of [
      ['NGN', 'what if i send 5k to @amaka by mistake'],
      ['NGN', 'what happens if I send 500 to a wrong number?'],
      ['XOF', "et si j'envoie 5000 à @moussa par erreur ?"],
      ['BRL', 'e se eu mandar 100 pro @joana?'],
      ['INR', 'agar galat number pe 500 bhej diya toh kya hoga?'],
    ] as const) {
      expect(parse(cur, m), m).toMatchObject({ kind: 'none' });
    }
    // What arrives or what it costs is still a quote, a condition or not.
    expect(parse('NGN', 'how much will @amaka get if I send 5k')).toMatchObject({ kind: 'tool', call: { name: 'quote_transfer' } });
    expect(parse('NGN', "what's the fee if I send 10k to @zawadi?")).toMatchObject({ kind: 'tool', call: { name: 'quote_transfer' } });
  });

  it('a condition after a word that only looks like one ("no sé si…") is still a condition', () => {
    expect(parse('MXN', 'no sé si mandarle 500 a @lupita')).toMatchObject({ kind: 'none' });
  });

  it('the writer saying it is a joke is no instruction; laughter alone holds', () => {
    for (const [cur, m] of [
      ['NGN', 'na joke o, send 50k to @aisha'],
      ['KES', 'tuma elfu tano kwa @zawadi natania tu'],
      ['XOF', 'envoie 3000 à @moussa je rigole'],
      ['BRL', 'manda 300 pra @joana, brincadeira'],
      ['INR', '@priya ko 5k bhej do, mazaak hai'],
      ['PHP', 'send 2k kay @josebau joke lang'],
    ] as const) {
      expect(parse(cur, m), m).toMatchObject({ kind: 'none', reason: 'statement' });
    }
    expect(parse('NGN', 'send 5k to @amaka lol')).toMatchObject({ kind: 'tool', hold: ['lol'] });
  });
});

describe('how amounts and currencies are written in the corridors', () => {
  it('"Rs. 500", "sh 500", "500/-", "2500f", "f cfa", "P500", "baros"', () => {
    expect(atOnce(parse('INR', '@priya ko Rs. 500 bhejo'))?.input).toMatchObject({ amount: '500', currency: 'INR' });
    expect(atOnce(parse('KES', 'tuma sh 500 kwa @zawadi'))?.input).toMatchObject({ amount: '500', currency: 'KES' });
    expect(atOnce(parse('KES', 'tuma 700/- kwa @zawadi'))?.input).toMatchObject({ amount: '700' });
    expect(atOnce(parse('XOF', 'envoie 2500f à @moussa'))?.input).toMatchObject({ amount: '2500', currency: 'XOF' });
    expect(atOnce(parse('XOF', 'envoie 5.000 f cfa à @moussa'))?.input).toMatchObject({ amount: '5000', currency: 'XOF' });
    expect(atOnce(parse('PHP', 'send P500 kay @josebau'))?.input).toMatchObject({ amount: '500', currency: 'PHP' });
    expect(atOnce(parse('MXN', 'mándale 800 baros a @lupita'))?.input).toMatchObject({ amount: '800', currency: 'MXN' });
  });

  it('balance questions: "kiasi gani", "laman", "lana"; friendly words and "buy me" airtime', () => {
    expect(parse('KES', 'nina kiasi gani kwa wallet?')).toMatchObject({ kind: 'tool', call: { name: 'get_balance' } });
    expect(parse('PHP', 'ilan pa laman ng wallet ko')).toMatchObject({ kind: 'tool', call: { name: 'get_balance' } });
    expect(parse('MXN', 'cuánta lana tengo')).toMatchObject({ kind: 'tool', call: { name: 'get_balance' } });
    expect(atOnce(parse('GHS', 'send 50 cedis to @yawboat chale'))?.input).toMatchObject({ amount: '50' });
    expect(atOnce(parse('NGN', 'abeg transfer 10k to @amaka, e dey urgent'))?.input).toMatchObject({ amount: '10000' });
    expect(atOnce(parse('ZAR', 'pls buy me 50 rand airtime 0821234567 vodacom'))).toMatchObject({ name: 'pay_bill', input: { account_number: '0821234567' } });
    // Without a number "me" is the writer as recipient: never at once.
    expect(atOnce(parse('NGN', 'send me 500'))).toBeUndefined();
  });
});

describe('Swahili noun-class connectors and a brand named for data', () => {
  it('"bundles za safaricom", "data ya safaricom" is Safaricom data, acted at once', () => {
    expect(atOnce(parse('KES', 'weka bundles za safaricom 500 kwa 0712345678'))).toMatchObject({ name: 'pay_bill', input: { biller: 'ke-safaricom-data', amount: '500' } });
    expect(atOnce(parse('KES', 'weka data ya safaricom 500 kwa 0712345678'))).toMatchObject({ name: 'pay_bill', input: { biller: 'ke-safaricom-data' } });
    expect(atOnce(parse('KES', 'buy safaricom airtime 100 for 0712345678'))).toMatchObject({ name: 'pay_bill', input: { biller: 'ke-safaricom-airtime' } });
  });
});

describe('a national mobile without a trunk 0 is the recipient, from an account of its country', () => {
  it('Senegal, Brazil, Mexico (India before): the claim or transfer is read', () => {
    expect(atOnce(parse('XOF', 'envoie 2000 au 771112233'))?.input).toMatchObject({ recipient: '771112233', amount: '2000' });
    expect(atOnce(parse('BRL', 'manda 50 pro 11 91234-5678'))?.input).toMatchObject({ recipient: '11912345678', amount: '50' });
    expect(atOnce(parse('MXN', 'mándale 300 al 55 1234 5678'))?.input).toMatchObject({ recipient: '5512345678', amount: '300' });
    // From another country's account the digits are no phone: asked.
    expect(parse('NGN', 'send 700 to 771112233').kind).toBe('none');
  });
});

describe('markets: the writer\'s own bets, and Hindi verb-last creation', () => {
  it('"show my stakes", "mes paris", "minhas apostas", "beti zangu", "mga taya ko" list markets; with an amount it is a stake', () => {
    for (const [cur, m] of [
      ['NGN', 'show my stakes'],
      ['XOF', 'montre mes paris'],
      ['BRL', 'mostra minhas apostas'],
      ['MXN', 'muéstrame mis apuestas'],
      ['INR', 'meri bets dikhao'],
      ['KES', 'nionyeshe beti zangu'],
      ['PHP', 'patingin ng mga taya ko'],
    ] as const) {
      expect(parse(cur, m), m).toMatchObject({ kind: 'tool', call: { name: 'list_markets' } });
    }
    expect(atOnce(parse('NGN', 'stake 500 on yes for my arsenal market'))).toMatchObject({ name: 'stake_market', input: { amount: '500' } });
  });

  it('"market banao: kya …?" keeps the verb out of the question', () => {
    expect(parse('INR', 'market banao: kya Virat century maarega?')).toMatchObject({ kind: 'tool', call: { name: 'create_market', input: { question: 'Kya Virat century maarega?' } } });
  });
});

describe('a yes or no right after its linker is the side, whatever names the market after it', () => {
  it('"al Sí en la Liga MX", "sur Oui pour la CAN", "no Sim do Flamengo"', () => {
    expect(atOnce(parse('MXN', 'apuesta 300 al Sí en la Liga MX'))).toMatchObject({ name: 'stake_market', input: { market: 'Liga MX', outcome: 'Sí', amount: '300' } });
    expect(atOnce(parse('XOF', 'mise 500 sur Non dans le marché de la CAN'))).toMatchObject({ name: 'stake_market', input: { outcome: 'Non', amount: '500' } });
    expect(atOnce(parse('NGN', 'stake 1k on Nigeria for AFCON market'))).toMatchObject({ name: 'stake_market', input: { market: 'AFCON', outcome: 'Nigeria' } });
  });
});
