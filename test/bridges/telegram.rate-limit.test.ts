import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { startFakeBotApi, textUpdate, type ApiCall, type FakeBotApi, type TgUser } from './telegram-fake.js';

/**
 * AGENT_RATE_LIMIT is one budget per account across every door: Telegram turns, POST
 * /api/agent/settle and POST /api/chat all take from the same counter (src/limits/agent-turns.ts).
 * Each merchant here is also a Telegram user (its account carries the Telegram user id), so
 * the same account talks through all three doors.
 */
const SECRET = 'rl-s3cret';
let fake: FakeBotApi;
let svc: TestService;

beforeAll(async () => {
  fake = await startFakeBotApi();
  svc = await startTestService({
    AGENT_RATE_LIMIT: '2/min',
    TELEGRAM_BOT_TOKEN: '123:abc',
    TELEGRAM_API_ROOT: fake.url,
    TELEGRAM_WEBHOOK_URL: 'https://example.test/api/telegram/webhook',
    TELEGRAM_WEBHOOK_SECRET: SECRET,
  });
  await fake.waitFor('setWebhook');
});

afterAll(async () => {
  await svc?.stop({ removeData: true });
  await fake?.close();
});

/** A merchant (key + session) whose account is also the given Telegram user's. */
async function merchantOnTelegram(user: TgUser): Promise<Merchant> {
  const m = await createMerchant(svc.api, user.first_name);
  await svc.deps.accounts.update(m.accountId, { telegramUserId: String(user.id), localCurrency: 'KES' });
  return m;
}

/** Sends a private text message to the bot and returns the bot's answer to it. */
async function telegram(user: TgUser, text: string): Promise<string> {
  const since = fake.calls.length;
  const res = await fetch(`${svc.api}/telegram/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': SECRET },
    body: JSON.stringify(textUpdate(user, text)),
  });
  expect(res.status).toBe(200);
  const reply = await fake.waitFor('sendMessage', (c: ApiCall) => fake.calls.indexOf(c) >= since && Number(c.body.chat_id) === user.id);
  return String(reply.body.text);
}

const settle = (m: Merchant, message: string) => call(`${svc.api}/agent/settle`, { key: m.key, body: { message } });
const chat = (m: Merchant, message: string) => call(`${svc.api}/chat`, { cookie: m.cookie, body: { message } });

function expect429(r: Awaited<ReturnType<typeof call>>) {
  expect(r.status).toBe(429);
  expect(r.body).toEqual({ ok: false, reply: expect.stringMatching(/^Too many messages\. Please wait \d+ seconds and try again\.$/) });
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(r.headers.get('ratelimit')).toMatch(/r=0/);
  expect(r.headers.get('ratelimit-policy')).toMatch(/q=2; w=60/);
}

describe('one AGENT_RATE_LIMIT across Telegram and HTTP (2/min)', () => {
  it('a Telegram turn and an HTTP turn spend the same budget: the next turn is refused on every door', async () => {
    const user: TgUser = { id: 961001, first_name: 'Wanjiru', username: 'wanjiru_rl' };
    const m = await merchantOnTelegram(user);

    // Turn 1 in Telegram: answered by the agent.
    const first = await telegram(user, 'what can you do?');
    expect(first).not.toMatch(/Too many messages/);

    // Turn 2 over HTTP: allowed, and the headers already count the Telegram turn.
    const second = await settle(m, 'help');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ ok: true, action: 'info' });
    expect(second.headers.get('ratelimit')).toMatch(/r=0;/);

    // The budget is spent everywhere: HTTP (both doors) answers 429, Telegram a polite reply.
    expect429(await settle(m, 'help'));
    expect429(await chat(m, 'help'));
    const refused = await telegram(user, 'what is my balance?');
    expect(refused).toMatch(/^Too many messages\. Please wait \d+ seconds and try again\.$/);
  });

  it('HTTP turns spend the Telegram budget too; another account is unaffected', async () => {
    const user: TgUser = { id: 961002, first_name: 'Amina', username: 'amina_rl' };
    const m = await merchantOnTelegram(user);

    const viaApi = await settle(m, 'help');
    expect(viaApi.status).toBe(200);
    expect(viaApi.headers.get('ratelimit')).toMatch(/r=1;/);
    const viaChat = await chat(m, 'help');
    expect(viaChat.status).toBe(200);
    expect(viaChat.headers.get('ratelimit')).toMatch(/r=0;/);

    const typingBefore = fake.callsTo('sendChatAction').length;
    const refused = await telegram(user, 'help');
    expect(refused).toMatch(/^Too many messages\. Please wait \d+ seconds and try again\.$/);
    // Refused before the agent ran: no "typing…" was shown for it.
    expect(fake.callsTo('sendChatAction').length).toBe(typingBefore);

    // A different account (also on Telegram) still has its whole budget.
    const other: TgUser = { id: 961003, first_name: 'Kofi', username: 'kofi_rl' };
    const o = await merchantOnTelegram(other);
    expect(await telegram(other, 'help')).not.toMatch(/Too many messages/);
    expect((await settle(o, 'help')).status).toBe(200);
    expect429(await settle(o, 'help'));
  });
});
