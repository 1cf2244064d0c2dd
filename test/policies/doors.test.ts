/**
 * Spend policies through every door of a real service (embedded anvil, real transfers): the
 * API (POST /api/agent/settle), the chat (POST /api/chat), Telegram (fake Bot API, webhook mode)
 * and MCP (the SDK client). Policies are changed only by the signed-in person with their password.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestService } from '../helpers/service.js';
import { newAccount } from '../helpers/money.js';
import { buttonData, textUpdate, type FakeBotApi, type TgUser } from '../bridges/telegram-fake.js';
import { startPolicyWorld, type PolicyWorld } from './policy-world.js';
import { SpendReservations } from '../../src/policies/tables.js';

let world: PolicyWorld;
let svc: TestService;
let fake: FakeBotApi;

beforeAll(async () => {
  world = await startPolicyWorld();
  ({ svc, fake } = world);
  const amina = await newAccount(svc, { name: 'Amina', country: 'NG' });
  await svc.deps.accounts.update(amina.id, { telegramUsername: 'amina_ng' });
  const blocked = await newAccount(svc, { name: 'Mallory', country: 'NG' });
  await svc.deps.accounts.update(blocked.id, { telegramUsername: 'mallory_ng', phone: '+2348030000001' });
});
afterAll(async () => {
  await world?.stop();
});

const settle = (m: { key: string }, body: unknown) => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body });
const putPolicy: PolicyWorld['putPolicy'] = (...a) => world.putPolicy(...a);
const merchant: PolicyWorld['merchant'] = (...a) => world.merchant(...a);

describe('changing a policy: only the signed-in person, with the password', () => {
  it('a key cannot change (widen) a policy; a wrong password is refused; each change is a policy.updated event', async () => {
    const m = await merchant('Policy Owner', '1');
    const set = await putPolicy(m, { usd: { per_transaction: '10' } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ ok: true, policy: { scope: 'account', policy: { usd: { per_transaction: '10' } } }, event: { type: 'policy.updated' } });
    await putPolicy(m, { usd: { per_transaction: '5' } }, { path: `/keys/${m.keyId}/policy` });

    // The key tries to widen both: 403, nothing changes.
    const byKey = await putPolicy(m, { usd: { per_transaction: '10000' } }, { key: true });
    expect(byKey.status).toBe(403);
    expect(byKey.body.error.type).toBe('permission_error');
    expect((await putPolicy(m, {}, { key: true, path: `/keys/${m.keyId}/policy` })).status).toBe(403);
    const wrong = await putPolicy(m, {}, { password: 'not my password' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.param).toBe('password');

    // The key reads its own policy (not a sibling's); it is unchanged.
    const own = await call(`${svc.api}/keys/${m.keyId}/policy`, { key: m.key });
    expect(own.body.policy).toMatchObject({ scope: 'key', key_id: m.keyId, policy: { usd: { per_transaction: '5' } } });
    const other = await call(`${svc.api}/keys`, { method: 'POST', cookie: m.cookie, body: { label: 'second' } });
    expect((await call(`${svc.api}/keys/${other.body.key.id}/policy`, { key: m.key })).status).toBe(404);
    expect((await call(`${svc.api}/policies`, { key: m.key })).body.policy.policy).toEqual({ usd: { per_transaction: '10' } });
    // Another account cannot read this account's key policy.
    const stranger = await merchant('Stranger', '1');
    expect((await call(`${svc.api}/keys/${m.keyId}/policy`, { cookie: stranger.cookie })).status).toBe(404);

    const events = await call(`${svc.api}/policies/events`, { cookie: m.cookie });
    expect(events.body.data.map((e: { data: { scope: string } }) => e.data.scope)).toEqual(['key', 'account']);
    expect(events.body.data[1]).toMatchObject({ type: 'policy.updated', data: { previous: {}, policy: { usd: { per_transaction: '10' } } } });
  });
});

describe('the API door', () => {
  it('per-transaction cap, blocklist, threshold held for the person (the key cannot confirm), rolling cap', async () => {
    const m = await merchant('Api Shop');
    await putPolicy(m, { usd: { per_transaction: '50', daily: '100' }, approval_threshold_usd: '30', block_recipients: ['+2348030000001'] });

    const big = await settle(m, { message: 'send 60 USD to @amina_ng' });
    expect(big.status).toBe(422);
    expect(big.body).toMatchObject({ ok: false, reason: 'policy_per_transaction' });
    expect(big.body.reply).toContain('per transaction in your spend policy');

    // Blocked by phone, asked by handle: the list matches the person however they are named.
    const blocked = await settle(m, { message: 'send 1 USD to @mallory_ng' });
    expect(blocked.status).toBe(422);
    expect(blocked.body.reason).toBe('policy_recipient');

    const held = await settle(m, { message: 'send 40 USD to @amina_ng' });
    expect(held.status).toBe(200);
    expect(held.body).toMatchObject({ ok: true, reason: 'approval_required', pending_action: { status: 'pending' } });
    const id = held.body.pending_action.id as string;
    const byKey = await settle(m, { confirm_action: id });
    expect(byKey.status).toBe(403);
    expect(byKey.body.reason).toBe('approval_required');
    // The person confirms it on our page.
    const page = await fetch(`${svc.url}/app/actions/${id}/confirm`, { method: 'POST', headers: { cookie: m.cookie, origin: svc.url } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sent 40.00 USD');

    expect((await settle(m, { message: 'send 25 USD to @amina_ng' })).status).toBe(200);
    expect((await settle(m, { message: 'send 25 USD to @amina_ng' })).status).toBe(200);
    const rolling = await settle(m, { message: 'send 20 USD to @amina_ng' });
    expect(rolling.status).toBe(422);
    expect(rolling.body.reply).toContain('daily cap of 100.00 USD');
    expect(rolling.body.reply).toContain('10.00 USD is left');
  });

  it('concurrent turns never together exceed a cap', async () => {
    const m = await merchant('Busy Shop', '50');
    await putPolicy(m, { usd: { daily: '5' } }, { path: `/keys/${m.keyId}/policy` });
    const results = await Promise.all(Array.from({ length: 12 }, () => settle(m, { message: 'send 1 USD to @amina_ng' })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 422).every((r) => r.body.reason === 'policy_daily')).toBe(true);
    // The reservations were written in the transfers' own transactions (SpendSlot): each settled
    // one is marked committed with its outcome, and a refused turn left neither a reservation
    // nor a transfer row (its transaction was aborted).
    const rows = await svc.deps.store.table(SpendReservations).findMany({ accountId: m.accountId });
    expect(rows.map((r) => r.status)).toEqual(Array(5).fill('committed'));
    expect(await svc.deps.transfers.history(m.accountId, { limit: 50 })).toHaveLength(5);
  });

  it('a claim link (a phone with no account) is under the caps too: it reserves on its own before the money moves', async () => {
    const m = await merchant('Claim Shop', '50');
    await putPolicy(m, { usd: { daily: '5' } }, { path: `/keys/${m.keyId}/policy` });
    const first = await settle(m, { message: 'send 3 USD to +254712000901' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ ok: true, action: 'transfer', transfer: { type: 'claim', status: 'open' } });
    const over = await settle(m, { message: 'send 3 USD to +254712000902' });
    expect(over.status).toBe(422);
    expect(over.body.reason).toBe('policy_daily');
    const rows = await svc.deps.store.table(SpendReservations).findMany({ accountId: m.accountId });
    expect(rows.map((r) => r.status)).toEqual(['committed']);
  });

  it('a policy change applies from the next turn (what a turn reads once is never kept for the next)', async () => {
    const m = await merchant('Changing Shop', '50');
    const send = () => settle(m, { message: 'send 1 USD to @amina_ng' });
    expect((await send()).status).toBe(200);
    expect((await putPolicy(m, { block_recipients: ['@amina_ng'] })).status).toBe(200);
    const blocked = await send();
    expect(blocked.status).toBe(422);
    expect(blocked.body.reason).toBe('policy_recipient');
    expect((await putPolicy(m, {})).status).toBe(200);
    expect((await putPolicy(m, { usd: { daily: '2.5' } }, { path: `/keys/${m.keyId}/policy` })).status).toBe(200);
    expect((await send()).status).toBe(200);
    // The first turn's 1 USD (before the cap existed) counts: 1 + 1 + 1 > 2.5.
    const capped = await send();
    expect(capped.status).toBe(422);
    expect(capped.body.reason).toBe('policy_daily');
    expect((await putPolicy(m, {}, { path: `/keys/${m.keyId}/policy` })).status).toBe(200);
    expect((await send()).status).toBe(200);
  });

  it('the breaker pauses the key after N refusals: 429 with Retry-After and a plain reason', async () => {
    const m = await merchant('Loop Shop', '5');
    await putPolicy(m, { usd: { per_transaction: '2' }, breaker: { max_failures: 3, window_seconds: 60, cooldown_seconds: 90 } });
    for (let i = 0; i < 3; i++) expect((await settle(m, { message: 'send 3 USD to @amina_ng' })).status).toBe(422);
    const paused = await settle(m, { message: 'send 1 USD to @amina_ng' });
    expect(paused.status).toBe(429);
    expect(Number(paused.headers.get('retry-after'))).toBeGreaterThan(80);
    expect(paused.body).toMatchObject({ ok: false, reason: 'policy_breaker' });
    // The person's own chat is not paused.
    const chat = await call(`${svc.api}/chat`, { method: 'POST', cookie: m.cookie, body: { message: 'send 1 USD to @amina_ng' } });
    expect(chat.status).toBe(200);
    expect(chat.body.pending_action.status).toBe('pending');
  });
});

describe('the chat door', () => {
  it('refuses over a cap with the rule named; over the threshold it names the rule and the person confirms', async () => {
    const m = await merchant('Chat User');
    await putPolicy(m, { usd: { per_transaction: '50' }, approval_threshold_usd: '10' });
    const chat = (message: string) => call(`${svc.api}/chat`, { method: 'POST', cookie: m.cookie, body: { message } });
    const over = await chat('send 60 USD to @amina_ng');
    expect(over.status).toBe(422);
    expect(over.body.reason).toBe('policy_per_transaction');
    expect(over.body.pending_action).toBeUndefined();
    const held = await chat('send 20 USD to @amina_ng');
    expect(held.body.reply).toContain('approval threshold of 10.00 USD');
    const done = await call(`${svc.api}/chat/confirm`, { method: 'POST', cookie: m.cookie, body: { action_id: held.body.pending_action.id } });
    expect(done.status).toBe(200);
    expect(done.body.reply).toContain('Sent 20.00 USD');
  });
});

describe('the Telegram door', () => {
  it('tells the person which rule refused (allowlist, cap) and holds nothing', async () => {
    const user: TgUser = { id: 930001, first_name: 'Tara', username: 'tara_ke' };
    const post = world.tgPost;
    const before = fake.calls.length;
    await post(textUpdate(user, '/start'));
    await fake.waitFor('sendMessage', (c) => fake.calls.indexOf(c) >= before && Number(c.body.chat_id) === user.id);
    const account = await svc.deps.accounts.findBy({ telegramUserId: String(user.id) });
    await world.storePolicy(account!.id, { allow_recipients: ['@amina_ng'], usd: { per_transaction: '5' } });
    const say = (text: string) => world.tgSay(user, text);
    const notAllowed = await say('send 1 USD to @mallory_ng');
    expect(notAllowed.body.text).toContain('is not on the list of recipients your spend policy allows');
    expect(buttonData(notAllowed)).toEqual([]);
    const over = await say('send 9 USD to @amina_ng');
    expect(over.body.text).toContain('over the limit of 5.00 USD per transaction');
    expect(buttonData(over)).toEqual([]);
  });
});

describe('the MCP door', () => {
  it("the key's policy applies to the connection: caps and allowed actions", async () => {
    const m = await merchant('Mcp User', '1');
    await putPolicy(m, { usd: { per_transaction: '3' }, allowed_actions: ['transfer'] }, { path: `/keys/${m.keyId}/policy` });
    const client = await world.mcpClient(m.key);
    const over = await client.callTool({ name: 'send_transfer', arguments: { recipient: '@amina_ng', amount: '4', currency: 'USD' } });
    expect(over.isError).toBe(true);
    expect(over.structuredContent).toMatchObject({ ok: false, reason: 'policy_per_transaction' });
    const link = await client.callTool({ name: 'create_payment_link', arguments: { amount: '10' } });
    expect(link.isError).toBe(true);
    expect(link.structuredContent).toMatchObject({ reason: 'policy_action' });
    const ok = await client.callTool({ name: 'send_transfer', arguments: { recipient: '@amina_ng', amount: '2', currency: 'USD' } });
    expect(ok.structuredContent).toMatchObject({ ok: true, pending_confirmation: { id: expect.any(String) } });
    await client.close();
  });
});
