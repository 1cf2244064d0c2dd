/**
 * Spend reservations that were written in a commit of their own, before the action's own write
 * (docs/policies.md, "In the action's own transactions"): a store error between left a `reserved`
 * row with no record, holding the cap for 30 days. Each path now writes it in the transaction that
 * writes its record (which keeps its id) and ends it from the record's outcome, as the transfer
 * does (test/policies/stuck-reservation.test.ts). Real HTTP turns through an API key, real
 * service (anvil; the embedded store, PostgreSQL in the `pg` project); the store error is
 * injected at the exact statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund, newAccount, walletOf } from '../helpers/money.js';
import { SpendReservations } from '../../src/policies/tables.js';
import { BillPayments } from '../../src/bills/bills.js';
import { Stakes } from '../../src/markets/market-records.js';
import { Transfers } from '../../src/transfers/transfers.js';
import { Claims } from '../../src/claims/claim-record.js';
import { failNextWrite } from '../helpers/store-faults.js';
import { newPayer } from '../x402/helpers.js';
import { Refunds } from '../../src/refunds/model.js';
import { newId } from '../../src/lib/ids.js';

const BILL = 'pay IKEDC 5000 for meter 45123456789';

describe('reservations of the paths that reserved in a commit of their own', () => {
  let svc: TestService;
  let m: Merchant;

  beforeAll(async () => {
    svc = await startTestService({ SETTLEMENT_CONFIRM_TIMEOUT: '2s', SETTLEMENT_CHAIN_DELAY: '1s', AGENT_RATE_LIMIT: '100/min', QUOTE_TTL: '3s' });
    m = await createMerchant(svc.api, 'Reservation Shop');
    await fund(svc, (await svc.deps.accounts.get(m.accountId))!, '50');
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const settle = (message: string) => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message } });
  const reservations = () => svc.deps.store.table(SpendReservations).findMany({ accountId: m.accountId });
  const reserved = async () => (await reservations()).filter((r) => r.status === 'reserved');

  const failNext = (table: string, op: 'insert' | 'update') => failNextWrite(svc.deps.store, table, op);

  it('bill: the bill write fails: no reservation is left holding the cap', { timeout: 60_000 }, async () => {
    const before = await reservations();
    failNext(BillPayments.name, 'insert');
    const r = await settle(BILL);
    // Conservative: the handler had begun (docs/api-decisions.md, "Agent turns when the database fails").
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(await svc.deps.store.table(BillPayments).findMany({ accountId: m.accountId })).toEqual([]);
    // Before: a `reserved` row of 3.24 USD with no bill, counting against every cap for 30 days.
    expect(await reserved()).toEqual([]);
    expect((await reservations()).length).toBe(before.length);
  });

  it('bill: its outcome write fails: the reservation is on the bill, kept, and ended by the bill\'s reconcile', { timeout: 60_000 }, async () => {
    failNext(BillPayments.name, 'update');
    const r = await settle(BILL);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const [bill] = await svc.deps.store.table(BillPayments).findMany({ accountId: m.accountId });
    expect(bill?.status).toBe('submitted');
    expect(bill?.spendReservationId).toMatch(/^spr_/);
    const reservation = () => svc.deps.store.table(SpendReservations).get(bill!.spendReservationId!);
    expect((await reservation())?.status).toBe('reserved');
    const done = await svc.deps.bills.reconcile(bill!.id);
    expect(done.ok && done.bill.status).toBe('completed');
    expect((await reservation())?.status).toBe('committed');
  });

  it('bill: a plain bill commits its reservation, named on its row', { timeout: 60_000 }, async () => {
    const r = await settle(BILL);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const bill = await svc.deps.store.table(BillPayments).get(r.body.bill.id);
    expect((await svc.deps.store.table(SpendReservations).get(bill!.spendReservationId!))?.status).toBe('committed');
  });

  /** A market of another account, open for an hour. */
  async function market(): Promise<string> {
    const owner = await createMerchant(svc.api, 'Market Owner');
    const r = await call(`${svc.api}/agent/settle`, { method: 'POST', key: owner.key, body: { message: 'create a market: Will it rain in Nairobi tomorrow? closes in 1 hour' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.market.id as string;
  }

  it('stake: the stake write fails: no reservation is left holding the cap', { timeout: 60_000 }, async () => {
    const id = await market();
    const before = await reservations();
    failNext(Stakes.name, 'insert');
    const r = await settle(`bet 2 USD on yes in ${id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(await svc.deps.store.table(Stakes).findMany({ accountId: m.accountId })).toEqual([]);
    // Before: a `reserved` row of 2 USD with no stake.
    expect(await reserved()).toEqual([]);
    expect((await reservations()).length).toBe(before.length);
  });

  it('stake: its outcome write fails: the reservation is on the stake and ended by the market\'s reconcile', { timeout: 60_000 }, async () => {
    const id = await market();
    failNext(Stakes.name, 'update');
    const r = await settle(`bet 2 USD on yes in ${id}`);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const [stake] = await svc.deps.store.table(Stakes).findMany({ marketId: id });
    expect(stake?.status).toBe('submitted');
    expect(stake?.spendReservationId).toMatch(/^spr_/);
    const reservation = () => svc.deps.store.table(SpendReservations).get(stake!.spendReservationId!);
    expect((await reservation())?.status).toBe('reserved');
    expect(await svc.deps.markets.reconcileStakes(id)).toBe(0); // none left `submitted`
    expect((await svc.deps.store.table(Stakes).get(stake!.id))?.status).toBe('settled');
    expect((await reservation())?.status).toBe('committed');
  });

  /** A firm quote for 1 USD to a fresh account's wallet, executed at once through `{quote_id}`. */
  async function quoteAndExecute(): Promise<{ status: number; body: any; to: string }> {
    const to = walletOf(svc, await newAccount(svc, { name: 'Zuri', country: 'KE' }));
    const q = await call(`${svc.api}/quotes`, { key: m.key, body: { amount: '1', currency: 'USD', recipient: to } });
    expect(q.status, JSON.stringify(q.body)).toBe(201);
    const r = await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { quote_id: q.body.id } });
    return { ...r, to };
  }

  it('firm quote: its send never began: the reservation is on the transfer and given back once the quote expired', { timeout: 60_000 }, async () => {
    failNext(Transfers.name, 'update'); // the `quoted -> submitted` hold, after the quote wrote the transfer
    const r = await quoteAndExecute();
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const [t] = (await svc.deps.store.table(Transfers).findMany({ accountId: m.accountId })).filter((x) => x.toAddress.toLowerCase() === r.to.toLowerCase());
    expect(t?.status).toBe('quoted');
    // Before: reserved in a commit of its own, named by nothing, `reserved` for 30 days.
    expect(t?.spendReservationId).toMatch(/^spr_/);
    const reservation = () => svc.deps.store.table(SpendReservations).get(t!.spendReservationId!);
    expect((await reservation())?.status).toBe('reserved');
    // Nothing can send it once its quote expired: the reconcile sweep finds it and gives the cap back.
    await new Promise((res) => setTimeout(res, 3_200));
    expect((await svc.deps.transfers!.unfinished(0)).map((x) => x.id)).toContain(t!.id);
    const done = await svc.deps.transfers!.reconcile(t!.id);
    expect(done.ok && done.transfer.status).toBe('expired');
    expect((await reservation())?.status).toBe('released');
    expect(await svc.deps.chain.balanceOf(r.to as `0x${string}`)).toBe(0n);
  });

  it('firm quote: an expired `quoted` transfer without a reservation is ended by the sweep too, so none stay ahead of one with a reservation', { timeout: 60_000 }, async () => {
    failNext(Transfers.name, 'update');
    const r = await quoteAndExecute();
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const [t] = (await svc.deps.store.table(Transfers).findMany({ accountId: m.accountId })).filter((x) => x.toAddress.toLowerCase() === r.to.toLowerCase());
    // The same transfer as a caller without a spend policy leaves it: `quoted`, no reservation.
    const { spendReservationId: _reserved, ...plain } = t!;
    const bare = await svc.deps.store.write(Transfers, (tbl) => tbl.insert({ ...plain, id: newId('tr') }));
    await new Promise((res) => setTimeout(res, 3_200));
    // Before: only a quoted transfer with a reservation was a candidate; the others stayed `quoted` for ever
    // and, once 500 of them were idle, the sweep's window held nothing else.
    expect((await svc.deps.transfers!.unfinished(0)).map((x) => x.id)).toEqual(expect.arrayContaining([t!.id, bare.id]));
    const done = await svc.deps.transfers!.reconcile(bare.id);
    expect(done.ok && done.transfer.status).toBe('expired');
    expect((await svc.deps.transfers!.reconcile(t!.id)).ok).toBe(true);
    expect((await svc.deps.store.table(SpendReservations).get(t!.spendReservationId!))?.status).toBe('released');
  });

  it('firm quote: a plain execution commits its reservation, named on its transfer', { timeout: 60_000 }, async () => {
    const r = await quoteAndExecute();
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const t = await svc.deps.transfers!.get(r.body.transfer.id);
    expect(t?.status).toBe('settled');
    expect((await svc.deps.store.table(SpendReservations).get(t!.spendReservationId!))?.status).toBe('committed');
  });

  const claimsOf = () => svc.deps.store.table(Claims).findMany({ senderAccountId: m.accountId });

  it('claim link: the claim write fails: no reservation is left holding the cap', { timeout: 60_000 }, async () => {
    const before = await reservations();
    failNext(Claims.name, 'insert');
    const r = await settle('send 1 USD to +254 712 000 211');
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(await claimsOf()).toEqual([]);
    // Before: `reserveNow` wrote it in a commit of its own: `reserved`, with no claim, for 30 days.
    expect(await reserved()).toEqual([]);
    expect((await reservations()).length).toBe(before.length);
  });

  it('claim link: its funding write fails: the reservation is on the claim and ended by the sweep', { timeout: 60_000 }, async () => {
    failNext(Claims.name, 'update');
    const r = await settle('send 1 USD to +254 712 000 212');
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const [c] = await claimsOf();
    expect(c?.status).toBe('funding');
    expect(c?.spendReservationId).toMatch(/^spr_/);
    const reservation = () => svc.deps.store.table(SpendReservations).get(c!.spendReservationId!);
    expect((await reservation())?.status).toBe('reserved');
    await svc.deps.claims.sweep();
    expect((await svc.deps.claims.get(c!.id))?.status).toBe('open');
    expect((await reservation())?.status).toBe('committed');
  });

  /** A settled 2 USD payment to the merchant, paid through the hosted checkout from a fresh wallet. */
  async function settledPayment(): Promise<string> {
    const pay = await call(`${svc.api}/v1/payments`, { key: m.key, body: { amount: 2, currency: 'USD', redirect_url: 'https://shop.example/done' } });
    expect(pay.status, JSON.stringify(pay.body)).toBe(201);
    const payer = newPayer();
    expect((await svc.deps.chain.faucet(payer.address, 2_000_000n, { nativeAmount: 0n })).ok).toBe(true);
    const auth = await call(`${svc.api}/checkout/${pay.body.id}/authorization`, { body: { from: payer.address } });
    const signature = await payer.signTypedData(auth.body.typedData);
    const settled = await call(`${svc.api}/checkout/${pay.body.id}/settle`, { body: { authorization: auth.body.typedData.message, signature } });
    expect(settled.status, JSON.stringify(settled.body)).toBe(200);
    return pay.body.id as string;
  }

  /** `refund 1 of <payment>` previewed, then run with `confirm_action`. */
  async function refundTurn(paymentId: string) {
    const held = await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message: `refund 1 of ${paymentId}`, confirm: false } });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    return () => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { confirm_action: held.body.pending.id } });
  }

  it('refund: the refund write fails: no reservation is left holding the cap', { timeout: 60_000 }, async () => {
    const id = await settledPayment();
    const run = await refundTurn(id);
    const before = await reservations();
    failNext(Refunds.name, 'insert');
    const r = await run();
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(await svc.deps.store.table(Refunds).findMany({ paymentId: id })).toEqual([]);
    // Before: `run` reserved in a commit of its own: `reserved`, with no refund.
    expect(await reserved()).toEqual([]);
    expect((await reservations()).length).toBe(before.length);
  });

  it('refund: its outcome write fails: the reservation is on the refund and ended when it is paid again', { timeout: 60_000 }, async () => {
    const id = await settledPayment();
    const run = await refundTurn(id);
    failNext(Refunds.name, 'update');
    const r = await run();
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const [refund] = await svc.deps.store.table(Refunds).findMany({ paymentId: id });
    expect(refund?.status).toBe('pending');
    expect(refund?.spendReservationId).toMatch(/^spr_/);
    const reservation = () => svc.deps.store.table(SpendReservations).get(refund!.spendReservationId!);
    expect((await reservation())?.status).toBe('reserved');
    await svc.deps.refunds.reconcile(); // the reconciler's pass: the same nonce, so it finds or sends the one transfer
    expect((await svc.deps.store.table(Refunds).get(refund!.id))?.status).toBe('succeeded');
    expect((await reservation())?.status).toBe('committed');
  });
});
