import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonData, textUpdate, type TgUser } from './telegram-fake.js';
import { telegramWorld, type TelegramWorld } from './telegram-world.js';
import { PendingActions } from '../../src/agent/pending-tool-call.js';

/**
 * Issue 20 rule 5 in the Telegram door: the Confirm step of a held action (the description and
 * the "confirm or cancel, it expires at …" line under it) is in the person's language, the one
 * the agent read from their words. Real webhook updates, a fake Bot API on loopback, the local
 * engine, the real service on its embedded anvil chain.
 */
let world: TelegramWorld;
let svc: TelegramWorld['svc'];
let bot: TelegramWorld['bot'];
let deliver: TelegramWorld['deliver'];
let nextMessage: TelegramWorld['nextMessage'];
const onboard = (user: TgUser, currency: string, fund: boolean) => world.onboard(user, currency, fund ? '500' : undefined);

beforeAll(async () => {
  world = await telegramWorld();
  ({ bot, svc, deliver, nextMessage } = world);
});
afterAll(() => world?.stop());

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
