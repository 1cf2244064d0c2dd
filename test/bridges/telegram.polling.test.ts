import { describe, it, expect, afterAll } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startFakeBotApi, textUpdate, type FakeBotApi, type TgUser } from './telegram-fake.js';

/**
 * Long polling (no TELEGRAM_WEBHOOK_URL): @grammyjs/runner against the fake Bot API's
 * getUpdates. Also: the seen update ids survive a restart, so an update Telegram hands out
 * again after a crash is not acted on twice.
 */
describe('Telegram bridge (long polling)', () => {
  let fake: FakeBotApi;
  let svc: TestService | undefined;
  afterAll(async () => {
    await svc?.stop({ removeData: true });
    await fake?.close();
  });

  it('polls getUpdates, answers, stops cleanly, and ignores a redelivered update after a restart', async () => {
    fake = await startFakeBotApi();
    const env = { TELEGRAM_BOT_TOKEN: '123:abc', TELEGRAM_API_ROOT: fake.url };
    svc = await startTestService(env);
    // getUpdates is refused while a webhook is set, so polling starts by removing it.
    await fake.waitFor('deleteWebhook');
    expect(fake.callsTo('setWebhook')).toHaveLength(0);

    const ola: TgUser = { id: 555001, first_name: 'Ola', username: 'ola_ng' };
    const first = textUpdate(ola, '/start');
    fake.push(first);
    const welcome = await fake.waitFor('sendMessage', (c) => Number(c.body.chat_id) === ola.id);
    expect(welcome.body.text).toContain('Welcome');
    expect((await svc.deps.accounts.findBy({ telegramUserId: String(ola.id) }))?.telegramUsername).toBe('ola_ng');

    // A clean stop: the pending long poll is aborted and close() returns.
    const dataDir = svc.dataDir;
    await svc.stop();
    svc = undefined;

    // Restarted on the same data, Telegram hands out the same update again: it is ignored.
    svc = await startTestService(env, { dataDir });
    const before = fake.calls.length;
    fake.push(first, textUpdate(ola, '/help'));
    await fake.waitFor('sendMessage', (c) => fake.calls.indexOf(c) >= before && String(c.body.text).includes('/balance'));
    const replies = fake.callsTo('sendMessage').filter((c) => fake.calls.indexOf(c) >= before);
    expect(replies.filter((c) => String(c.body.text).includes('Welcome'))).toHaveLength(0);
    expect(replies).toHaveLength(1);
  });
});
