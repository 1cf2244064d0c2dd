import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/agent.js';
import { LocalEngine } from '../../src/agent/local-engine.js';
import { createToolHandlers } from '../../src/agent/handlers.js';
import { FxService, loadFxTable } from '../../src/fx/rates.js';
import { LANGS } from '../../src/agent/local/language.js';
import { outcomeReply } from '../../src/agent/local/outcome-replies-i18n.js';
import { failureReply, LOCALIZED_FAILURES } from '../../src/agent/local/failure-replies-i18n.js';
import { readReply } from '../../src/agent/local/replies-read.js';
import { localizeQuestion } from '../../src/agent/local/replies-questions-i18n.js';
import { replies } from '../../src/agent/local/replies.js';
import { pendingAsk } from '../../src/agent/local/pending-replies-i18n.js';
import { PendingActionsStore } from '../../src/pending-actions/pending-actions.js';
import type { ToolContext, ToolOutcome } from '../../src/agent/tool-calls.js';
import type { LowdbStore } from '../../src/store/index.js';
import { fakeAccounts, fakeHandlers, silentLogger, tempStore } from './fakes.js';

/**
 * Issue 20, rule 5: money-moving results, failures and confirmations whole in each of the
 * eight languages, with exactly the figures of the tool's English summary. The outcomes come
 * from the real tool handlers over stub domain services, so the summaries are the real ones.
 */

const fx = new FxService(loadFxTable());
const ctx = { accountId: 'acct_alice', channel: 'api', logger: silentLogger() } as unknown as ToolContext;
const HASH = '0xabc1234567890def1234567890abcdef1234567890abcdef1234567890fe9876';
const TX = '0xabc12345…fe9876';
const ESCROW = '0x00000000000000000000000000000000000e5c20';

const transfer = (over: Record<string, unknown> = {}) => ({
  id: 'tr_9Xk2', accountId: 'acct_alice', status: 'settled', recipientKind: 'account', recipientInput: '@zawadi', recipientLabel: '@zawadi', toAddress: '0x1',
  fromIndex: 0, fromAddress: '0x2', sourceCurrency: 'KES', sourceAmount: '5000', sourceAmountMinor: '500000', stablecoinAmount: '38684719', fee: '193424',
  totalDebit: '38878143', recipientCurrency: 'NGN', recipientAmount: '59787.27', recipientAmountMinor: '5978727', rate: '11.95745', sourceRate: '129.25',
  recipientRate: '1545.5', quoteExpiresAt: '2026-01-01T00:00:00Z', txHash: HASH, feeStatus: 'settled', createdAt: 'x', updatedAt: 'x', ...over,
});
const bill = {
  id: 'bill_7', accountId: 'acct_alice', status: 'completed', billerId: 'kplc', billerName: 'KPLC Prepaid', category: 'electricity', accountNumber: '37191234567',
  customerName: 'Zawadi Otieno', currency: 'KES', amount: '1500', amountMinor: '150000', inputAmount: '1500', inputCurrency: 'KES', stablecoinAmount: '11605415',
  rate: '129.25', fromIndex: 0, fromAddress: '0x2', collectionIndex: 1, collectionAddress: '0x3', txHash: HASH, createdAt: 'x', updatedAt: 'x',
  receipt: { receiptNumber: 'KP-55821', token: '12345678901234567890', units: '61.2', unitLabel: 'kWh' },
};
const market = {
  id: 'mkt_Q7', seq: 0, escrowIndex: 0, creatorAccountId: 'acct_alice', question: 'Will it rain in Nairobi on Friday?', outcomes: ['Yes', 'No'],
  closesAt: '2026-12-15T18:00:00.000Z', status: 'open', pools: ['20000000', '5000000'], totalPool: '25000000', stakeCount: 3, winningOutcome: 0, createdAt: 'x', updatedAt: 'x',
};
const stake = {
  id: 'stk_3', marketId: 'mkt_Q7', accountId: 'acct_alice', outcome: 0, outcomeLabel: 'Yes', amount: '7736944', currency: 'KES', localAmount: '1000',
  localAmountMinor: '100000', rate: '129.25', fromIndex: 0, fromAddress: '0x2', status: 'settled', txHash: HASH, createdAt: 'x', updatedAt: 'x',
};
const marketView = (m: typeof market) => ({
  id: m.id, question: m.question, outcomes: m.outcomes.map((label, index) => ({ index, label })), status: m.status, closes_at: m.closesAt,
  total_pool_base_units: m.totalPool, escrow_address: ESCROW, winning_outcome: m.outcomes[m.winningOutcome] ?? null,
});
const report = { paid: 2, unpaid: 1, total: 24_000_000n, payouts: [] };

