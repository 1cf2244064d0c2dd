import { parseUnits } from 'viem';
import { expect } from 'vitest';
import type { Account } from '../../src/accounts/accounts.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { buttonData, callbackUpdate, startFakeBotApi, textUpdate, type ApiCall, type FakeBotApi, type TgUser } from './telegram-fake.js';

const SECRET = 's3cret';

/**
 * The Telegram door's test world: a fake Bot API on loopback and the real service (its embedded
 * anvil chain) taking real webhook updates. `env` adds to the service's settings (a fake Messages
 * API's, say).
 */
export interface TelegramWorld {
  bot: FakeBotApi;
  svc: TestService;
  /** Posts `update` to the webhook as Telegram would; the door answers 200. */
  deliver(update: object): Promise<void>;
  /** The bot's next message to `user` after call `since` that `match`es. */
  nextMessage(user: TgUser, since: number, match?: (c: ApiCall) => boolean): Promise<ApiCall>;
  /** `/start`, then the currency button; the account, with `usdc` in its wallet when given. */
  onboard(user: TgUser, currency: string, usdc?: string): Promise<Account>;
  stop(): Promise<void>;
}

export async function telegramWorld(env: Record<string, string> = {}): Promise<TelegramWorld> {
  const bot = await startFakeBotApi();
  const svc = await startTestService({
    TELEGRAM_BOT_TOKEN: '123:abc',
    TELEGRAM_API_ROOT: bot.url,
    TELEGRAM_WEBHOOK_URL: 'https://example.test/api/telegram/webhook',
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    AGENT_RATE_LIMIT: '1000/min',
    ...env,
  });
  const deliver = async (update: object) => {
    const res = await fetch(`${svc.api}/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': SECRET },
      body: JSON.stringify(update),
    });
    expect(res.status).toBe(200);
  };
  const nextMessage = (user: TgUser, since: number, match: (c: ApiCall) => boolean = () => true) =>
    bot.waitFor('sendMessage', (c) => bot.calls.indexOf(c) >= since && Number(c.body.chat_id) === user.id && match(c));
  const onboard = async (user: TgUser, currency: string, usdc?: string) => {
    const before = bot.calls.length;
    await deliver(textUpdate(user, '/start'));
    const welcome = await nextMessage(user, before, (c) => buttonData(c).includes(`cur:${currency}`));
    await deliver(callbackUpdate(user, `cur:${currency}`, welcome.result.message_id));
    await bot.waitFor('editMessageText', (c) => bot.calls.indexOf(c) >= before && Number(c.body.chat_id) === user.id);
    const account = (await svc.deps.accounts.findBy({ telegramUserId: String(user.id) }))!;
    if (usdc) {
      const funded = await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(account.walletIndex), parseUnits(usdc, 6), { nativeAmount: 0n });
      expect(funded.ok).toBe(true);
    }
    return account;
  };
  return {
    bot,
    svc,
    deliver,
    nextMessage,
    onboard,
    stop: async () => {
      await svc.stop({ removeData: true });
      await bot.close();
    },
  };
}
