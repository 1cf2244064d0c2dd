/**
 * Signed receipts of approvals, verified the way a third party would: jose's createRemoteJWKSet
 * on the published /.well-known/jwks.json and jwtVerify. One receipt per door that confirms:
 * the chat, Telegram (fake Bot API), MCP's confirmation page and the API's confirm_action.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { fund, newAccount } from '../helpers/money.js';
import { buttonData, callbackUpdate, startFakeBotApi, textUpdate, type FakeBotApi, type TgUser } from '../bridges/telegram-fake.js';
import { actionHash } from '../../src/receipts/approval-receipts.js';

const SECRET = 's3cret';
let svc: TestService;
let fake: FakeBotApi;
let m: Merchant;
let jwks: ReturnType<typeof createRemoteJWKSet>;

beforeAll(async () => {
  fake = await startFakeBotApi();
  svc = await startTestService({
    RECONCILE_INTERVAL: '1h',
    TELEGRAM_BOT_TOKEN: '123:abc',
    TELEGRAM_API_ROOT: fake.url,
    TELEGRAM_WEBHOOK_URL: 'https://example.test/api/telegram/webhook',
    TELEGRAM_WEBHOOK_SECRET: SECRET,
  });
  const amina = await newAccount(svc, { name: 'Amina', country: 'NG' });
  await svc.deps.accounts.update(amina.id, { telegramUsername: 'amina_rx' });
  m = await createMerchant(svc.api, 'Receipt Shop');
  await fund(svc, (await svc.deps.accounts.get(m.accountId))!, '100');
  jwks = createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`));
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
  await fake?.close();
});

interface Claims extends JWTPayload {
  approval: { account: string; door: string; at: string };
  action: { id: string; tool: string; amount: string; currency: string; recipient: string; hash: string };
  outcome: { ok: boolean; tx_hash: string | null; status: string | null };
}

async function verifiedReceipt(actionId: string, auth: { key?: string; cookie?: string }): Promise<Claims> {
  const r = await call(`${svc.api}/agent/actions/${actionId}/receipt`, auth);
  expect(r.status).toBe(200);
  const { payload, protectedHeader } = await jwtVerify<Claims>(r.body.receipt.jws, jwks, { issuer: svc.deps.config.PUBLIC_URL, subject: m.accountId });
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload.jti).toBe(actionId);
  const { tool, amount, currency, recipient } = payload.action;
  // The hash is of the canonical action: anyone can recompute it from the fields.
  expect(payload.action.hash).toBe(actionHash({ amount, currency, recipient, tool }));
  return payload;
}

describe('approval receipts', () => {
  it('chat: the person confirms; the receipt names the door, the exact action and the tx hash, and verifies with the published key', async () => {
    const held = await call(`${svc.api}/chat`, { method: 'POST', cookie: m.cookie, body: { message: 'send 3 USD to @amina_rx' } });
    const id = held.body.pending_action.id as string;
    // Not confirmed yet: no receipt.
    expect((await call(`${svc.api}/agent/actions/${id}/receipt`, { key: m.key })).status).toBe(409);
    const done = await call(`${svc.api}/chat/confirm`, { method: 'POST', cookie: m.cookie, body: { action_id: id } });
    expect(done.status).toBe(200);
    const claims = await verifiedReceipt(id, { key: m.key });
    expect(claims.approval).toMatchObject({ account: m.accountId, door: 'chat' });
    expect(claims.action).toMatchObject({ tool: 'send_transfer', amount: '3', currency: 'USD', recipient: '@amina_rx' });
    expect(claims.outcome).toMatchObject({ ok: true, tx_hash: done.body.transfer.tx_hash });
    expect(claims.outcome.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    // The same receipt every time; another account cannot read it.
    const a = await call(`${svc.api}/agent/actions/${id}/receipt`, { cookie: m.cookie });
    const b = await call(`${svc.api}/agent/actions/${id}/receipt`, { key: m.key });
    expect(a.body.receipt.jws).toBe(b.body.receipt.jws);
    const other = await createMerchant(svc.api, 'Other');
    expect((await call(`${svc.api}/agent/actions/${id}/receipt`, { key: other.key })).status).toBe(404);
    // A tampered receipt does not verify.
    const [h, p, s] = (a.body.receipt.jws as string).split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), outcome: { ok: true, tx_hash: '0xbeef' } })).toString('base64url');
    await expect(jwtVerify(`${h}.${forged}.${s}`, jwks)).rejects.toThrow();
    expect(decodeProtectedHeader(a.body.receipt.jws).kid).toBeTruthy();
  });

  it('API confirm_action: door "api"', async () => {
    const held = await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message: 'send 2 USD to @amina_rx', confirm: false } });
    const id = held.body.pending.id as string;
    const done = await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { confirm_action: id } });
    expect(done.status).toBe(200);
    const claims = await verifiedReceipt(id, { key: m.key });
    expect(claims.approval.door).toBe('api');
    expect(claims.outcome.tx_hash).toBe(done.body.transfer.tx_hash);
  });

  it('MCP URL confirmation: the person confirms on our page, door "web"', async () => {
    const client = new Client({ name: 'assistant', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.api}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${m.key}` } } }));
    const r = await client.callTool({ name: 'send_transfer', arguments: { recipient: '@amina_rx', amount: '1', currency: 'USD' } });
    const id = (r.structuredContent as { pending_confirmation: { id: string } }).pending_confirmation.id;
    await client.close();
    const page = await fetch(`${svc.url}/app/actions/${id}/confirm`, { method: 'POST', headers: { cookie: m.cookie, origin: svc.url } });
    expect(page.status).toBe(200);
    const claims = await verifiedReceipt(id, { cookie: m.cookie });
    expect(claims.approval.door).toBe('web');
    expect(claims.action).toMatchObject({ amount: '1', recipient: '@amina_rx' });
  });

  it('Telegram Confirm button: door "telegram"', async () => {
    const user: TgUser = { id: 940001, first_name: 'Rex', username: 'rex_rx' };
    const post = (u: object) =>
      fetch(`${svc.api}/telegram/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': SECRET }, body: JSON.stringify(u) });
    const says = async (u: object, match: (c: { body: Record<string, any> }) => boolean) => {
      const since = fake.calls.length;
      await post(u);
      return fake.waitFor('sendMessage', (c) => fake.calls.indexOf(c) >= since && Number(c.body.chat_id) === user.id && match(c));
    };
    await says(textUpdate(user, '/start'), () => true);
    const account = (await svc.deps.accounts.findBy({ telegramUserId: String(user.id) }))!;
    await fund(svc, account, '10');
    const prompt = await says(textUpdate(user, 'send 2 USD to @amina_rx'), (c) => buttonData(c as never).length === 2);
    const [confirm] = buttonData(prompt);
    const id = confirm!.slice(2);
    await post(callbackUpdate(user, confirm!, prompt.result.message_id));
    await fake.waitFor('editMessageText', (c) => Number(c.body.message_id) === prompt.result.message_id && String(c.body.text).includes('✅'));
    const got = await svc.deps.receipts.forAction(account.id, id);
    expect(got.ok).toBe(true);
    const { payload } = await jwtVerify<Claims>(got.ok ? got.receipt.jws : '', jwks, { subject: account.id });
    expect(payload.approval).toMatchObject({ door: 'telegram', account: account.id });
    expect(payload.outcome.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