/** Each money-moving tool's real outcome: [tool, outcome, figures the reply must carry verbatim]. */
async function outcomes(): Promise<Array<[string, string, ToolOutcome, string[]]>> {
  // Each tool's real handler over fakes of the one module it needs (the rest is never reached).
  const handlers = (deps: object) => createToolHandlers({ fx, ...deps } as never);
  const send = (t: object) => handlers({ transfers: { send: async () => ({ ok: true, transfer: t }) } }).send_transfer({ recipient: '@zawadi', amount: '5000', currency: 'KES' }, ctx);
  const pay = (b: object) => handlers({ bills: { pay: async () => ({ ok: true, bill: b }) } }).pay_bill({ biller: 'kplc', account_number: '37191234567', amount: '1500' }, ctx);
  const markets = {
    view: marketView,
    escrowAddress: () => ESCROW,
    create: async () => ({ ok: true, market }),
    stake: async () => ({ ok: true, stake, market }),
    resolve: async () => ({ ok: true, market, report }),
    cancel: async () => ({ ok: true, market, report: { ...report, unpaid: 0, paid: 1 } }),
  };
  const mh = handlers({ markets, accounts: fakeAccounts });
  const pendingStake = { ...markets, stake: async () => ({ ok: true, stake: { ...stake, status: 'pending', txHash: undefined }, market }) };
  const mhPending = handlers({ markets: pendingStake, accounts: fakeAccounts });
  const payments = {
    create: async () => ({ ok: true, payment: { id: 'pay_L1', status: 'pending', amount: '2500', currency: 'PHP', stablecoinAmount: '42589437', rate: '58.70', expiresAt: 'x' } }),
    checkoutUrl: (id: string) => `https://pay.example.test/c/${id}`,
  };
  const link = handlers({ accounts: { get: async () => ({ id: 'acct_alice', name: 'Alice', localCurrency: 'PHP' }) }, payments, publicUrl: 'https://pay.example.test' }).create_payment_link;
  const both = ['5,000.00 KES', '@zawadi', '59,787.27 NGN', '38.684719 USDC', '1 KES = 11.95745 NGN', '129.25 KES/USDC', '0.193424 USDC'];
  return [
    ['send_transfer', 'settled', await send(transfer()), [...both, TX]],
    ['send_transfer', 'submitted', await send(transfer({ status: 'submitted' })), [...both, TX]],
    ['send_transfer', 'same currency, no fee', await send(transfer({ recipientCurrency: 'KES', recipientAmount: '5000', recipientAmountMinor: '500000', fee: '0', rate: '1' })), ['5,000.00 KES', '129.25 KES/USDC', TX]],
    ['pay_bill', 'completed', await pay(bill), ['1,500.00 KES', 'KPLC Prepaid', '37191234567', 'Zawadi Otieno', '11.605415 USDC', '129.25 KES/USDC', 'KP-55821', '1234 5678 9012 3456 7890', '61.2 kWh', TX]],
    ['pay_bill', 'paid', await pay({ ...bill, status: 'paid', receipt: undefined }), ['1,500.00 KES', 'KPLC Prepaid', TX]],
    ['pay_bill', 'submitted', await pay({ ...bill, status: 'processing', receipt: undefined, txHash: undefined }), ['1,500.00 KES', '11.605415 USDC']],
    ['stake_market', 'settled', await mh.stake_market({ market: 'mkt_Q7', outcome: 'Yes', amount: '1000' }, ctx), ['1,000.00 KES', '7.736944 USDC', '129.25 KES/USDC', 'Yes', market.question, '25.00 USDC', TX]],
    ['stake_market', 'submitted', await mhPending.stake_market({ market: 'mkt_Q7', outcome: 'Yes', amount: '1000' }, ctx), ['1,000.00 KES', '7.736944 USDC', 'Yes']],
    ['create_market', 'created', await mh.create_market({ question: market.question, closes_at: market.closesAt }, ctx), [market.question, 'mkt_Q7', 'Yes / No', market.closesAt, ESCROW]],
    ['resolve_market', 'resolved', await mh.resolve_market({ market: 'mkt_Q7', outcome: 'Yes' }, ctx), [market.question, 'Yes', '24.00 USDC', '25.00 USDC']],
    ['cancel_market', 'cancelled', await mh.cancel_market({ market: 'mkt_Q7' }, ctx), [market.question, '24.00 USDC', '25.00 USDC']],
    ['create_payment_link', 'link', await link({ amount: '2500', currency: 'PHP', description: 'pabili' }, ctx), ['2,500.00 PHP', '42.589437 USDC', '58.70 PHP/USDC', 'https://pay.example.test/c/pay_L1', '60']],
  ];
}

