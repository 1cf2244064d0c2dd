/**
 * Issue 24's "Proof", the rows doors.test.ts does not already cover (docs/issue-24-proof.md):
 * through the chat, Telegram (fake Bot API) and MCP (the SDK client) on a real service, the
 * rolling cap, concurrent confirmations that together never exceed a cap, the allow and block
 * lists and the approval threshold; through MCP also the breaker (retry_after_seconds), a key
 * that has no way to widen its policy (no tool, no PUT, no key of its own making), and test/live isolation of what it lists; through the
 * API the allowlist. Held actions reserve nothing: the cap binds when the person confirms.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Merchant, type TestService } from '../helpers/service.js';
import { fund, newAccount } from '../helpers/money.js';
import { buttonData, callbackUpdate, type ApiCall, type FakeBotApi, type TgUser } from '../bridges/telegram-fake.js';
import { SpendReservations } from '../../src/policies/tables.js';
import type { SpendPolicy } from '../../src/policies/policy-schemas.js';
import { PASSWORD, startPolicyWorld, type PolicyWorld } from './policy-world.js';

const MALLORY_PHONE = '+2348030000077';
let world: PolicyWorld;
let svc: TestService;
let fake: FakeBotApi;

beforeAll(async () => {
  world = await startPolicyWorld();
  ({ svc, fake } = world);
  const people: Array<[string, Record<string, string>]> = [
    ['Amina', { telegramUsername: 'amina_px' }],
    ['Mallory', { telegramUsername: 'mallory_px', phone: MALLORY_PHONE }],
    ['Bob', { telegramUsername: 'bob_px' }],
  ];
  for (const [name, fields] of people) {
    const a = await newAccount(svc, { name, country: 'NG' });
    await svc.deps.accounts.update(a.id, fields);
  }
});
afterAll(async () => {
  await world?.stop();
});

const putPolicy = (m: Merchant, policy: SpendPolicy, path = '/policies') => world.putPolicy(m, policy, { path });
const merchant = (name: string, usd: string) => world.merchant(name, usd);
const mcpClient = (key: string) => world.mcpClient(key);
type Sc = Record<string, any>;
const sc = (r: unknown) => (r as { structuredContent: Sc }).structuredContent;
/** The person confirms on our page (where MCP's confirmation link leads). */
const confirmOnPage = (m: Merchant, id: string) => fetch(`${svc.url}/app/actions/${id}/confirm`, { method: 'POST', headers: { cookie: m.cookie, origin: svc.url } });

describe('the chat door', () => {
  it('allow and block lists; concurrent confirmations stop at the rolling cap; a later turn is refused by it', async () => {
    const m = await merchant('Chat Proof', '20');
    // Mallory is allowed by handle but blocked by phone: the block wins, whatever name is used.
    await putPolicy(m, { usd: { daily: '3' }, allow_recipients: ['@amina_px', '@mallory_px'], block_recipients: [MALLORY_PHONE] });
    const chat = (message: string) => call(`${svc.api}/chat`, { method: 'POST', cookie: m.cookie, body: { message } });

    const blocked = await chat('send 1 USD to @mallory_px');
    expect(blocked.status).toBe(422);
    expect(blocked.body).toMatchObject({ ok: false, reason: 'policy_recipient' });
    expect(blocked.body.pending_action).toBeUndefined();
    const notAllowed = await chat('send 1 USD to @bob_px');
    expect(notAllowed.body.reason).toBe('policy_recipient');
    expect(notAllowed.body.reply).toContain('is not on the list of recipients your spend policy allows');

    // Five holds (holding reserves nothing), then five Confirms at once: only 3 USD can go.
    const held: string[] = [];
    for (let i = 0; i < 5; i++) held.push((await chat('send 1 USD to @amina_px')).body.pending_action.id);
    const done = await Promise.all(held.map((id) => call(`${svc.api}/chat/confirm`, { method: 'POST', cookie: m.cookie, body: { action_id: id } })));
    expect(done.filter((r) => r.status === 200 && r.body.ok)).toHaveLength(3);
    const refused = done.filter((r) => !r.body.ok);
    expect(refused).toHaveLength(2);
    for (const r of refused) expect(r.body.reason).toBe('policy_daily');

    const later = await chat('send 1 USD to @amina_px');
    expect(later.body.reason).toBe('policy_daily');
    expect(later.body.reply).toContain('daily cap of 3.00 USD');
  });
});

