import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { ClaimsService, type ClaimStep } from '../../src/claims/claims.js';
import { Claims, type Claim } from '../../src/claims/claim-record.js';
import { WalletDirectory } from '../../src/wallet/directory.js';
import { FEE_WALLET_INDEX } from '../../src/wallet/reserved.js';
import { usdcDecimal } from '../../src/lib/money.js';

/**
 * h17claimfee, DESIGN section 11 "our fee is kept on cancel and expiry", on the embedded anvil
 * (lowdb; PostgreSQL with TEST_STORE=pg): a canceled or expired claim returns exactly the amount
 * to the sender and moves exactly the fee to the fee wallet, each once, though the service
 * stops dead between the legs and a new one recovers; a claim that went `returning` before the
 * change (no `feeKept`) finishes as it started: amount + fee back, no fee leg.
 * The service's own sweep is slowed right down (RECONCILE_INTERVAL 1h) so recovery is the test's.
 */
class Crash extends Error {}

describe('claim links keep our fee on cancel and expiry (anvil)', () => {
  let svc: TestService;
  let sender: Merchant;
  let from: Address;
  let n = 0;
  const feeWallet = () => svc.deps.chain.custodialAddress(FEE_WALLET_INDEX);
  const service = (opts: { crashAt?: ClaimStep; now?: () => Date } = {}) =>
    new ClaimsService(svc.deps.store, svc.deps.chain, svc.deps.fx, svc.deps.accounts, new WalletDirectory(svc.deps.chain, svc.deps.store), {
      logger: pino({ level: 'silent' }),
      ...(opts.now ? { now: opts.now } : {}),
      ...(opts.crashAt ? { crashAt: (s: ClaimStep) => { if (s === opts.crashAt) throw new Crash(s); } } : {}),
    });
  /** The sender's wallet, the fee wallet and the claim's escrow, on chain. */
  const where = async (c: Claim) => ({ sender: await balance(svc, from), fee: await balance(svc, feeWallet()), escrow: await balance(svc, c.escrowAddress as Address) });
  const open = async (): Promise<Claim> => {
    const made = await svc.deps.claims.create(sender.accountId, { contact: `nobody${++n}.${Date.now()}@example.com`, amount: '10', currency: 'USD' });
    if (!made.ok) throw new Error(made.message);
    expect(made.claim.status).toBe('open');
    expect(BigInt(made.claim.fee)).toBeGreaterThan(0n);
    return made.claim;
  };

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1h' });
    sender = await createMerchant(svc.api, 'Fee Kept Sender');
    from = svc.deps.chain.custodialAddress((await svc.deps.accounts.get(sender.accountId))!.walletIndex);
    const res = await svc.deps.chain.faucet(from, usdc('200'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('cancel (POST /api/claims/:id/cancel): the amount back to the sender, the fee to the fee wallet, once; the answer says so', async () => {
    const c = await open();
    const before = await where(c);
    expect(before.escrow).toBe(BigInt(c.total));
    const canceled = await call(`${svc.api}/claims/${c.id}/cancel`, { key: sender.key, body: {} });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', stablecoin_amount: usdcDecimal(c.amount), fee: usdcDecimal(c.fee), returned_amount: usdcDecimal(c.amount), fee_kept: usdcDecimal(c.fee) });
    expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.amount), fee: before.fee + BigInt(c.fee), escrow: 0n });
    const row = (await svc.deps.claims.get(c.id))!;
    expect(row).toMatchObject({ status: 'canceled', feeKept: true, feeSettled: true });
    expect(row.feeTxHash).toMatch(/^0x/);
    expect(row.returnTxHash).not.toBe(row.feeTxHash);
    // A retried cancel and sweeps move nothing again.
    const again = await call(`${svc.api}/claims/${c.id}/cancel`, { key: sender.key, body: {} });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'canceled', returned_amount: usdcDecimal(c.amount), fee_kept: usdcDecimal(c.fee) });
    await service().sweep();
    expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.amount), fee: before.fee + BigInt(c.fee), escrow: 0n });
  });

  it('expiry (the sweep past expires_at): the amount back to the sender, the fee to the fee wallet, once', async () => {
    const c = await open();
    const before = await where(c);
    const later = () => new Date(Date.parse(c.expiresAt) + 1_000);
    expect(await service({ now: later }).sweep()).toBeGreaterThanOrEqual(1);
    expect(await svc.deps.claims.get(c.id)).toMatchObject({ status: 'expired', feeKept: true, feeSettled: true });
    expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.amount), fee: before.fee + BigInt(c.fee), escrow: 0n });
    await service({ now: later }).sweep();
    expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.amount), fee: before.fee + BigInt(c.fee), escrow: 0n });
  });

  for (const step of ['returning-recorded', 'returned', 'fee-collected'] as const) {
    it(`a crash at ${step} (cancel): a new service's sweeps end with each leg exactly once`, async () => {
      const c = await open();
      const before = await where(c);
      await expect(service({ crashAt: step }).cancel(sender.accountId, c.id)).rejects.toBeInstanceOf(Crash);
      const again = service();
      await again.sweep();
      await again.sweep();
      expect(await svc.deps.claims.get(c.id)).toMatchObject({ status: 'canceled', feeKept: true, feeSettled: true });
      expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.amount), fee: before.fee + BigInt(c.fee), escrow: 0n });
    });
  }

  it('a crash between the legs of an expiry: recovery collects the fee once', async () => {
    const c = await open();
    const before = await where(c);
    const later = () => new Date(Date.parse(c.expiresAt) + 1_000);
    await expect(service({ crashAt: 'returned', now: later }).sweep()).rejects.toBeInstanceOf(Crash);
    await service({ now: later }).sweep();
    await service({ now: later }).sweep();
    expect(await svc.deps.claims.get(c.id)).toMatchObject({ status: 'expired', feeSettled: true });
    expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.amount), fee: before.fee + BigInt(c.fee), escrow: 0n });
  });

  it('a claim already `returning` before this change (no feeKept; its return leg signed for amount + fee) finishes as it started', async () => {
    const c = await open();
    const before = await where(c);
    // As main's code left it: intent recorded without the new rule, then stopped right after the
    // return leg moved amount + fee under nonceFor('claim-return', id).
    await svc.deps.store.write(Claims, (t) => t.update(c.id, { status: 'returning', returnReason: 'canceled' }, { status: 'open' }));
    await expect(service({ crashAt: 'returned' }).sweep()).rejects.toBeInstanceOf(Crash);
    expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.total), fee: before.fee, escrow: 0n });
    await service().sweep();
    await service().sweep();
    const row = (await svc.deps.claims.get(c.id))!;
    expect(row.status).toBe('canceled');
    expect(row.feeSettled).toBeFalsy();
    expect(await where(c)).toEqual({ sender: before.sender + BigInt(c.total), fee: before.fee, escrow: 0n });
    // The API says what happened to it: everything went back, no fee kept.
    const listed = await call(`${svc.api}/claims`, { key: sender.key });
    expect(listed.body.data.find((x: { id: string }) => x.id === c.id)).toMatchObject({ status: 'canceled', returned_amount: usdcDecimal(c.total), fee_kept: usdcDecimal(0n) });
  });
});
