import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { Transfers } from '../../src/transfers/transfers.js';
import { RequestReplayRows } from '../../src/inbox/request-replays.js';

/**
 * h16probe: `Idempotency-Key` on POST /api/agent/settle, over real HTTP, the local engine and the
 * embedded chain. Before, the header was ignored: a client retrying a timed-out
 * "send 100 KES to @amina" with the same key sent the money twice.
 */
describe('POST /api/agent/settle with an Idempotency-Key', () => {
  let svc: TestService;
  let sender: Merchant;
  let amina: Merchant;
  const wallet = async (m: Merchant): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
  const settle = (body: unknown, key?: string, secret = sender.key) =>
    call(`${svc.api}/agent/settle`, { key: secret, body, ...(key ? { headers: { 'Idempotency-Key': key } } : {}) });
  const sent = async () => (await svc.deps.store.table(Transfers).findMany({})).filter((t) => t.accountId === sender.accountId).length;

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min' });
    [sender, amina] = await Promise.all([createMerchant(svc.api, 'Wanjiru'), createMerchant(svc.api, 'Amina')]);
    await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
    await svc.deps.accounts.update(amina.accountId, { country: 'NG', localCurrency: 'NGN', telegramUsername: 'amina' });
    const res = await svc.deps.chain.faucet(await wallet(sender), usdc('100'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('a retry with the same key and message answers the first answer and sends nothing again', async () => {
    const before = await balance(svc, await wallet(amina));
    const count = await sent();
    const first = await settle({ message: 'send 100 KES to @amina' }, 'retry-1');
    expect(first.status).toBe(200);
    expect(first.body.transfer.status).toBe('settled');
    const moved = (await balance(svc, await wallet(amina))) - before;
    expect(moved).toBeGreaterThan(0n);

    const retry = await settle({ message: 'send 100 KES to @amina' }, 'retry-1');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(await sent()).toBe(count + 1);
    expect((await balance(svc, await wallet(amina))) - before).toBe(moved);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
  });

  it('the same key with another message is a 409 and moves nothing; a new key is a new request', async () => {
    await settle({ message: 'send 100 KES to @amina' }, 'retry-2');
    const count = await sent();
    const other = await settle({ message: 'send 200 KES to @amina' }, 'retry-2');
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ ok: false, reason: 'idempotency_conflict' });
    expect(await sent()).toBe(count);
    const fresh = await settle({ message: 'send 200 KES to @amina' }, 'retry-3');
    expect(fresh.status).toBe(200);
    expect(await sent()).toBe(count + 1);
  });

  it('five concurrent requests with one key send once; the others are in progress or the replay', async () => {
    const count = await sent();
    const answers = await Promise.all(Array.from({ length: 5 }, () => settle({ message: 'send 150 KES to @amina' }, 'retry-4')));
    expect(await sent()).toBe(count + 1);
    const done = answers.filter((a) => a.status === 200);
    expect(done.length).toBeGreaterThanOrEqual(1);
    expect(new Set(done.map((a) => a.body.transfer.id)).size).toBe(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.body).toMatchObject({ ok: false, reason: 'in_progress' });
    const after = await settle({ message: 'send 150 KES to @amina' }, 'retry-4');
    expect(after.body.transfer.id).toBe(done[0]!.body.transfer.id);
  });

  it('a preview replays its pending action, and a bad key is a 400 in the agent body', async () => {
    const a = await settle({ message: 'send 100 KES to @amina', confirm: false }, 'preview-1');
    const b = await settle({ message: 'send 100 KES to @amina', confirm: false }, 'preview-1');
    expect(b.body.pending.id).toBe(a.body.pending.id);
    const bad = await settle({ message: 'send 100 KES to @amina' }, 'é'.repeat(3));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ ok: false, reply: expect.stringContaining('Idempotency-Key') });
  });

  it("a key is the account's: another merchant's same key is its own request", async () => {
    const other = await createMerchant(svc.api, 'Other');
    const r = await settle({ message: 'what is my balance' }, 'retry-1', other.key);
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect(r.body.action).toBe('balance');
  });

  /**
   * h17probe: a process that dies mid-turn leaves its key `running`. What the store looks like after such a
   * crash is made here: the first request's answer is never recorded (its `finish` is lost), and the instance
   * that claimed the key is gone (its lease lapsed: the row names an instance nobody runs). Before, the key
   * answered 409 `in_progress` for 24 hours.
   */
  const crashMidTurn = async (key: string, message: string) => {
    const replays = svc.deps.requestReplays;
    const finish = replays.finish;
    replays.finish = async () => undefined; // the process died before it could record the answer
    try {
      const first = await settle({ message }, key);
      const rows = (await svc.deps.store.table(RequestReplayRows).findMany({})).filter((r) => r.accountId === sender.accountId && r.state === 'running' && !r.executor?.startsWith('gone-'));
      expect(rows).toHaveLength(1);
      return { first, row: rows[0]! };
    } finally {
      replays.finish = finish;
    }
  };
  const setRow = (id: string, patch: Record<string, unknown>) => svc.deps.store.write(RequestReplayRows, (t) => t.update(id, patch));

  it('a key whose process died after moving money answers 202 interrupted with that transfer; the turn never runs again', async () => {
    const before = await balance(svc, await wallet(amina));
    const { first, row } = await crashMidTurn('crash-1', 'send 120 KES to @amina');
    expect(first.body.transfer.status).toBe('settled');
    const moved = (await balance(svc, await wallet(amina))) - before;
    const count = await sent();
    // While its instance lives the key is still in progress.
    expect((await settle({ message: 'send 120 KES to @amina' }, 'crash-1')).body.reason).toBe('in_progress');
    await setRow(row.id, { executor: 'gone-host:1:deadbeef' });
    const retry = await settle({ message: 'send 120 KES to @amina' }, 'crash-1');
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ ok: false, action: 'transfer', reason: 'interrupted', transfer: { id: first.body.transfer.id, status: 'settled' } });
    expect(retry.body.reply).toContain(first.body.transfer.id);
    expect(await sent()).toBe(count);
    expect((await balance(svc, await wallet(amina))) - before).toBe(moved);
  });

  it('a key whose process died before recording anything says so and what to check; past the lease a live claim is interrupted too', async () => {
    const { row } = await crashMidTurn('crash-2', 'what is my balance');
    await setRow(row.id, { executor: 'gone-host:2:deadbeef' });
    const count = await sent();
    const retry = await settle({ message: 'what is my balance' }, 'crash-2');
    expect(retry.status).toBe(202);
    expect(retry.body).toMatchObject({ ok: false, action: 'none', reason: 'interrupted' });
    expect(retry.body.reply).toMatch(/check your activity and balance/);

    // A claim of a live instance that outran the lease (10 minutes) is not waited for forever either.
    const slow = await crashMidTurn('crash-3', 'send 130 KES to @amina');
    await setRow(slow.row.id, { createdAt: new Date(Date.now() - 11 * 60_000).toISOString() });
    const late = await settle({ message: 'send 130 KES to @amina' }, 'crash-3');
    expect(late.status).toBe(202);
    expect(late.body).toMatchObject({ reason: 'interrupted', transfer: { id: slow.first.body.transfer.id } });
    expect(await sent()).toBe(count + 1);
  });
});

