/**
 * Issue 27: the confirm-action page says which secret key asked for the action (its label and
 * masked prefix, never the secret), besides the door and the time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createMerchant, startTestService, type TestService } from '../helpers/service.js';
import { fund, newAccount } from '../helpers/money.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ AGENT_RATE_LIMIT: '1000/min', RECONCILE_INTERVAL: '1h' });
  const amina = await newAccount(svc, { name: 'Amina', country: 'NG' });
  await svc.deps.accounts.update(amina.id, { telegramUsername: 'amina_key_page' });
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
});

describe('confirm-action page', () => {
  it('names the key an API preview came through; a chat action names no key', async () => {
    const m = await createMerchant(svc.api, 'Key Page Shop');
    await fund(svc, (await svc.deps.accounts.get(m.accountId))!, '50');
    const keys = await call(`${svc.api}/keys`, { cookie: m.cookie });
    const key = keys.body.keys[0] as { id: string; label: string; prefix: string };

    const held = await call(`${svc.api}/agent/settle`, { method: 'POST', key: m.key, body: { message: 'send 5 USD to @amina_key_page', confirm: false } });
    expect(held.status).toBe(200);
    const id = held.body.pending.id as string;
    const page = await fetch(`${svc.url}/app/actions/${id}`, { headers: { cookie: m.cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    const asked = /<p id="asked-by">([^<]*)/.exec(html)![1]!;
    expect(asked).toContain(`through the key “${key.label}” (${key.prefix})`);
    expect(html).not.toContain(m.key);

    const chat = await call(`${svc.api}/chat`, { method: 'POST', cookie: m.cookie, body: { message: 'send 5 USD to @amina_key_page' } });
    expect(chat.status).toBe(200);
    const chatPage = await (await fetch(`${svc.url}/app/actions/${chat.body.pending_action.id}`, { headers: { cookie: m.cookie } })).text();
    expect(/<p id="asked-by">([^<]*)/.exec(chatPage)![1]).not.toContain('through the key');
  });
});
