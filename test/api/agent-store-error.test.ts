/**
 * POST /api/agent/settle when the database fails in the middle of a turn (docs/api-decisions.md,
 * "Agent turns when the database fails"). Real HTTP, real service (anvil, the embedded store); the
 * store is made to fail at the exact step:
 * - after the transfer began (the relay journal's write before the broadcast, then every write
 *   until the database is back): the send may be on its way (the transfer stays `submitted`, the
 *   reconcile finishes it), so the answer is 202 `outcome_unknown` and never "retry" (a client that
 *   retried sent a second transfer);
 * - before anything was done (the spend policy's read): the store's 503 "retry shortly" stays;
 * - inside the money-moving handler but before its first write (the daily limit's read, h12truth):
 *   nothing was recorded or sent, so 503 "retry shortly" too, and the retry sends the one transfer
 *   (a confirm_action goes back to pending, so its retry carries it out). On the base both answered
 *   202 outcome_unknown (the line was the handler's start), and the confirm's repeat 409.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund, newAccount, walletOf } from '../helpers/money.js';
import { Transfers } from '../../src/transfers/transfers.js';
import { Policies } from '../../src/policies/tables.js';
import { SpendUsageTable } from '../../src/limits/limits.js';
import { Quotes } from '../../src/quotes/quotes.js';
import type { Row, TableDef } from '../../src/store/index.js';
import { PendingActions } from '../../src/pending-actions/pending-actions.js';

const POOL_TIMEOUT = 'timeout exceeded when trying to connect';

describe('agent turn: the database fails mid-turn', () => {
  let svc: TestService;
  let m: Merchant;

  beforeAll(async () => {
    svc = await startTestService({ SETTLEMENT_CONFIRM_TIMEOUT: '2s', SETTLEMENT_CHAIN_DELAY: '1s', AGENT_RATE_LIMIT: '100/min' });
    m = await createMerchant(svc.api, 'Store Error Shop');
    const account = (await svc.deps.accounts.get(m.accountId))!;
    await fund(svc, account, '20');
  });
  afterAll(() => svc?.stop({ removeData: true }));

  const settle = (message: string) => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message } });
  const transfersTo = async (to: string) =>
    (await svc.deps.store.table(Transfers).findMany({ accountId: m.accountId })).filter((t) => t.toAddress.toLowerCase() === to.toLowerCase());

  /** From the relay journal's write (the commit before the broadcast) on, every write fails until `back()`. */
  function downFromTheJournalWrite(): { back: () => void } {
    const store = svc.deps.store;
    const real = store.transaction.bind(store);
    let down = false;
    store.transaction = (async (fn: never, opts?: { shareCommit?: boolean }) => {
      if (opts?.shareCommit) down = true;
      if (down) throw new Error(POOL_TIMEOUT);
      return real(fn, opts);
    }) as typeof store.transaction;
    return { back: () => void (store.transaction = real) };
  }

  it('after the send began: 202 outcome_unknown, no "retry", no Retry-After; the one transfer settles once', { timeout: 60_000 }, async () => {
    const to = walletOf(svc, await newAccount(svc, { name: 'Amani', country: 'KE' }));
    const db = downFromTheJournalWrite();
    let r;
    try {
      r = await settle(`send 1 USD to ${to}`);
    } finally {
      db.back();
    }
    // Before: 503, Retry-After: 2, "The service could not reach its database just now; retry shortly".
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.body).toMatchObject({ ok: false, action: 'transfer', reason: 'outcome_unknown' });
    expect(r.body.reply).toContain('being confirmed');
    expect(r.body.reply).toContain('Do not send this request again');
    expect(r.body.reply).not.toMatch(/retry|try again/i);

    // The transfer is on record, `submitted`; the reconcile settles it from the chain, once.
    const [t, ...more] = await transfersTo(to);
    expect(more).toEqual([]);
    expect(t?.status).toBe('submitted');
    for (let i = 0; i < 15; i++) {
      const done = await svc.deps.transfers!.reconcile(t!.id);
      if (done.ok && done.transfer.status !== 'submitted') break;
      await new Promise((res) => setTimeout(res, 500));
    }
    expect((await svc.deps.transfers!.get(t!.id))?.status).toBe('settled');
    expect(await svc.deps.chain.balanceOf(to)).toBe(1_000_000n);
  });

  /**
   * A new recipient `name`, a previewed send of 1 USD to them, and its confirm_action made while
   * `down()`'s failure is in place (taken back whatever happens): the confirm's answer `r`, and
   * `confirm` to repeat it.
   */
  async function confirmWhileDown(name: string, down: () => { back: () => void }) {
    const to = walletOf(svc, await newAccount(svc, { name, country: 'KE' }));
    const preview = await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message: `send 1 USD to ${to}`, confirm: false } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    const id: string = preview.body.pending.id;
    const confirm = () => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { confirm_action: id } });
    const db = down();
    let r;
    try {
      r = await confirm();
    } finally {
      db.back();
    }
    return { to, id, confirm, r };
  }

  it('a confirm_action whose send began: 202 outcome_unknown; a repeat never sends again', { timeout: 60_000 }, async () => {
    const { to, confirm, r } = await confirmWhileDown('Neema', downFromTheJournalWrite);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.headers.get('retry-after')).toBeNull();
    expect(r.body).toMatchObject({ ok: false, action: 'transfer', reason: 'outcome_unknown' });
    // The action could not be recorded `done` (the database was down): it is still being carried out.
    const again = await confirm();
    expect(again.status).toBe(409);
    expect(await transfersTo(to)).toHaveLength(1);
  });

  /**
   * A committed read inside the transfer handler, before its first write, fails until `back()`:
   * the daily limit's (`spend_usage`) for a plain send, the firm quote's for a confirm.
   */
  function downAtARead(table: string = SpendUsageTable.name): { back: () => void } {
    const store = svc.deps.store;
    const real = store.table.bind(store);
    store.table = ((def: TableDef<Row>) => {
      if (def.name === table) throw new Error(POOL_TIMEOUT);
      return real(def);
    }) as typeof store.table;
    return { back: () => void (store.table = real) };
  }

  it('a read inside the handler before its first write: 503 with Retry-After, nothing written or sent; the retry sends it once', { timeout: 60_000 }, async () => {
    const to = walletOf(svc, await newAccount(svc, { name: 'Zawadi', country: 'KE' }));
    const db = downAtARead();
    let r;
    try {
      r = await settle(`send 1 USD to ${to}`);
    } finally {
      db.back();
    }
    // Before: 202 outcome_unknown, "Do not send this request again", although nothing was done.
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.body).toEqual({ ok: false, reply: expect.stringContaining('retry shortly') });
    expect(await transfersTo(to)).toEqual([]);
    expect(await svc.deps.chain.balanceOf(to)).toBe(0n);
    // The retry it was told to make: one transfer.
    const again = await settle(`send 1 USD to ${to}`);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(await transfersTo(to)).toHaveLength(1);
  });

  it('a confirm_action whose handler fails at a read before its first write: 503, the action pending again; the retry carries it out once', { timeout: 60_000 }, async () => {
    const { to, confirm, r } = await confirmWhileDown('Imani', () => downAtARead(Quotes.name));
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(await transfersTo(to)).toEqual([]);
    // Before: 409 (the action stayed `executing`, or `done` with an unknown outcome): never carried out.
    const again = await confirm();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ ok: true, action: 'transfer' });
    expect(await transfersTo(to)).toHaveLength(1);
    // A repeat replays that answer: still one transfer.
    await confirm();
    expect(await transfersTo(to)).toHaveLength(1);
  });

  /**
   * The firm quote's read fails (the confirm's handler, before its first write) and then every
   * `pending_actions` write, so giving the claim back (`executing -> pending`) fails too.
   */
  function downAtTheQuoteAndTheGiveBack(): { back: () => void } {
    const store = svc.deps.store;
    const [table, write] = [store.table.bind(store), store.write.bind(store)];
    let down = false; // from the quote's read on (the claim before it is written)
    store.table = ((def: TableDef<Row>) => {
      if (def.name === Quotes.name) down = true;
      if (down) throw new Error(POOL_TIMEOUT);
      return table(def);
    }) as typeof store.table;
    store.write = (async (def: TableDef<Row>, fn: never) => {
      if (down && def.name === PendingActions.name) throw new Error(POOL_TIMEOUT);
      return write(def, fn);
    }) as typeof store.write;
    return { back: () => void ((store.table = table), (store.write = write)) };
  }

  async function parkedConfirm(name: string) {
    const { to, id, confirm, r } = await confirmWhileDown(name, downAtTheQuoteAndTheGiveBack);
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(await transfersTo(to)).toEqual([]);
    // The give-back failed: the record still says `executing`.
    expect((await svc.deps.agentActions.get(id))?.status).toBe('executing');
    return { to, id, confirm };
  }

  it('a confirm whose give-back fails too (the store still down): the next confirm carries it out once, not 409', { timeout: 60_000 }, async () => {
    const { to, confirm } = await parkedConfirm('Tumaini');
    // Before (h13fix): 409 in_progress until a restart's sweep marked it interrupted.
    const again = await confirm();
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ ok: true, action: 'transfer' });
    expect(await transfersTo(to)).toHaveLength(1);
    await confirm();
    expect(await transfersTo(to)).toHaveLength(1);
  });

  it('the background pass gives the parked claim back: pending again, whichever instance the next confirm reaches', { timeout: 60_000 }, async () => {
    const { to, id, confirm } = await parkedConfirm('Rehema');
    const job = svc.deps.scheduler.names().find((n) => n.startsWith('agent:parked:'))!;
    expect(await svc.deps.scheduler.runNow(job)).toBe(true);
    expect((await svc.deps.agentActions.get(id))?.status).toBe('pending');
    expect((await confirm()).status).toBe(200);
    expect(await transfersTo(to)).toHaveLength(1);
  });

  it('a parked claim can be cancelled: the next read gives it back first (was "already being carried out")', { timeout: 60_000 }, async () => {
    const { to, id } = await parkedConfirm('Faraja');
    // The chat's and Telegram's cancel (an API key has no cancel door).
    const r = await svc.deps.agent.cancel(m.accountId, id);
    expect(r, JSON.stringify(r)).toMatchObject({ ok: true, action: 'none' });
    expect((await svc.deps.agentActions.get(id))?.status).toBe('cancelled');
    expect(await transfersTo(to)).toEqual([]);
  });

  it('a parked claim never undoes a later claim (its give-back had committed and another confirm took it): 409, nothing sent', { timeout: 60_000 }, async () => {
    const { to, id, confirm } = await parkedConfirm('Upendo');
    // As if the failed give-back had committed and another instance's confirm then claimed it and is carrying it out.
    const later = { status: 'executing' as const, executor: 'another-instance', updatedAt: new Date(Date.now() + 1000).toISOString() };
    await svc.deps.store.write(PendingActions, (t) => t.update(id, later));
    const again = await confirm();
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(await svc.deps.agentActions.get(id)).toMatchObject(later);
    expect(await transfersTo(to)).toEqual([]);
  });

  it('before anything was done: 503 with Retry-After, "retry shortly"; nothing was written or sent', async () => {
    const to = walletOf(svc, await newAccount(svc, { name: 'Baraka', country: 'KE' }));
    const store = svc.deps.store;
    const real = store.table.bind(store);
    // The spend policy's read, the guard's first step before the handler runs.
    store.table = ((def: TableDef<Row>) => {
      if (def.name === Policies.name) throw new Error(POOL_TIMEOUT);
      return real(def);
    }) as typeof store.table;
    let r;
    try {
      r = await settle(`send 1 USD to ${to}`);
    } finally {
      store.table = real;
    }
    expect(r.status, JSON.stringify(r.body)).toBe(503);
    expect(r.headers.get('retry-after')).toBe('2');
    expect(r.body).toEqual({ ok: false, reply: expect.stringContaining('retry shortly') });
    expect(await transfersTo(to)).toEqual([]);
    expect(await svc.deps.chain.balanceOf(to)).toBe(0n);
  });
});
