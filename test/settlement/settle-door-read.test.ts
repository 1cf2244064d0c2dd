/**
 * Issue 23, ninth round: a checkout settle takes the door's read of the payment instead of
 * reading it again (src/settlement/settlement.ts `settle(…, read)`). That read is older than one
 * taken in the queue, so the claim requires the row's `updatedAt` as read
 * (src/settlement/checkout-claim.ts): a change since (here: another instance's attempt that
 * ended back in `pending`) refuses the claim, and settle reads again, keeping that attempt in
 * `attemptedBy` (the expiry sweeper checks every recorded attempt on the chain before it
 * expires a session). The statement count is pinned in settle-roundtrips.pg.test.ts.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Payments } from '../../src/payments/payments.js';
import { newId } from '../../src/lib/ids.js';
import { SettlementService, SettleRequest, ISSUED_TERMS } from '../../src/settlement/settlement.js';
import { authorize, createPayment, customer, setup, stored, usdc, type Ctx } from './helpers.js';

let ctx: Ctx;
/** A second settlement service over the same store and chain (another instance's, or this one's door). */
let settlement: SettlementService;
beforeAll(async () => {
  ctx = await setup();
  const { store, payments, accounts, chain } = ctx.svc.deps;
  settlement = new SettlementService({ store, payments, accounts, chain, logger: pino({ level: 'silent' }), confirmTimeoutMs: 20_000 });
});
afterAll(async () => {
  await ctx?.svc.stop({ removeData: true });
});

describe('settle with the door read of the payment', () => {
  it('a read the row has moved past since is not claimed on: the newer attempt stays recorded', async () => {
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    const doorRead = await stored(ctx, pay.id);

    // Meanwhile another instance's attempt by another wallet ended back in pending (nothing sent).
    const other = '0x00000000000000000000000000000000000000Aa';
    await new Promise((r) => setTimeout(r, 5)); // a later updatedAt
    await ctx.svc.deps.store.write(Payments, (t) => t.update(pay.id, { attemptedBy: [other], updatedAt: new Date().toISOString() }));

    const r = await settlement.settle(pay.id, SettleRequest.parse(signed), ISSUED_TERMS, doorRead);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    const after = await stored(ctx, pay.id);
    expect(after.status).toBe('settled');
    expect(after.attemptedBy).toEqual([other, payer.address]);
  });

  it('another write within the same millisecond as the read row\'s is seen too (the row\'s version, not its updatedAt)', async () => {
    // A frozen clock: the payment's creation and the other instance's write carry one updatedAt.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const other = '0x00000000000000000000000000000000000000Bb';
    const frozen = async () => {
      const pay = await createPayment(ctx);
      const payer = await customer(ctx, usdc('12.5'));
      const signed = await authorize(ctx, pay.id, payer);
      const doorRead = await stored(ctx, pay.id);
      await ctx.svc.deps.store.write(Payments, (t) => t.update(pay.id, { attemptedBy: [other], updatedAt: new Date().toISOString() }));
      expect((await stored(ctx, pay.id)).updatedAt).toBe(doorRead.updatedAt);
      return { pay, payer, signed, doorRead };
    };
    const { pay, payer, signed, doorRead } = await frozen().finally(() => vi.useRealTimers());
    const r = await settlement.settle(pay.id, SettleRequest.parse(signed), ISSUED_TERMS, doorRead);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(await stored(ctx, pay.id)).toMatchObject({ status: 'settled', attemptedBy: [other, payer.address] });
  });

  /**
   * A payment written before payments had a row version (h10relay) has none until its next write
   * (h12truth): the same payment stored again under a new id without the field, as such a row is.
   */
  async function legacyPayment(): Promise<string> {
    const pay = await createPayment(ctx);
    const { version: _version, reference: _reference, ...row } = await stored(ctx, pay.id);
    const id = newId('pay');
    await ctx.svc.deps.store.write(Payments, (t) => t.insert({ ...row, id }));
    return id;
  }

  it('a row written before the row version existed: another write within the same millisecond as the read is seen too (the absent version counts as 0)', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const other = '0x00000000000000000000000000000000000000Cc';
    const frozen = async () => {
      const id = await legacyPayment();
      const payer = await customer(ctx, usdc('12.5'));
      const signed = await authorize(ctx, id, payer);
      const doorRead = await stored(ctx, id);
      expect(doorRead.version).toBeUndefined();
      await ctx.svc.deps.store.write(Payments, (t) => t.update(id, { attemptedBy: [other], updatedAt: new Date().toISOString() }));
      expect(await stored(ctx, id)).toMatchObject({ updatedAt: doorRead.updatedAt, version: 1 });
      return { id, payer, signed, doorRead };
    };
    const { id, payer, signed, doorRead } = await frozen().finally(() => vi.useRealTimers());
    const r = await settlement.settle(id, SettleRequest.parse(signed), ISSUED_TERMS, doorRead);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(await stored(ctx, id)).toMatchObject({ status: 'settled', attemptedBy: [other, payer.address] });
  });

  it('a row written before the row version existed, read still current, is claimed on as it is', async () => {
    const id = await legacyPayment();
    const payer = await customer(ctx, usdc('12.5'));
    const signed = await authorize(ctx, id, payer);
    const doorRead = await stored(ctx, id);
    expect(doorRead.version).toBeUndefined();
    const r = await settlement.settle(id, SettleRequest.parse(signed), ISSUED_TERMS, doorRead);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(await stored(ctx, id)).toMatchObject({ status: 'settled', attemptedBy: [payer.address] });
  });

  it('a read still current is claimed on as it is', async () => {
    const pay = await createPayment(ctx);
    const payer = await customer(ctx, usdc('12.5'));
    const signed = await authorize(ctx, pay.id, payer);
    const r = await settlement.settle(pay.id, SettleRequest.parse(signed), ISSUED_TERMS, await stored(ctx, pay.id));
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(await stored(ctx, pay.id)).toMatchObject({ status: 'settled', attemptedBy: [payer.address] });
  });
});
