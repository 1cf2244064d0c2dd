import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import type { SpendPolicy } from '../../src/policies/policy-schemas.js';

/**
 * Issue 20, rules 4 and 5, through the real POST /api/agent/settle on the embedded chain: a held
 * action's description ("Send 500 KES to @x: they receive …") and a spend policy's refusal or
 * hold (which rule applied, what to do) are in the person's language, in all eight; English
 * keeps the tools' and the policies' own sentences. A Swahili stake finds an English market.
 */
let svc: TestService;
const settle = (m: Merchant, body: unknown) => call(`${svc.api}/agent/settle`, { key: m.key, body });
const wallet = async (m: Merchant): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
const PASSWORD = 'correct horse battery';

async function make(name: string, country: string, currency: string, opts: { fund?: boolean; handle?: string } = {}): Promise<Merchant> {
  const m = await createMerchant(svc.api, name);
  await svc.deps.accounts.update(m.accountId, { country, localCurrency: currency, ...(opts.handle ? { telegramUsername: opts.handle } : {}) });
  if (opts.fund) {
    const res = await svc.deps.chain.faucet(await wallet(m), usdc('300'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  }
  return m;
}

const senders: Record<string, Merchant> = {};
beforeAll(async () => {
  svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min' });
  const corridor: [string, string, string][] = [
    ['en', 'NG', 'NGN'], ['pcm', 'NG', 'NGN'], ['sw', 'KE', 'KES'], ['fr', 'SN', 'XOF'],
    ['pt', 'BR', 'BRL'], ['es', 'MX', 'MXN'], ['hi', 'IN', 'INR'], ['tl', 'PH', 'PHP'],
  ];
  for (const [lang, country, cur] of corridor) senders[lang] = await make(`Sender ${lang}`, country, cur, { fund: true });
  for (const [h, country, cur] of [['amaka', 'NG', 'NGN'], ['zawadi', 'KE', 'KES'], ['moussa', 'SN', 'XOF'], ['ana_souza', 'BR', 'BRL'], ['juanperez', 'MX', 'MXN'], ['priya', 'IN', 'INR'], ['josebau', 'PH', 'PHP'], ['lizareyes', 'PH', 'PHP']] as const) {
    await make(h, country, cur, { handle: h });
  }
});
afterAll(() => svc?.stop({ removeData: true }));

/** Words of the tools' English descriptions that must not be left in another language's. */
const ENGLISH_DESCRIPTION = /\b(they receive|moves on-chain|with no fee|plus a|staking closes|refund all)\b|^(Send|Pay|Stake|Resolve) \S+ \S+ (to|on) /;

describe('a held action is described in the person\'s language', () => {
  const previews: [string, string, RegExp][] = [
    ['pcm', 'abeg send 5k give @amaka', /^Send 5,000\.00 NGN give @amaka: dem go receive 5,000\.00 NGN\./],
    ['sw', 'tuma 500 kwa @zawadi', /^Tuma 500\.00 KES kwa @zawadi: atapokea 500\.00 KES\./],
    ['fr', 'envoie 10 000 FCFA à @moussa', /^Envoyer 10,000 XOF à @moussa : il ou elle reçoit 10,000 XOF\./],
    ['pt', 'manda 50 reais pro @ana_souza', /^Enviar 50\.00 BRL para @ana_souza: recebe 50\.00 BRL\./],
    ['es', 'envía 250 pesos a @juanperez', /^Enviar 250\.00 MXN a @juanperez: recibe 250\.00 MXN\./],
    ['hi', '@priya ko 500 rupaye bhej do', /^@priya ko 500\.00 INR bhejna: unhe 500\.00 INR milenge\./],
    ['tl', 'pa-send naman ng 500 kay @josebau', /^Ipadala ang 500\.00 PHP kay @josebau: matatanggap niya ang 500\.00 PHP\./],
  ];
  for (const [lang, message, opening] of previews) {
    it(`${lang}: "${message}" previewed (confirm:false): description and reply in ${lang}, nothing moved`, async () => {
      const m = senders[lang]!;
      const before = await balance(svc, await wallet(m));
      const r = await settle(m, { message, confirm: false });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const description: string = r.body.pending.description;
      expect(description, description).toMatch(opening);
      expect(description).not.toMatch(ENGLISH_DESCRIPTION);
      // The same figures as the preview's details; the firm quote's id is named.
      expect(description).toContain(r.body.transfer.quote_id);
      expect(r.body.reply.startsWith(description)).toBe(true);
      expect(r.body.reply).not.toMatch(/Confirm to go ahead/);
      expect(await balance(svc, await wallet(m))).toBe(before);
    });
  }

  it('English keeps the tool\'s own description', async () => {
    const r = await settle(senders.en!, { message: 'send 5000 naira to @amaka', confirm: false });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.pending.description).toMatch(/^Send 5,000\.00 NGN to @amaka \(amaka\): they receive 5,000\.00 NGN\. .* moves on-chain/);
  });

  it('a Swahili message held for a word it could not place: the description inside the held reply is Swahili', async () => {
    const r = await settle(senders.sw!, { message: 'tuma 500 kwa @zawadi (ni ya kodi)' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.pending.description).toMatch(/^Tuma 500\.00 KES kwa @zawadi: atapokea 500\.00 KES\./);
    expect(r.body.reply).toContain(r.body.pending.description);
    expect(r.body.reply).toMatch(/^Sijafanya bado/);
  });

  it('a French stake preview is French, with the market\'s question and id', async () => {
    const fr = senders.fr!;
    const created = await svc.deps.markets.create(fr.accountId, { question: 'Le Sénégal va-t-il gagner la CAN ?', outcomes: ['Oui', 'Non'], closes_at: new Date(Date.now() + 7 * 86_400_000).toISOString() });
    expect(created.ok).toBe(true);
    const id = created.ok ? created.market.id : '';
    const r = await settle(fr, { message: `je mise 2000 FCFA sur Oui dans ${id}`, confirm: false });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.pending.description).toMatch(new RegExp(`^Miser 2,000 XOF \\(.+ au taux de .+ XOF/USDC\\) sur « Oui » dans « Le Sénégal va-t-il gagner la CAN \\? » \\(${id}\\) ; les mises ferment le `));
  });
});

describe('grounding\'s note before a held action', () => {
  it('Swahili airtime whose network is read from the phone prefix: held, the note, the description (with its translated label) and the ask all Swahili', async () => {
    // "recharge" names no kind of purchase (issue h11: "airtime ya 50" names it, and acts at once).
    const r = await settle(senders.sw!, { message: 'nunulia 0722334455 recharge ya 50' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.pending, JSON.stringify(r.body)).toBeDefined();
    expect(r.body.reply).toMatch(/^Nimechagua mtandao wa simu kutokana na mwanzo wa namba ya simu\. Lipa 50\.00 KES kwa .+ kwa namba ya simu \+254722334455 /);
    expect(r.body.reply).toMatch(/Thibitisha niendelee, au ghairi\./);
    expect(r.body.reply).not.toMatch(/I picked|phone number|Confirm to go ahead/);
  });
});

describe('a market referred to in another language than its question', () => {
  it('Swahili "weka 200 kwa Ndiyo kwenye soko la mvua Nairobi" stakes on the English "Will it rain in Nairobi on Saturday?" and settles', async () => {
    const ke = senders.sw!;
    const created = await svc.deps.markets.create(ke.accountId, { question: 'Will it rain in Nairobi on Saturday?', outcomes: ['Yes', 'No'], closes_at: new Date(Date.now() + 5 * 86_400_000).toISOString() });
    expect(created.ok).toBe(true);
    const before = await balance(svc, await wallet(ke));
    const r = await settle(ke, { message: 'weka 200 kwa Ndiyo kwenye soko la mvua Nairobi' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.market).toMatchObject({ status: 'settled', outcome: 'Yes', question: 'Will it rain in Nairobi on Saturday?' });
    expect(await balance(svc, await wallet(ke))).toBeLessThan(before);
  });
});

describe('"pesos" from an account that holds none (f-en-06)', () => {
  it('English "send 500 pesos to @lizareyes": the recipient receives PHP, so PHP is used as a named inference, held, asked in English; nothing moves until confirmed', async () => {
    const ng = senders.en!;
    const before = await balance(svc, await wallet(ng));
    const r = await settle(ng, { message: 'send 500 pesos to @lizareyes' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.transfer).toMatchObject({ status: 'awaiting_confirmation', input: { recipient: '@lizareyes', amount: '500', currency: 'PHP' } });
    expect(r.body.reply).toMatch(/^I have not done this yet: you wrote "pesos" without saying which, so I used Philippine pesos \(PHP\), the currency @lizareyes receives\./);
    expect(r.body.reply).toContain('Send 500.00 PHP to @lizareyes');
    expect(await balance(svc, await wallet(ng))).toBe(before);
    const done = await settle(ng, { confirm_action: r.body.pending.id });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.transfer).toMatchObject({ status: 'settled', currency: 'PHP', amount: '500' });
  });

  it('when the recipient receives no pesos, the question which pesos is asked in the language written (English, Swahili)', async () => {
    const r = await settle(senders.en!, { message: 'send 500 pesos to @amaka' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ action: 'none', reason: 'ambiguous_currency' });
    expect(r.body.reply).toMatch(/^Which pesos do you mean: Mexican \(MXN\) or Philippine \(PHP\)\?/);
    const sw = await settle(senders.sw!, { message: 'tuma pesos 500 kwa @zawadi' });
    expect(sw.body).toMatchObject({ action: 'none', reason: 'ambiguous_currency' });
    expect(sw.body.reply).not.toMatch(/Which pesos/);
  });
});

describe('a spend policy speaks the person\'s language: which rule, and what to do', () => {
  const putPolicy = (m: Merchant, policy: SpendPolicy) => call(`${svc.api}/policies`, { method: 'PUT', cookie: m.cookie, body: { policy, password: PASSWORD } });

  it('Swahili: over the per-transaction cap of the account\'s policy, refused in Swahili naming the cap and the fix', async () => {
    const m = await make('Capped sw', 'KE', 'KES', { fund: true });
    const set = await putPolicy(m, { usd: { per_transaction: '1' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const before = await balance(svc, await wallet(m));
    const r = await settle(m, { message: 'tuma 500 kwa @zawadi' });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.reason).toBe('policy_per_transaction');
    expect(r.body.reply).toMatch(/^Haikufanyika: .+ inazidi kikomo cha 1\.00 USD kwa kila muamala katika sera yako ya matumizi\. Jaribu kiasi kidogo zaidi\. Unaweza kubadilisha sera kwenye skrini ya Developers/);
    expect(await balance(svc, await wallet(m))).toBe(before);
  });

  it('French: over the approval threshold, held with the rule and what to do in French', async () => {
    const m = await make('Threshold fr', 'SN', 'XOF', { fund: true });
    expect((await putPolicy(m, { approval_threshold_usd: '1' })).status).toBe(200);
    const r = await settle(m, { message: 'envoie 10 000 FCFA à @moussa' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.reason).toBe('approval_required');
    expect(r.body.reply).toMatch(/^Envoyer 10,000 XOF à @moussa/);
    expect(r.body.reply).toMatch(/Cela dépasse le seuil d'approbation de 1\.00 USD de votre politique de dépenses, donc cela vous attend : confirmez-le connecté à l'application .+ Expire dans \d+ minutes?\.$/);
    expect(r.body.reply).not.toMatch(/This is over|This expires/);
  });

  it('Spanish "pesos" from an account holding none, over the approval threshold: the policy\'s hold is said in Spanish too', async () => {
    const m = await make('Threshold es pesos', 'NG', 'NGN', { fund: true });
    expect((await putPolicy(m, { approval_threshold_usd: '1' })).status).toBe(200);
    const before = await balance(svc, await wallet(m));
    const r = await settle(m, { message: 'envía 500 pesos a @lizareyes' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.reason).toBe('approval_required');
    expect(r.body.transfer).toMatchObject({ status: 'awaiting_confirmation', input: { recipient: '@lizareyes', amount: '500', currency: 'PHP' } });
    expect(r.body.reply).toMatch(/Esto supera el umbral de aprobación de 1\.00 USD de tu política de gastos, así que te espera: .+ Vence en \d+ minutos?\.$/);
    expect(r.body.reply).not.toMatch(/This is over|This expires|Confirm to go ahead/);
    expect(await balance(svc, await wallet(m))).toBe(before);
  });

  it('Hindi: a blocked recipient is refused in Hindi, naming the recipient and the blocklist', async () => {
    const m = await make('Blocker hi', 'IN', 'INR', { fund: true });
    expect((await putPolicy(m, { block_recipients: ['@priya'] })).status).toBe(200);
    const r = await settle(m, { message: '@priya ko 500 rupaye bhej do' });
    expect(r.status, JSON.stringify(r.body)).toBe(422);
    expect(r.body.reply).toMatch(/^Nahi bheja: @priya aapki spend policy ki blocklist par hai\. Aap app ki Developers screen par policy badal sakte hain/);
  });
});