describe('the Telegram door', () => {
  it('blocklist; the threshold named on the Confirm prompt; concurrent Confirm taps stop at the rolling cap', async () => {
    const user: TgUser = { id: 950001, first_name: 'Tomi', username: 'tomi_px' };
    const post = world.tgPost;
    const say = (text: string) => world.tgSay(user, text);
    await say('/start');
    const account = (await svc.deps.accounts.findBy({ telegramUserId: String(user.id) }))!;
    await fund(svc, account, '10');
    await world.storePolicy(account.id, { usd: { daily: '3' }, approval_threshold_usd: '0.5', block_recipients: ['@mallory_px'] });

    const blocked = await say(`send 1 USD to ${MALLORY_PHONE}`);
    expect(blocked.body.text).toContain('is on the blocklist of your spend policy');
    expect(buttonData(blocked)).toEqual([]);

    const prompts: ApiCall[] = [];
    for (let i = 0; i < 5; i++) {
      const p = await say('send 1 USD to @amina_px');
      expect(buttonData(p)).toHaveLength(2);
      prompts.push(p);
    }
    expect(String(prompts[0]!.body.text)).toContain('approval threshold of 0.50 USD');
    await Promise.all(prompts.map((p) => post(callbackUpdate(user, buttonData(p)[0]!, p.result.message_id))));
    const outcomes = await Promise.all(
      prompts.map((p) => fake.waitFor('editMessageText', (c) => Number(c.body.message_id) === p.result.message_id && /✅|❌/.test(String(c.body.text)))),
    );
    const texts = outcomes.map((c) => String(c.body.text));
    expect(texts.filter((t) => t.startsWith('✅'))).toHaveLength(3);
    const refused = texts.filter((t) => t.includes('❌'));
    expect(refused).toHaveLength(2);
    for (const t of refused) expect(t).toContain('daily cap of 3.00 USD');

    const later = await say('send 1 USD to @amina_px');
    expect(later.body.text).toContain('daily cap of 3.00 USD');
    expect(buttonData(later)).toEqual([]);
  });
});