/** Phrases of the English summaries that must not survive in another language's reply. */
const ENGLISH = [
  'Sent ', 'who receives', 'Settled on-chain', 'Submitted', 'Waiting for the network', 'nothing will be', 'it is safe', 'Paid ', 'Receipt ', 'has not issued',
  'Staked ', 'Held in escrow', 'the pool is now', 'Created the market', 'with outcomes', 'staking closes', 'Stakes are held', 'Payment link for', 'valid for',
  'paid from escrow', 'Resolved ', 'Cancelled ', 'still being confirmed', ' at ', ' fee ', 'no fee',
];

/** Words these languages borrow from English as their own ("receipt" in Pidgin, "fee" in Hinglish). */
const LOANWORDS: Partial<Record<string, string[]>> = { pcm: ['Receipt '], hi: [' fee '] };

describe('money-moving results in eight languages', () => {
  it('the en template rebuilds every English summary exactly, from the result fields alone', async () => {
    for (const [tool, , o] of await outcomes()) {
      expect(o.ok, tool).toBe(true);
      if (!o.ok) continue;
      expect(outcomeReply(tool, o.result, 'en')).toBe(o.summary);
    }
  });

  for (const lang of LANGS.filter((l) => l !== 'en')) {
    it(`${lang}: each tool's reply carries the exact figures and no English template words`, async () => {
      for (const [tool, label, o, figures] of await outcomes()) {
        if (!o.ok) throw new Error(`${tool} failed`);
        const reply = outcomeReply(tool, o.result, lang);
        expect(reply, `${tool} ${label}`).toBeDefined();
        for (const f of figures) expect(reply, `${tool} ${label} ${lang}: ${f}`).toContain(f);
        for (const w of ENGLISH.filter((e) => !LOANWORDS[lang]?.includes(e))) expect(reply, `${tool} ${label} ${lang}: "${w}"`).not.toContain(w);
      }
    });
  }

  it('a result of another shape (a claim link) keeps the English summary', () => {
    expect(outcomeReply('send_transfer', { id: 'clm_1', claim_url: 'x' }, 'fr')).toBeUndefined();
  });
});

describe('a firm quote (held until a time, under an id)', () => {
  const summary = 'Quote (nothing sent): 100.00 BRL to MXN arrives as 353.20 MXN at 1 BRL = 3.53202847 MXN; fee 0.088967 USDC (total 17.882561 USDC from your wallet). Held until 08:19:57 UTC (quote qt_JUs852).';
  it('is answered whole in each language with its time and id', () => {
    for (const lang of LANGS.filter((l) => l !== 'en')) {
      const r = readReply('quote_transfer', summary, lang)!;
      for (const f of ['100.00 BRL', '353.20 MXN', '1 BRL = 3.53202847 MXN', '0.088967 USDC', '17.882561 USDC', '08:19:57 UTC', 'qt_JUs852']) expect(r, lang).toContain(f);
      expect(r, lang).not.toMatch(/Held until|nothing sent/);
    }
  });
});

