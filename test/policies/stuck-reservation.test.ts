/**
 * Defect 1 of h10relay's pool-timeout runs (docs/policies.md, "A burst larger than the pool"): a
 * turn that ended in a store error after its reservation was written left it `reserved` for 30
 * days. The reservation is kept on the transfer row (`spendReservationId`) and the transfer's
 * reconcile ends it from the transfer's real outcome: committed when it settled, released only
 * when nothing moved. Real service (anvil, the embedded store); the store error is injected at
 * the exact step: the statement that ends the reservation in the outcome's transaction throws
 * the pool's timeout, which aborts that transaction as the pool timeout did.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { fund, newAccount, walletOf } from '../helpers/money.js';
import type { Account } from '../../src/accounts/accounts.js';
import { SpendGuard, type SpendSlot } from '../../src/policies/guard.js';
import { SpendReservations } from '../../src/policies/tables.js';
import { Transfers, type TransfersService } from '../../src/transfers/transfers.js';

const POOL_TIMEOUT = 'timeout exceeded when trying to connect';

describe('a reservation left by a turn that ended in a store error', () => {
  let svc: TestService;
  let transfers: TransfersService;
  let guard: SpendGuard;
  let sender: Account;

  beforeAll(async () => {
    // A short confirm wait: the reconcile joins the open attempt for at most this long, then reads the chain.
    svc = await startTestService({ SETTLEMENT_CONFIRM_TIMEOUT: '2s', SETTLEMENT_CHAIN_DELAY: '1s' });
    transfers = svc.deps.transfers!;
    guard = new SpendGuard({ store: svc.deps.store });
    sender = await newAccount(svc, { name: 'Zawadi', country: 'KE' });
    await fund(svc, sender, '20');
  });
  afterAll(() => svc?.stop({ removeData: true }));

  /** The next relay-journal write (the commit before the broadcast) meets the pool timeout. */
  function failNextJournalWrite(): void {
    const store = svc.deps.store;
    const real = store.transaction.bind(store);
    store.transaction = (async (fn: never, opts?: { shareCommit?: boolean }) => {
      if (!opts?.shareCommit) return real(fn, opts);
      store.transaction = real;
      throw new Error(POOL_TIMEOUT);
    }) as typeof store.transaction;
  }

  /** Reconciles until the transfer leaves `submitted` (its attempt's deadline must pass first). */
  async function reconcileUntilFinal(id: string) {
    for (let i = 0; i < 15; i++) {
      const r = await transfers.reconcile(id);
      if (r.ok && r.transfer.status !== 'submitted') return r.transfer;
      await new Promise((res) => setTimeout(res, 500));
    }
    return transfers.get(id);
  }

  /** One governed send whose outcome write meets the pool timeout: the turn throws, as the 503 turns did. */
  async function turnThatMeetsThePoolTimeout(to: string): Promise<string> {
    let transferId: string | undefined;
    const run = guard.run(
      { action: 'transfer', amount: { usdMicro: 1_000_000n, currency: 'USD', minor: 100n, decimals: 2 }, recipient: to },
      { accountId: sender.id },
      async (slot?: SpendSlot) => {
        const failing: SpendSlot = {
          ...slot!,
          finishIn: async () => {
            throw new Error(POOL_TIMEOUT);
          },
        };
        const res = await transfers.send(sender.id, { recipient: to, amount: '1', currency: 'USD' }, { spend: failing });
        return { ok: res.ok };
      },
      { byPerson: true, inAction: true },
    );
    await expect(run).rejects.toThrow(POOL_TIMEOUT);
    const rows = await svc.deps.store.table(Transfers).findMany({ accountId: sender.id });
    transferId = rows.find((r) => r.toAddress.toLowerCase() === to.toLowerCase())?.id;
    expect(transferId).toBeDefined();
    return transferId!;
  }

  it('stays reserved while unknown; the reconcile commits it once the transfer settled', { timeout: 60_000 }, async () => {
    const other = await newAccount(svc, { name: 'Baraka', country: 'KE' });
    const to = walletOf(svc, other);
    const id = await turnThatMeetsThePoolTimeout(to);
    const t = (await transfers.get(id))!;
    expect(t.status).toBe('submitted');
    expect(t.spendReservationId).toMatch(/^spr_/);
    const reservation = () => svc.deps.store.table(SpendReservations).get(t.spendReservationId!);
    // Not known to the turn: kept (it counts), never released while money may have moved.
    expect((await reservation())?.status).toBe('reserved');

    const done = await transfers.reconcile(id);
    expect(done.ok && done.transfer.status).toBe('settled');
    expect((await reservation())?.status).toBe('committed');
  });

  it('released by the reconcile only once the chain proves nothing moved', { timeout: 60_000 }, async () => {
    const other = await newAccount(svc, { name: 'Neema', country: 'KE' });
    const to = walletOf(svc, other);
    // Nothing is sent (the journal write before the broadcast fails), and the turn's outcome write fails too.
    failNextJournalWrite();
    const id = await turnThatMeetsThePoolTimeout(to);
    const t = (await transfers.get(id))!;
    expect(t.status).toBe('submitted');
    const reservation = () => svc.deps.store.table(SpendReservations).get(t.spendReservationId!);
    expect((await reservation())?.status).toBe('reserved');
    expect(await svc.deps.chain.balanceOf(to)).toBe(0n);

    // The authorization's window closes unused: now nothing can move it.
    const rpc = (method: string, params: unknown[] = []) => svc.deps.chain.publicClient.request({ method: method as never, params: params as never });
    await rpc('evm_increaseTime', [`0x${(2 * 3600).toString(16)}`]);
    await rpc('evm_mine');
    const final = await reconcileUntilFinal(id);
    expect(final?.status).toBe('failed');
    expect((await reservation())?.status).toBe('released');
    expect(await svc.deps.chain.balanceOf(to)).toBe(0n);
  });

  it('a submit that met the pool timeout is pending, not "nothing moved"; the reconcile settles it from the chain', { timeout: 60_000 }, async () => {
    const other = await newAccount(svc, { name: 'Imani', country: 'KE' });
    const to = walletOf(svc, other);
    failNextJournalWrite();
    const ran = await guard.run(
      { action: 'transfer', amount: { usdMicro: 1_000_000n, currency: 'USD', minor: 100n, decimals: 2 }, recipient: to },
      { accountId: sender.id },
      async (slot?: SpendSlot) => {
        const res = await transfers.send(sender.id, { recipient: to, amount: '1', currency: 'USD' }, { spend: slot! });
        return { ok: res.ok, res };
      },
      { byPerson: true, inAction: true },
    );
    if (!('outcome' in ran)) throw new Error('refused');
    const res = ran.outcome.res;
    // Before: failed, `transfer_failed`, "rejected by the network; nothing was sent".
    expect(res).toMatchObject({ ok: true, transfer: { status: 'submitted' } });
    const id = res.ok ? res.transfer.id : '';
    expect(await svc.deps.chain.balanceOf(to)).toBe(0n);
    // Sent or not is not known yet: the reservation counts, neither spent nor given back.
    const reservationId = res.ok ? res.transfer.spendReservationId! : '';
    expect((await svc.deps.store.table(SpendReservations).get(reservationId))?.status).toBe('reserved');
    const final = await reconcileUntilFinal(id);
    expect(final?.status).toBe('settled');
    expect(await svc.deps.chain.balanceOf(to)).toBe(1_000_000n);
    expect((await svc.deps.store.table(SpendReservations).get(final!.spendReservationId!))?.status).toBe('committed');
  });
});