describe('the MCP door', () => {
  it('lists of both levels, the threshold, concurrent page confirmations stop at the rolling cap', async () => {
    const m = await merchant('Mcp Proof', '20');
    await putPolicy(m, { approval_threshold_usd: '0.5', block_recipients: ['@mallory_px'] });
    await putPolicy(m, { usd: { daily: '3' }, allow_recipients: ['@amina_px', '@mallory_px'] }, `/keys/${m.keyId}/policy`);
    const client = await mcpClient(m.key);
    const send = (recipient: string) => client.callTool({ name: 'send_transfer', arguments: { recipient, amount: '1', currency: 'USD' } });

    const blocked = await send('@mallory_px');
    expect(blocked.isError).toBe(true);
    expect(sc(blocked)).toMatchObject({ ok: false, reason: 'policy_recipient' });
    const notAllowed = await send('@bob_px');
    expect(sc(notAllowed)).toMatchObject({ ok: false, reason: 'policy_recipient' });
    expect(sc(notAllowed).reply).toContain("this API key's spend policy");

    const held = await Promise.all(Array.from({ length: 5 }, () => send('@amina_px')));
    const ids = held.map((r) => sc(r).pending_confirmation.id as string);
    expect(new Set(ids).size).toBe(5);
    expect(sc(held[0]).reply).toContain('approval threshold of 0.50 USD');
    const pages = await Promise.all(ids.map((id) => confirmOnPage(m, id).then(async (r) => ({ status: r.status, text: await r.text() }))));
    expect(pages.filter((p) => p.text.includes('Sent 1.00 USD'))).toHaveLength(3);
    expect(pages.filter((p) => p.text.includes('daily cap of 3.00 USD'))).toHaveLength(2);
    // Exactly the cap was spent: three 1 USD reservations committed, the two refused ones never reserved.
    const rows = await svc.deps.store.table(SpendReservations).findMany({ accountId: m.accountId });
    expect(rows.filter((r) => r.status === 'committed').reduce((t, r) => t + BigInt(r.usd), 0n)).toBe(3_000_000n);

    const later = await send('@amina_px');
    expect(later.isError).toBe(true);
    expect(sc(later).reason).toBe('policy_daily');
    await client.close();
  });

  it('the breaker pauses the connection: an error result with policy_breaker and retry_after_seconds', async () => {
    const m = await merchant('Mcp Loop', '5');
    await putPolicy(m, { usd: { per_transaction: '2' }, breaker: { max_failures: 3, window_seconds: 60, cooldown_seconds: 90 } });
    const client = await mcpClient(m.key);
    const send = (amount: string) => client.callTool({ name: 'send_transfer', arguments: { recipient: '@amina_px', amount, currency: 'USD' } });
    for (let i = 0; i < 3; i++) expect(sc(await send('3')).reason).toBe('policy_per_transaction');
    const paused = await send('1');
    expect(paused.isError).toBe(true);
    expect(sc(paused)).toMatchObject({ ok: false, reason: 'policy_breaker' });
    expect(sc(paused).retry_after_seconds).toBeGreaterThan(80);
    expect(sc(paused).reply).toContain('too many refused or failed payments');
    await client.close();
    // Nor does a fresh key get round the pause (lead, fifteenth round: a paused key with no policy of
    // its own minted one that was not paused); the person still makes keys.
    const minted = await call(`${svc.api}/keys`, { key: m.key, body: { label: 'round the pause' } });
    expect(minted.status, JSON.stringify(minted.body)).toBe(403);
    expect(minted.body).toEqual({ error: { type: 'permission_error', message: expect.stringContaining('paused by the circuit breaker') } });
    expect((await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'by the person' } })).status).toBe(201);
  });

  it('a connection cannot widen its policy: no tool changes one, and its key is refused by PUT', async () => {
    const m = await merchant('Mcp Narrow', '1');
    await putPolicy(m, { usd: { per_transaction: '1' } }, `/keys/${m.keyId}/policy`);
    const client = await mcpClient(m.key);
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThan(5);
    expect(tools.filter((t) => /polic|limit/i.test(t.name))).toEqual([]);
    await client.close();
    for (const path of ['/policies', `/keys/${m.keyId}/policy`]) {
      const put = await call(`${svc.api}${path}`, { method: 'PUT', key: m.key, body: { policy: {}, password: PASSWORD } });
      expect(put.status).toBe(403);
    }
    expect((await call(`${svc.api}/keys/${m.keyId}/policy`, { key: m.key })).body.policy.policy).toEqual({ usd: { per_transaction: '1' } });
    // Nor by making a key of its own, which would carry no key policy (h15tour: it did, and that key
    // sent 2 USD past the 1 USD rule). The key list is unchanged; the person still makes keys.
    const before = (await call(`${svc.api}/keys`, { key: m.key })).body.keys.length as number;
    const minted = await call(`${svc.api}/keys`, { key: m.key, body: { label: 'escape' } });
    expect(minted.status, JSON.stringify(minted.body)).toBe(403);
    expect(minted.body).toEqual({ error: { type: 'permission_error', message: expect.stringContaining('spend policy of its own') } });
    expect((await call(`${svc.api}/keys`, { key: m.key })).body.keys).toHaveLength(before);
    expect((await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'by the person' } })).status).toBe(201);
    // Nor does it take the account's other keys down (lead, fifteenth round: it revoked an
    // unrestricted key); it may revoke itself.
    const other = (await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'the unrestricted one' } })).body.key as { id: string; secret: string };
    const down = await call(`${svc.api}/keys/${other.id}`, { method: 'DELETE', key: m.key });
    expect(down.status, JSON.stringify(down.body)).toBe(403);
    expect(down.body).toEqual({ error: { type: 'permission_error', message: expect.stringContaining('revoke only itself') } });
    expect((await call(`${svc.api}/v1/ping`, { key: other.secret })).status).toBe(200);
    expect((await call(`${svc.api}/keys/${m.keyId}`, { method: 'DELETE', key: m.key })).status).toBe(200);
    expect((await call(`${svc.api}/v1/ping`, { key: m.key })).status).toBe(401);
  });

  it('a key with no policy of its own makes keys of its mode: a test key never a live one', async () => {
    const m = await merchant('Mcp Key Modes', '1');
    const testKey = (await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } })).body.key.secret as string;
    const made = await call(`${svc.api}/keys`, { key: testKey, body: { label: 'from the sandbox' } });
    expect(made.status).toBe(201);
    expect(made.body.key).toMatchObject({ mode: 'test', livemode: false, secret: expect.stringMatching(/^sk_test_/) });
    const live = await call(`${svc.api}/keys`, { key: testKey, body: { label: 'out of the sandbox', mode: 'live' } });
    expect(live.status, JSON.stringify(live.body)).toBe(403);
    expect(live.body).toEqual({ error: { type: 'permission_error', message: expect.stringContaining('test keys only'), param: 'mode' } });
    // Nor does it take a live key down: revoking one is 403 and the live key keeps working; its own kind it may revoke.
    const revoke = (id: string) => call(`${svc.api}/keys/${id}`, { method: 'DELETE', key: testKey });
    const down = await revoke(m.keyId);
    expect(down.status, JSON.stringify(down.body)).toBe(403);
    expect(down.body.error).toMatchObject({ type: 'permission_error', message: expect.stringContaining('revoke test keys only') });
    expect((await call(`${svc.api}/v1/ping`, { key: m.key })).status).toBe(200);
    expect((await revoke(made.body.key.id)).status).toBe(200);
    // A live key with no policy of its own: a live key by default, as the interface's example call.
    const fromLive = await call(`${svc.api}/keys`, { key: m.key, body: { label: 'second server' } });
    expect(fromLive.status).toBe(201);
    expect(fromLive.body.key.secret).toMatch(/^sk_live_/);
  });

  it("test/live isolation: each mode's connection lists only its own mode's activity (payment links, transfers, bills)", async () => {
    const m = await merchant('Mcp Modes', '10');
    const testKey = (await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } })).body.key.secret as string;
    const made: Record<'live' | 'test', string> = { live: '', test: '' };
    for (const [mode, key] of [['live', m.key], ['test', testKey]] as const) {
      const c = await mcpClient(key);
      const link = await c.callTool({ name: 'create_payment_link', arguments: { amount: mode === 'live' ? '11' : '22' } });
      expect(link.isError, JSON.stringify(sc(link))).toBeFalsy();
      made[mode] = sc(link).payment.id;
      await c.close();
    }
    expect((await svc.deps.payments.get(made.test))!.livemode).toBe(false);
    // The test key moves money too; on the embedded chain both modes share, its records are still test mode's.
    const tc = await mcpClient(testKey);
    const asked = [
      await tc.callTool({ name: 'send_transfer', arguments: { recipient: '@amina_px', amount: '1', currency: 'USD' } }),
      await tc.callTool({ name: 'pay_bill', arguments: { biller: 'MTN Nigeria Airtime', account_number: '0803 123 4567', amount: '2', currency: 'USD' } }),
    ];
    for (const r of asked) {
      expect(sc(r).pending_confirmation, JSON.stringify(sc(r))).toBeDefined();
      const page = await confirmOnPage(m, sc(r).pending_confirmation.id);
      expect(page.status, await page.clone().text()).toBe(200);
    }
    await tc.close();
    const activity = async (key: string) => {
      const c = await mcpClient(key);
      const got = sc(await c.callTool({ name: 'list_activity', arguments: {} })).activity.entries as Array<{ id: string; kind: string }>;
      await c.close();
      return got;
    };
    const test = await activity(testKey);
    const live = await activity(m.key);
    expect(test.map((e) => e.id)).toContain(made.test);
    expect(test.map((e) => e.id)).not.toContain(made.live);
    expect(test.map((e) => e.kind).sort()).toEqual(['bill', 'payment', 'transfer']);
    expect(live.map((e) => e.id)).toEqual([made.live]);
    const testIds = test.filter((e) => e.kind !== 'payment').map((e) => e.id);
    for (const id of testIds) {
      const row = id.startsWith('bill') ? await svc.deps.bills.get(id) : await svc.deps.transfers.get(id);
      expect(row?.livemode, id).toBe(false);
    }
  });
});