/** h17probe: the path where a 429 frees the key (nothing was done) had no test of its own. */
describe('POST /api/agent/settle: an Idempotency-Key refused by the rate limit', () => {
  let svc: TestService;
  let sender: Merchant;
  let amina: Merchant;
  const wallet = async (m: Merchant): Promise<Address> => svc.deps.chain.custodialAddress((await svc.deps.accounts.get(m.accountId))!.walletIndex);
  const sent = async () => (await svc.deps.store.table(Transfers).findMany({})).filter((t) => t.accountId === sender.accountId).length;

  beforeAll(async () => {
    svc = await startTestService({ AGENT_RATE_LIMIT: '1/3s' });
    [sender, amina] = await Promise.all([createMerchant(svc.api, 'Wanjiru'), createMerchant(svc.api, 'Amina')]);
    await svc.deps.accounts.update(sender.accountId, { country: 'KE', localCurrency: 'KES' });
    await svc.deps.accounts.update(amina.accountId, { telegramUsername: 'amina_rl' });
    const res = await svc.deps.chain.faucet(await wallet(sender), usdc('50'), { nativeAmount: 0n });
    if (!res.ok) throw new Error(res.message);
  });
  afterAll(() => svc?.stop({ removeData: true }));

  it('a 429 frees the key: the retry after the limit lifts runs the turn once', async () => {
    const settle = (key: string) => call(`${svc.api}/agent/settle`, { key: sender.key, body: { message: 'send 110 KES to @amina_rl' }, headers: { 'Idempotency-Key': key } });
    const plain = () => call(`${svc.api}/agent/settle`, { key: sender.key, body: { message: 'what is my balance' } });
    // Spend the window's one turn, then the keyed request is refused (a new key per try, should a window roll over between).
    let key = '';
    let refused = { status: 0 } as Awaited<ReturnType<typeof settle>>;
    for (let i = 0; i < 5 && refused.status !== 429; i++) {
      await plain();
      key = `limited-${i}`;
      refused = await settle(key);
    }
    expect(refused.status).toBe(429);
    const count = await sent();
    await new Promise((r) => setTimeout(r, (Number(refused.headers.get('retry-after')) + 0.5) * 1000));
    const retry = await settle(key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(retry.body.transfer.status).toBe('settled');
    await new Promise((r) => setTimeout(r, 3_100));
    const again = await settle(key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.transfer.id).toBe(retry.body.transfer.id);
    expect(await sent()).toBe(count + 1);
  });
});
