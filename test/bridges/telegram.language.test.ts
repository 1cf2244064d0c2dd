import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUnits } from 'viem';
import { startTestService, type TestService } from '../helpers/service.js';
import { buttonData, callbackUpdate, startFakeBotApi, textUpdate, type ApiCall, type FakeBotApi, type TgUser } from './telegram-fake.js';
import { PendingActions } from '../../src/agent/pending-tool-call.js';

/**
 * Issue 20 rule 5 in the Telegram door: the Confirm step of a held action (the description and
 * the "confirm or cancel, it expires at …" line under it) is in the person's language, the one
 * the agent read from their words. Real webhook updates, a fake Bot API on loopback, the local
 * engine, the real service on its embedded anvil chain.
 */
const SECRET = 's3cret';
let bot: FakeBotApi;
let svc: TestService;

beforeAll(async () => {
  bot = await startFakeBotApi();
  svc = await startTestService({
    TELEGRAM_BOT_TOKEN: '123:abc',
    TELEGRAM_API_ROOT: bot.url,
    TELEGRAM_WEBHOOK_URL: 'https://example.test/api/telegram/webhook',
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    AGENT_RATE_LIMIT: '1000/min',
  });
});
afterAll(async () => {
  await svc?.stop({ removeData: true });
  await bot?.close();
});

async function deliver(update: object) {
  const res = await fetch(`${svc.api}/telegram/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Telegram-Bot-Api-Secret-Token': SECRET },
    body: JSON.stringify(update),
  });
  expect(res.status).toBe(200);
}
const nextMessage = (user: TgUser, since: number, match: (c: ApiCall) => boolean = () => true) =>
  bot.waitFor('sendMessage', (c) => bot.calls.indexOf(c) >= since && Number(c.body.chat_id) === user.id && match(c));

async function onboard(user: TgUser, currency: string, fund: boolean) {
  const before = bot.calls.length;
  await deliver(textUpdate(user, '/start'));
  const welcome = await nextMessage(user, before, (c) => buttonData(c).includes(`cur:${currency}`));
  await deliver(callbackUpdate(user, `cur:${currency}`, welcome.result.message_id));
  await bot.waitFor('editMessageText', (c) => bot.calls.indexOf(c) >= before && Number(c.body.chat_id) === user.id);
  const account = (await svc.deps.accounts.findBy({ telegramUserId: String(user.id) }))!;
  if (fund) {
    const funded = await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(account.walletIndex), parseUnits('500', 6), { nativeAmount: 0n });
    expect(funded.ok).toBe(true);
  }
  return account;
}

/** The Confirm step's last line; the clock time is the stored expiry's, in UTC. */
const LINES: [string, string, string, RegExp][] = [
  ['sw', 'KES', 'tuma 500 kwa @tg_lang_to', /^Thibitisha niendelee, au ghairi\. Muda wake unaisha saa \d\d:\d\d UTC\.$/],
  ['fr', 'XOF', 'envoie 1000 FCFA à @tg_lang_to', /^Confirmez pour continuer, ou annulez\. Expire à \d\d:\d\d UTC\.$/],
  ['es', 'MXN', 'mándale 200 pesos a @tg_lang_to', /^Confirma para continuar, o cancela\. Vence a las \d\d:\d\d UTC\.$/],
  ['hi', 'INR', '@tg_lang_to ko 500 rupaye bhej do', /^Aage badhne ke liye confirm kijiye, ya cancel kijiye\. Yeh \d\d:\d\d UTC par expire ho jayega\.$/],
  ['en', 'NGN', 'send 5000 NGN to @tg_lang_to', /^Confirm to go ahead, or cancel\. This expires at \d\d:\d\d UTC\.$/],
];

describe('Telegram: a held action is asked in the person\'s language', () => {
  it.each(LINES)('%s: the description and the confirm line under it are in the language of the message', async (lang, currency, text, last) => {
    const id = 940000 + LINES.findIndex((l) => l[0] === lang);
    const user: TgUser = { id, first_name: `U${lang}`, username: `tg_lang_${lang}` };
    if (lang === 'sw') await onboard({ id: 949999, first_name: 'To', username: 'tg_lang_to' }, 'KES', false);
    const account = await onboard(user, currency, true);
    const before = bot.calls.length;
    await deliver(textUpdate(user, text));
    const prompt = await nextMessage(user, before, (c) => buttonData(c).length === 2);
    const body = String(prompt.body.text);
    const pending = await svc.deps.store.table(PendingActions).get(buttonData(prompt)[0]!.slice(2));
    expect(pending).toMatchObject({ status: 'pending', accountId: account.id });
    expect(body.startsWith(pending!.description)).toBe(true);
    const lines = body.split('\n');
    expect(lines[lines.length - 1]).toMatch(last);
    expect(lines[lines.length - 1]).toContain(`${pending!.expiresAt.slice(11, 16)} UTC`);
    if (lang !== 'en') expect(body).not.toMatch(/Confirm to go ahead|This expires/);
  });
});