describe('the API door', () => {
  it("the key's allowlist: a recipient not on it is refused with the rule named", async () => {
    const m = await merchant('Api Allow', '2');
    await putPolicy(m, { allow_recipients: ['@amina_px'] }, `/keys/${m.keyId}/policy`);
    const settle = (message: string) => call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message } });
    const no = await settle('send 1 USD to @bob_px');
    expect(no.status).toBe(422);
    expect(no.body).toMatchObject({ ok: false, reason: 'policy_recipient' });
    expect(no.body.reply).toContain("this API key's spend policy");
    expect((await settle('send 1 USD to @amina_px')).status).toBe(200);
  });

  it("an action the threshold held from the API is the person's to confirm with the chat's Confirm too, never the key's", async () => {
    const m = await merchant('Api Held', '5');
    await putPolicy(m, { approval_threshold_usd: '1' });
    const held = await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message: 'send 2 USD to @amina_px' } });
    expect(held.body).toMatchObject({ ok: true, reason: 'approval_required', pending_action: { status: 'pending' } });
    const id = held.body.pending_action.id as string;
    expect((await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { confirm_action: id } })).status).toBe(403);
    const done = await call(`${svc.api}/chat/confirm`, { method: 'POST', cookie: m.cookie, body: { action_id: id } });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.reply).toContain('Sent 2.00 USD');
    // Another account's person cannot confirm it (the confirmation binds the account that asked).
    const stranger = await merchant('Stranger Held', '1');
    const confirmAs = (cookie: string, action_id: string) => call(`${svc.api}/chat/confirm`, { method: 'POST', cookie, body: { action_id } });
    const again = await confirmAs(stranger.cookie, id);
    expect(again.body).toMatchObject({ ok: false, reason: 'not_found' });
    // Exactly what an id that never existed answers: nothing learnt about it.
    const unknown = await confirmAs(stranger.cookie, `act_${'x'.repeat(24)}`);
    expect([again.status, again.body]).toEqual([unknown.status, unknown.body]);
  });
});
