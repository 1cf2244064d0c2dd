/**
 * Issue 24, section 2: the person's own histories keep the modes apart. On the embedded chain
 * both modes share, a test key's transfer (confirmed by the person) is test mode's; Telegram's
 * /history and the app's chat ("show my activity", list_activity), the person's live doors,
 * list the live transfer only, while the test key's own connection lists the test one only. The
 * recipient is told on Telegram of the live transfer only: a test key's transfer notifies nobody
 * (h15tour; before, it was announced as "test money" on the embedded chain, never beside a real
 * network).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type TestService } from '../helpers/service.js';
import { newAccount } from '../helpers/money.js';
import type { TgUser } from '../bridges/telegram-fake.js';
import { startPolicyWorld, type PolicyWorld } from '../policies/policy-world.js';

const KOFI = 951235;
let world: PolicyWorld;
let svc: TestService;

beforeAll(async () => {
  world = await startPolicyWorld();
  ({ svc } = world);
  const a = await newAccount(svc, { name: 'Kofi', country: 'NG' });
  await svc.deps.accounts.update(a.id, { telegramUsername: 'kofi_hist', telegramUserId: String(KOFI) });
});
afterAll(async () => {
  await world?.stop();
});

type Sc = Record<string, any>;
const sc = (r: unknown) => (r as { structuredContent: Sc }).structuredContent;

describe("the person's histories per mode", () => {
  it('Telegram /history and the app chat list the live transfer, never the test key’s; the test key lists only its own', async () => {
    const m = await world.merchant('History Modes', '20');
    const testKey = (await call(`${svc.api}/keys`, { cookie: m.cookie, body: { label: 'sandbox', mode: 'test' } })).body.key.secret as string;
    const sent: Record<'live' | 'test', string> = { live: '', test: '' };
    // The test transfer first: by the time the live one's notice arrives, the test one's would have.
    for (const [mode, key, amount] of [['test', testKey, '3.75'], ['live', m.key, '1.25']] as const) {
      const c = await world.mcpClient(key);
      const r = await c.callTool({ name: 'send_transfer', arguments: { recipient: '@kofi_hist', amount, currency: 'USD' } });
      await c.close();
      const id = sc(r).pending_confirmation?.id as string;
      expect(id, JSON.stringify(sc(r))).toBeDefined();
      const page = await fetch(`${svc.url}/app/actions/${id}/confirm`, { method: 'POST', headers: { cookie: m.cookie, origin: svc.url } });
      expect(page.status, await page.clone().text()).toBe(200);
      const rows = await svc.deps.transfers.history(m.accountId, {});
      const row = rows.find((t) => t.sourceAmountMinor === (mode === 'live' ? '125' : '375'));
      expect(row?.status, JSON.stringify(rows)).toBe('settled');
      expect(row!.livemode !== false).toBe(mode === 'live');
      sent[mode] = row!.id;
    }

    // The recipient on Telegram: told of the live transfer as money received, of the test one not at all.
    const live = await world.fake.waitFor('sendMessage', (c) => Number(c.body.chat_id) === KOFI && String(c.body.text).includes('1.25'));
    expect(String(live.body.text)).toMatch(/^💸 You received/);
    expect(world.fake.callsTo('sendMessage').filter((c) => Number(c.body.chat_id) === KOFI).map((c) => String(c.body.text))).toEqual([String(live.body.text)]);

    // Telegram: the same person, signed in to the bot.
    const user: TgUser = { id: 951234, first_name: 'Hist', username: 'hist_px' };
    await svc.deps.accounts.update(m.accountId, { telegramUserId: String(user.id) });
    const history = String((await world.tgSay(user, '/history')).body.text);
    expect(history).toContain('Your recent activity:');
    expect(history).toContain('1.25');
    expect(history).not.toContain('3.75');

    // The app's chat (the person's session).
    const chat = await call(`${svc.api}/chat`, { method: 'POST', cookie: m.cookie, body: { message: 'show my activity' } });
    expect(chat.status, JSON.stringify(chat.body)).toBe(200);
    const ids = (chat.body.activity?.entries ?? []).map((e: { id: string }) => e.id) as string[];
    expect(ids, JSON.stringify(chat.body)).toContain(sent.live);
    expect(ids).not.toContain(sent.test);

    // The test key's own connection: the test transfer only.
    const tc = await world.mcpClient(testKey);
    const entries = sc(await tc.callTool({ name: 'list_activity', arguments: { kind: 'transfer' } })).activity.entries as Array<{ id: string }>;
    await tc.close();
    expect(entries.map((e) => e.id)).toEqual([sent.test]);
  });
});
