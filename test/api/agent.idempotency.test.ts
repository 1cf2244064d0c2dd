import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { balance, usdc } from '../helpers/money.js';
import { Transfers } from '../../src/transfers/transfers.js';

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
});
