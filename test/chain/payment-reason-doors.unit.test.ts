/**
 * One reason vocabulary, translated only at the doors (issue 22, point 3): every reason of
 * src/lib/payment-reasons.ts has an HTTP status in the HTTP door's one table (SETTLE_STATUS), and
 * every way a custodial move can fail has chat words in every language in the chat door's one
 * table (failure-replies-i18n.ts), under each money-moving module's name for it. A reason added
 * to the vocabulary without a mapping fails here.
 */
import { describe, expect, it } from 'vitest';
import { failureReply } from '../../src/agent/local/failure-replies-i18n.js';
import { LANGS } from '../../src/agent/local/language.js';
import { BillReason } from '../../src/bills/bills.js';
import { SETTLE_STATUS } from '../../src/http/settle-answer.js';
import { MOVE_FAILURES, PaymentReason, SettleReason, SubmitReason, VerifyReason } from '../../src/lib/payment-reasons.js';
import { MarketReason } from '../../src/markets/market-records.js';
import { settleReasonOf } from '../../src/settlement/settle-reasons.js';
import { TransferReason } from '../../src/transfers/transfers.js';
import { moveFailure } from '../../src/wallet/money-module.js';

const ALL = Object.values(PaymentReason);

describe('the payment reason vocabulary at the HTTP door', () => {
  it('every reason answers a settle with a reason that has an HTTP status', () => {
    for (const r of ALL) {
      const settled = settleReasonOf(r);
      expect(Object.values(SettleReason), r).toContain(settled);
      expect(SETTLE_STATUS[settled], `${r} -> ${settled}`).toEqual(expect.any(Number));
    }
  });

  it('the chain, the relay and settlement speak subsets of it: one name per reason', () => {
    for (const r of [...Object.values(VerifyReason), ...Object.values(SubmitReason), ...MOVE_FAILURES, ...Object.values(SettleReason)]) {
      expect(ALL).toContain(r);
    }
    // The HTTP table holds settle reasons and the request check only: no second vocabulary.
    for (const key of Object.keys(SETTLE_STATUS)) if (key !== 'invalid_request') expect(Object.values(SettleReason)).toContain(key);
  });

  it('keeps the wire answers fixed by the interface document', () => {
    expect(SETTLE_STATUS).toMatchObject({
      insufficient_balance: 402,
      not_found: 404,
      already_settled: 409,
      processing: 409,
      expired: 410,
      reverted: 422,
      simulation_failed: 422,
      chain_unavailable: 503,
      submit_failed: 503,
    });
  });
});

describe('the payment reason vocabulary at the chat door', () => {
  const modules = [
    { thing: 'transfer', done: 'sent', rejected: TransferReason.transferFailed },
    { thing: 'bill', done: 'paid', rejected: BillReason.paymentFailed },
    { thing: 'stake', done: 'staked', rejected: MarketReason.stakeFailed },
  ];

  it('every move failure, as each module names it, has chat words in every language', () => {
    for (const m of modules) {
      for (const reason of MOVE_FAILURES) {
        const named = moveFailure({ status: 'failed', reason, message: 'x' }, m);
        for (const lang of LANGS) expect(failureReply(named.reason, lang), `${m.thing} ${reason} -> ${named.reason} (${lang})`).toEqual(expect.any(String));
      }
    }
  });

  it('a relay that could not reach the chain has chat words too', () => {
    for (const lang of LANGS) expect(failureReply(PaymentReason.chainUnavailable, lang)).toEqual(expect.any(String));
  });
});
