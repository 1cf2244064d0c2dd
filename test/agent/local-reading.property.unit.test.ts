import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseMessage, type ParseContext, type ParseResult } from '../../src/agent/local/index.js';
import { billerAliasIndex, loadBillerCatalogue } from '../../src/bills/catalogue.js';
import { POLITE_REQUESTS } from '../../src/agent/local/reading-words.js';

/**
 * Issue 20, rule 1: the local engine acts at once only on a complete reading. Take messages
 * that act at once (eight languages, transfers, bills, stakes); insert an unknown token, a
 * quoted instruction or a second amount at a random word boundary; the parse must not act at
 * once (it holds the call for confirmation, asks, or refuses).
 */

const billers = billerAliasIndex(loadBillerCatalogue());
const ctx = (localCurrency: string): ParseContext => ({ now: new Date('2026-03-11T10:00:00Z'), localCurrency, billers });
// FC_SEED=<n> replays a run reported by fast-check (its seed), with the same draws.
const RUNS = { numRuns: 400, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}) };

const MONEY = new Set(['send_transfer', 'pay_bill', 'stake_market', 'resolve_market', 'cancel_market']);
const actsAtOnce = (r: ParseResult) => r.kind === 'tool' && MONEY.has(r.call.name) && !r.hold?.length;

/** Messages that act at once, as people write them, with the sender's currency. */
const CLEAR: readonly [string, string][] = [
  ['send 5k to @amaka when you can', 'NGN'],
  ['pls transfer 40 usd to @yawboat', 'GHS'],
  ['abeg send 3k give @amaka sharp sharp', 'NGN'],
  ['naomba umtumie @zawadi shilingi mia tano', 'KES'],
  ['tuma 2,500 kwa @musa_kip ukipata time', 'KES'],
  ['envoie cinq mille francs à @moussa stp', 'XOF'],
  ['vire 3000 à @moussa quand tu peux merci', 'XOF'],
  ['manda 40 reais pra @joana quando puder', 'BRL'],
  ['faz um pix de 1.500,50 pra @ana_souza por favor', 'BRL'],
  ['pásale 150 varos a @lupita cuando puedas', 'MXN'],
  ['mándale mil quinientos pesos a @juanperez porfa', 'MXN'],
  ['bhai @priya ko 2k bhej do jab time mile', 'INR'],
  ['@priya ko do hazaar rupaye bhej do please', 'INR'],
  ['send mo 300 kay @lizareyes pag may time ka', 'PHP'],
  ['send 2k kay @josebau salamat po', 'PHP'],
  ['send 2500 naira to @emeka 🙏', 'NGN'],
  ['buy 1000 airtime for 08031112233', 'NGN'],
  // Markets by id: a market named in words is matched word for word by the stake tool (every
  // word must be in the market's question), so an extra word there cannot reach a market.
  ['put 1500 on Yes in mkt_arsenal', 'NGN'],
  ['apuesta 250 pesos al Sí en mkt_liga', 'MXN'],
  ['mkt_t20 mein Haan pe 500 laga do', 'INR'],
  ['send two thousand five hundred naira to @aisha thanks', 'NGN'],
];

/** Words the reading cannot place: unknown, jokes, conditions, other people, other days, questions. */
const UNKNOWN = [
  'lol', 'haha', 'jk', 'maybe', 'if', 'unless', 'tomorrow', 'kesho', 'demain', 'amanhã', 'mañana', 'kal', 'bukas', 'from', 'account', 'not',
  'twice', '?', '(', ')', 'mdr', 'kkkk', 'jaja', 'mazaak', 'joke', 'why', 'who', 'instead', 'also', 'plus', 'except', 'later', 'tonight',
];
const gibberish = fc.stringMatching(/^zx[a-z]{2,6}$/);
const unknownToken = fc.oneof(fc.constantFrom(...UNKNOWN), gibberish);
const quotedInstruction = fc.constantFrom(
  '"send 900 USD to @aisha"',
  "'turant 40000 rupees @priya ko bhejo'",
  '« envoie 50 000 FCFA à @aminata »',
  '"manda 500 reais pra @joana"',
  'note: "pay 600 USD to 0x4b20993Bc481177ec7E8f571ceCaE8A9e22C02db"',
);
const secondAmount = fc.oneof(
  fc.integer({ min: 2, max: 99_999 }).map(String),
  fc.integer({ min: 1, max: 999 }).map((n) => `${n}k`),
  fc.constantFrom('200 USD', '(5000)', '₦3,000', 'KES 700', 'mil pesos', 'cinq mille', 'do hazaar', '1e3', '-5', '5-'),
);

/** `message` with `insert` placed at word boundary `at` (modulo the number of boundaries). */
function insertAt(message: string, insert: string, at: number): string {
  const words = message.split(' ');
  const i = at % (words.length + 1);
  return [...words.slice(0, i), insert, ...words.slice(i)].join(' ');
}

const NUMBER_WORDS = new Set(['do', 'hazaar', 'cinq', 'mille', 'mil', 'quinientos', 'mia', 'tano', 'two', 'thousand', 'five', 'hundred', 'limang', 'daan']);

/** The word after insertion point `at` is an account or phone number (6 digits or more). */
function namesNumberAfter(message: string, at: number): boolean {
  const words = message.split(' ');
  return /^\+?\d{6,}$/.test(words[at % (words.length + 1)] ?? '');
}

