/**
 * Issue 23 point 2: the database statements of one checkout settle on PostgreSQL, counted at the
 * driver (every `Client.query` of the service's pool) over real HTTP, from the settle request to
 * its answer (docs/performance.md, "Statements per settlement"). The settle's own write path:
 * the claim (`pending -> processing` with its attempt row), the relay journal entry with the
 * transaction's hash (one commit, before the broadcast), then `settled` with the attempt's answer
 * and the webhook outbox row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorize, createPayment, customer, settle, setup, usdc, type Ctx } from './helpers.js';
import { isCommit, statementCounter } from '../helpers/pg-statements.js';

let ctx: Ctx;
let counter: ReturnType<typeof statementCounter>;

beforeAll(async () => {
  ctx = await setup({ EXPIRY_SWEEP_INTERVAL: '1h', WEBHOOK_RESCAN_INTERVAL: '1h', DEPOSIT_WATCH_INTERVAL: '1h' });
  counter = statementCounter();
});
afterAll(async () => {
  counter?.restore();
  await ctx?.svc.stop({ removeData: true });
});

async function countedSettle() {
  const pay = await createPayment(ctx);
  const payer = await customer(ctx, usdc('12.5'));
  const signed = await authorize(ctx, pay.id, payer);
  counter.start();
  const r = await settle(ctx, pay.id, signed);
  return { r, ...counter.stop() };
}

describe('statements of one checkout settle on PostgreSQL', () => {
  it('three commits on the write path: claim, journal entry with the hash, settled', async () => {
    await countedSettle(); // warm: prepared statements, caches
    const { r, statements } = await countedSettle();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.payment.status).toBe('settled');
    const commits = statements.filter(isCommit);
    // eslint-disable-next-line no-console
    console.log(`statements per settle: ${statements.length}\n${statements.map((s) => `  ${s.slice(0, 100)}`).join('\n')}`);
    expect(commits).toHaveLength(3);
    // Each status change is its compare-and-set alone (the row before comes back with it), and
    // the outbox remembers the account's endpoints (src/webhooks/endpoint-cache.ts).
    const lastCommit = statements.length - 1 - [...statements].reverse().findIndex(isCommit);
    const inTransactions = statements.slice(statements.indexOf(statements.find((s) => s.startsWith('BEGIN'))!), lastCommit);
    expect(inTransactions.filter((s) => s.includes('SELECT doc FROM "payments"'))).toEqual([]);
    expect(statements.filter((s) => s.includes('"webhook_endpoints"'))).toEqual([]);
    // Outside the transactions: the door's read of the payment only. Settle takes that read
    // (src/settlement/settlement.ts) and the answer reuses the merchant's name as the public read
    // does (src/http/settle-answer.ts): no second payment read, no account read (ninth round).
    expect(statements.filter((s) => s.startsWith('SELECT doc FROM "payments"'))).toHaveLength(1);
    expect(statements.filter((s) => s.includes('"accounts"'))).toEqual([]);
    // The webhook event has no round trip of its own: it rides with the `settled` COMMIT (tenth round).
    expect(statements.filter((s) => s.startsWith('INSERT INTO "webhook_events"'))).toEqual([]);
    expect(statements.length).toBeLessThanOrEqual(MAX_STATEMENTS);
  });
});

/**
 * 26 before issue 23 point 2 (4 commits), 20 after its third round, 16 after the fourth
 * (docs/performance.md), plus 1 since the door pays through `CheckoutSessions.pay` (issue 22):
 * it reads the payment to pick its mode's chain and the method's adapter, and settle reads it
 * again inside the per-payment queue (a double submit queued behind the first must see its
 * outcome). 14 after the seventh round (h7pgsettle): the hash record's two updates go with the
 * journal entry's COMMIT, the attempt's final answer with the `settled` COMMIT
 * (`WriteTable.updateLater`, src/store/pg/deferred-writes.ts), and 13 with the claim's
 * compare-and-set and attempt row issued together (one round trip). 10 after the eighth round
 * (h8pg): each transaction's BEGIN goes with its first statement (src/store/pg/deferred-writes.ts
 * `begin`). 8 after the ninth round (h9pg): settle takes the door's read of the payment, and the
 * answer the merchant's name the public read keeps. 7 after the tenth (h10pg): the webhook event
 * goes with the `settled` COMMIT (`WriteTable.insertLater`). The owner's broadcast fence
 * (h12truth; docs/settlement.md, "Checkout and x402 owners have the broadcast fence") reads its
 * attempt with the database's clock only near its deadline ("The fence's read, only near the
 * deadline"): a settle well inside its window adds no statement (8 while it always read). 6 after
 * the thirteenth round (h13pg): the relay journal's entry is held too (`WriteTable.putLater`), so
 * its commit with the hash record is one round trip. Fails if the path grows again.
 */
const MAX_STATEMENTS = 6;