describe('failures and confirmations in eight languages', () => {
  it('every listed reason has a reply in every language, distinct from English', () => {
    for (const reason of ['insufficient_balance', 'unknown_recipient', 'over_limit', 'policy_per_transaction', 'policy_daily', 'policy_weekly', 'policy_monthly', 'policy_recipient', 'policy_action', 'policy_breaker']) {
      expect(LOCALIZED_FAILURES).toContain(reason);
    }
    for (const reason of LOCALIZED_FAILURES) {
      const en = failureReply(reason, 'en')!;
      for (const lang of LANGS.filter((l) => l !== 'en')) {
        const text = failureReply(reason, lang);
        expect(text, `${reason} ${lang}`).toBeTruthy();
        expect(text).not.toBe(en);
        expect(text).not.toMatch(/Nothing was|could not|couldn't/);
      }
    }
  });

  it('the confirmation ask names the minutes in each language', () => {
    for (const lang of LANGS) {
      const ask = pendingAsk(lang, 15);
      expect(ask).toContain('15');
      if (lang !== 'en') expect(ask).not.toMatch(/Confirm to go ahead|This expires/);
    }
    expect(pendingAsk('en', 1)).toBe('Confirm to go ahead, or cancel. This expires in 1 minute.');
  });
});

describe("the builders' questions in eight languages", () => {
  const r = replies;
  const questions = [
    r.transferNeedsBoth, r.transferNeedsRecipient('5,000.00 KES'), r.transferNeedsAmount('@zawadi'), r.transferOneRecipient, r.transferNationalPhone('0712345678'),
    r.transferNamedRecipient('Mama Ngozi'), r.noScheduling, r.amountPositive, r.amountTooLarge, r.billNeedsBiller, r.billNeedsAccount('Acme Power', 'meter number'),
    r.billNeedsAmount('Acme Power'), r.billNeedsAll, r.marketNeedsQuestion, r.marketQuestionLength, r.marketOutcomeCount, r.marketClosePast, r.stakeNeedsMarket,
    r.stakeNeedsOutcome('mkt_Q7'), r.stakeNeedsAmount('mkt_Q7'), r.resolveNeedsMarket, r.resolveNeedsOutcome('mkt_Q7'), r.cancelNeedsMarket, r.linkNeedsAmount,
  ];
  for (const lang of LANGS.filter((l) => l !== 'en')) {
    it(`${lang}: every question is translated, its filled-in parts kept`, () => {
      for (const q of questions) {
        const out = localizeQuestion(q, lang);
        expect(out, `${lang}: ${q}`).not.toBe(q);
        for (const part of ['@zawadi', '0712345678', 'Mama Ngozi', 'Acme Power', 'mkt_Q7', '5,000.00 KES']) if (q.includes(part)) expect(out, `${lang}: ${q}`).toContain(part);
      }
    });
  }
  it('English keeps the builders\' own words', () => {
    for (const q of questions) expect(localizeQuestion(q, 'en')).toBe(q);
  });
});

describe('through the agent with the local engine', () => {
  let store: LowdbStore;
  beforeEach(async () => {
    store = await tempStore();
  });
  afterEach(async () => {
    await store.close();
  });
  const agentWith = (outcome: () => ToolOutcome) => {
    const f = fakeHandlers({ outcomes: { send_transfer: outcome } });
    return new Agent({ engine: new LocalEngine(), handlers: f.handlers, actions: new PendingActionsStore(store), logger: silentLogger(), accounts: fakeAccounts });
  };

  it('French and Swahili transfers answer whole in the language; English keeps the exact summary', async () => {
    const real = (await outcomes())[0]![2];
    const a = agentWith(() => real);
    const fr = await a.runTurn({ accountId: 'acct_alice', message: 'envoie 5000 KES à @zawadi', channel: 'api' });
    expect(fr).toMatchObject({ ok: true, action: 'transfer', reply: outcomeReply('send_transfer', (real as { result: unknown }).result, 'fr') });
    expect(fr.reply.startsWith('Envoyé : 5,000.00 KES à @zawadi')).toBe(true);
    const sw = await a.runTurn({ accountId: 'acct_alice', message: 'tuma 5000 KES kwa @zawadi', channel: 'api' });
    expect(sw.reply.startsWith('Umetuma 5,000.00 KES kwa @zawadi')).toBe(true);
    const en = await a.runTurn({ accountId: 'acct_alice', message: 'send 5000 KES to @zawadi', channel: 'api' });
    expect(en.reply).toBe((real as { summary: string }).summary);
  });

  it('a failure answers in the language by reason; English keeps the message', async () => {
    const a = agentWith(() => ({ ok: false, action: 'transfer', reason: 'insufficient_balance', message: 'Insufficient balance: you have 1.00 USDC.' }));
    const pt = await a.runTurn({ accountId: 'acct_alice', message: 'manda 50 reais pra @ana', channel: 'api' });
    expect(pt).toMatchObject({ ok: false, reason: 'insufficient_balance', reply: failureReply('insufficient_balance', 'pt') });
    const en = await a.runTurn({ accountId: 'acct_alice', message: 'send 50 BRL to @ana', channel: 'api' });
    expect(en).toMatchObject({ ok: false, reply: 'Insufficient balance: you have 1.00 USDC.' });
  });

  it('a held confirmation (people-facing channel) asks in the language', async () => {
    const a = agentWith(() => ({ ok: true, action: 'transfer', result: {}, summary: 'x' }));
    const sw = await a.runTurn({ accountId: 'acct_alice', message: 'tuma 500 KES kwa @zawadi', channel: 'chat' });
    expect(sw.pending).toBeDefined();
    expect(sw.reply).toContain(pendingAsk('sw', 10));
    expect(sw.reply).not.toContain('Confirm to go ahead');
    const en = await a.runTurn({ accountId: 'acct_alice', message: 'send 500 KES to @zawadi', channel: 'chat' });
    expect(en.reply).toContain('Confirm to go ahead, or cancel. This expires in 10 minutes.');
  });
});

