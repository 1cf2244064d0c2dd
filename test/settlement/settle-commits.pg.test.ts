/**
 * Issue 23 point 2 on PostgreSQL: concurrent checkout settles share their store commits. Alone,
 * a settle makes 3 commits of its own (claim, hash record or journal entry, settled:
 * settle-roundtrips.pg.test.ts); settles that arrive together share them
 * (src/store/pg/commit-groups.ts), so N at once make fewer than 3N, and every payment still ends
 * settled with exact balances; and fewer than 4N statements (8N before the eighth round). Most
 * of them leave as batch members, whose hash record (2 updates) has no commit of its own since
 * the fifteenth round when the receipt comes within relay.ts's grace: 23-52 statements for 20
 * (34-56 before; settle.concurrency.test.ts counts those records, none, on both stores).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { authorize, createPayment, customer, paymentRecord, settle, setup, usdc, type Ctx } from './helpers.js';
import { isCommit, statementCounter } from '../helpers/pg-statements.js';

let ctx: Ctx;
beforeAll(async () => {
  ctx = await setup({ EXPIRY_SWEEP_INTERVAL: '1h', WEBHOOK_RESCAN_INTERVAL: '1h', DEPOSIT_WATCH_INTERVAL: '1h', RECONCILE_INTERVAL: '1h' });
});
afterAll(async () => {
  await ctx?.svc.stop({ removeData: true });
});

describe('concurrent settles on PostgreSQL', () => {
  it('20 settles at once: fewer than 3 commits each, every payment settled, balances exact', async () => {
    const { chain } = ctx.svc.deps;
    const n = 20;
    const prepared = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const payout = privateKeyToAccount(generatePrivateKey()).address;
        const amount = `2.${String(i).padStart(2, '0')}`;
        const pay = await createPayment(ctx, { amount: Number(amount), payout_address: payout });
        const payer = await customer(ctx, usdc(amount) + 5n); // 5 base units left over after paying
        return { pay, payer, payout, due: usdc(amount), signed: await authorize(ctx, pay.id, payer) };
      }),
    );
    const counter = statementCounter();
    counter.start();
    const results = await Promise.all(prepared.map((p) => settle(ctx, p.pay.id, p.signed)));
    const { statements } = counter.stop();
    counter.restore();
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const commits = statements.filter(isCommit).length;
    // eslint-disable-next-line no-console
    console.log(`${n} concurrent settles: ${commits} commits, ${statements.length} statements`);
    expect(commits).toBeLessThan(3 * n);
    // Statements too (seventh round, h7pgsettle): the reads by id outside transactions go
    // together, and the writes nobody reads ride with the next statement or the COMMIT
    // (src/store/pg/get-batcher.ts, deferred-writes.ts): 115 for 20, was 224-233. Eighth round
    // (h8pg): a group's members run side by side, their statements of one step in one round
    // trip, and every BEGIN rides with its first statement (src/store/pg/commit-groups.ts):
    // 34-56 for 20.
    expect(statements.length).toBeLessThan(4 * n);
    for (const p of prepared) {
      expect((await paymentRecord(ctx, p.pay.id)).status).toBe('settled');
      expect(await chain.balanceOf(p.payout)).toBe(p.due);
      expect(await chain.balanceOf(p.payer.address)).toBe(5n);
    }
  });
});