/** The courtesy words that close a polite request among the base messages ("… quand tu peux merci"). */
const COURTESY = new Set(['quand', 'tu', 'peux', 'merci']);

/**
 * A "?" that closes a polite request is the request's own question mark, placed by design
 * (reading.ts): where only courtesy words follow it ("vire 3000 à @moussa quand tu peux ? merci"),
 * or, in a message asked with a polite opener ("naomba umtumie @zawadi shilingi mia tano ?",
 * "could you send 250 cedis to @yaw ?"), where no argument (digits, a handle or phone, a number
 * word) follows it. Anywhere before an argument it must still hold.
 */
function closesPoliteRequest(message: string, insert: string, at: number): boolean {
  if (insert !== '?') return false;
  const words = message.split(' ');
  const after = words.slice(at % (words.length + 1));
  if (words.some((w) => COURTESY.has(w)) && after.every((w) => COURTESY.has(w))) return true;
  const padded = ` ${message.toLowerCase()} `;
  const polite = POLITE_REQUESTS.some((p) => padded.includes(` ${p} `));
  return polite && after.every((w) => !/[\d@+]/.test(w) && !NUMBER_WORDS.has(w.toLowerCase()));
}

/** The insertion point `at` touches a number (digits or a number word of the base messages). */
function neighboursNumber(message: string, at: number): boolean {
  const words = message.split(' ');
  const i = at % (words.length + 1);
  const numeric = (w: string | undefined) => w !== undefined && (/\d/.test(w) || NUMBER_WORDS.has(w.toLowerCase()));
  return numeric(words[i - 1]) || numeric(words[i]);
}

describe('complete reading (issue 20): a message that acts at once stops acting when anything is added', () => {
  it('"account", "meter", "number" are placed only where they name the account number', () => {
    for (const m of ['buy 1000 airtime for account 08031112233', 'pay 5000 naira IKEDC meter no. 45012345678', 'pay DStv 5000 naira smartcard number 7023456789']) {
      expect(actsAtOnce(parseMessage(m, ctx('NGN'))), m).toBe(true);
    }
    // Portuguese "no" ("in the") stays a connector, though "no" also names an account number.
    expect(actsAtOnce(parseMessage('aposta 20 reais no Sim no mkt_flamengo', ctx('BRL')))).toBe(true);
    for (const m of ['account buy 1000 airtime for 08031112233', 'buy 1000 airtime meter for 08031112233', 'buy 1000 airtime for 08031112233 number']) {
      expect(parseMessage(m, ctx('NGN')), m).toMatchObject({ kind: 'tool', hold: expect.arrayContaining([m.split(' ').find((w) => ['account', 'meter', 'number'].includes(w))]) });
    }
  });

  it('every base message acts at once as written', () => {
    for (const [m, cur] of CLEAR) expect(actsAtOnce(parseMessage(m, ctx(cur))), m).toBe(true);
  });

  for (const [name, arb] of [
    ['an unknown token', unknownToken],
    ['a quoted instruction', quotedInstruction],
    ['a second amount', secondAmount],
  ] as const) {
    it(`${name}, anywhere, means the turn does not act at once`, () => {
      fc.assert(
        fc.property(fc.constantFrom(...CLEAR), arb as fc.Arbitrary<string>, fc.nat(), ([message, cur], insert, at) => {
          const changed = insertAt(message, insert, at);
          // Next to a number, a number or a scale word is part of it in a locale format ("2 150" is
          // 2150 as "1 500" is 1500; "300 mil" is 300,000): that is one amount, not a second one.
          if (name === 'a second amount') fc.pre(!neighboursNumber(message, at));
          // "account" right before the account number names it ("airtime for account 0803…"): a complete reading.
          if (name === 'an unknown token') fc.pre(!(insert === 'account' && namesNumberAfter(message, at)) && !closesPoliteRequest(message, insert, at));
          const r = parseMessage(changed, ctx(cur));
          expect(actsAtOnce(r), `${changed} -> ${JSON.stringify(r)}`).toBe(false);
        }),
        RUNS,
      );
    });
  }
});

describe('a question mark after fillers that greet nobody ("please", "now", "faz"): the turn holds (counterexamples the property found)', () => {
  it.each([
    ['GHS', 'pls ? transfer 40 usd to @yawboat'],
    ['NGN', 'abeg? send 5k to @amaka'],
    ['KES', 'tafadhali? tuma 500 kwa @wanjiku'],
    ['MXN', 'por favor? manda 500 pesos a @lupita'],
    ['INR', 'jaldi? @priya ko 2000 bhej do'],
    ['PHP', 'ngayon? padalhan mo si @ana ng 500'],
    ['BRL', 'faz ? um pix de 1.500,50 pra @ana_souza por favor'],
    ['XOF', 'je veux? envoyer 5000 à @awa'],
  ])('%s: %s', (cur, m) => {
    const r = parseMessage(m, ctx(cur));
    expect(r, JSON.stringify(r)).toMatchObject({ kind: 'tool', hold: expect.arrayContaining(['?']) });
  });

  it.each([
    ['BRL', 'Oi! Tudo bem? Manda 150 reais pra @joana'],
    ['NGN', 'How far bros? Send 5k to @amaka'],
    ['KES', 'Habari? Tuma 500 kwa @wanjiku'],
  ])('a greeting\'s question still greets: %s: %s', (cur, m) => {
    expect(actsAtOnce(parseMessage(m, ctx(cur))), m).toBe(true);
  });
});
