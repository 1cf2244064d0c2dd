import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonData, callbackUpdate, textUpdate, type TgUser } from './telegram-fake.js';
import { telegramWorld, type TelegramWorld } from './telegram-world.js';

/**
 * Telegram's /history is the chat's activity list (list_activity's entries, phrased by
 * src/agent/local/activity-i18n.ts) in the person's language: the words after the command when
 * there are some, else the language they last wrote to the bot in (h15tour), else the language
 * their Telegram app is set to. Before h14fix it was its own
 * English-only list. Real webhook updates, a fake Bot API on loopback, the local engine, the real
 * service on its embedded anvil chain.
 */
let world: TelegramWorld;
let bot: TelegramWorld['bot'];
let deliver: TelegramWorld['deliver'];
let nextMessage: TelegramWorld['nextMessage'];
const onboard = (user: TgUser, currency: string, fund: boolean) => world.onboard(user, currency, fund ? '500' : undefined);

beforeAll(async () => {
  world = await telegramWorld();
  ({ bot, deliver, nextMessage } = world);
});
afterAll(() => world?.stop());

/** A message from `user` whose Telegram app is set to `languageCode`. */
function fromApp(user: TgUser, text: string, languageCode: string) {
  const u = textUpdate(user, text);
  return { ...u, message: { ...u.message, from: { ...u.message.from, language_code: languageCode } } };
}

/** What the bot answers `user` to `update`. */
async function answer(user: TgUser, update: object): Promise<string> {
  const before = bot.calls.length;
  await deliver(update);
  return String((await nextMessage(user, before)).body.text);
}

describe('Telegram /history: the chat\'s activity list, in the person\'s language', () => {
  const awa: TgUser = { id: 952001, first_name: 'Awa', username: 'tg_hist_awa' };
  const juma: TgUser = { id: 952002, first_name: 'Juma', username: 'tg_hist_juma' };

  beforeAll(async () => {
    await onboard(juma, 'KES', false);
    await onboard(awa, 'XOF', true);
    const before = bot.calls.length;
    await deliver(textUpdate(awa, 'envoie 1000 FCFA à @tg_hist_juma'));
    const prompt = await nextMessage(awa, before, (c) => buttonData(c).length === 2);
    await deliver(callbackUpdate(awa, buttonData(prompt)[0]!, prompt.result.message_id));
    await bot.waitFor('editMessageText', (c) => Number(c.body.message_id) === prompt.result.message_id && String(c.body.text).includes('✅'));
  }, 60_000);

  it('the sender, whose app is in French: the same text the chat answers "montre mon historique" with', async () => {
    const history = await answer(awa, fromApp(awa, '/history', 'fr'));
    expect(history.split('\n')[0]).toBe('Vos opérations récentes :');
    expect(history).toMatch(/^• \d{4}-\d\d-\d\d Envoyé 1,000 XOF à @tg_hist_juma — réglé$/m);
    expect(history).not.toMatch(/Recent transfers|settled|Sent /);
    const chat = await answer(awa, fromApp(awa, 'montre mon historique', 'fr'));
    expect(history).toBe(chat);
  });

  it('the recipient: in the language of the app (English when the app\'s is none of the eight), then in Swahili from the words after the command, which it keeps', async () => {
    const pt = await answer(juma, fromApp(juma, '/history', 'pt-br'));
    expect(pt.split('\n')[0]).toBe('Suas movimentações recentes:');
    expect(pt).toMatch(/Recebido [\d,.]+ KES de @tg_hist_awa — concluído/);
    const de = await answer(juma, fromApp(juma, '/history', 'de'));
    expect(de.split('\n')[0]).toBe('Your recent activity:');
    expect(de).toMatch(/Received [\d,.]+ KES from @tg_hist_awa — settled/);
    const sw = await answer(juma, fromApp(juma, '/history nionyeshe miamala yangu', 'en'));
    expect(sw.split('\n')[0]).toBe('Shughuli zako za karibuni:');
    // Who sent it, as the old English-only list said ("from @…").
    expect(sw).toMatch(/^• \d{4}-\d\d-\d\d Ulipokea [\d,.]+ KES kutoka kwa @tg_hist_awa — imekamilika$/m);
    // The last words he wrote were Swahili: a bare /history stays in Swahili whatever the app says.
    expect((await answer(juma, fromApp(juma, '/history', 'pt-br'))).split('\n')[0]).toBe('Shughuli zako za karibuni:');
  });

  it('a Pidgin speaker whose app is set to English: a bare /history answers in the language they last wrote in, kept with their Telegram link', async () => {
    const emeka: TgUser = { id: 952004, first_name: 'Emeka', username: 'tg_hist_emeka' };
    await onboard(emeka, 'NGN', false);
    // Nothing written yet: the app's language.
    expect(await answer(emeka, fromApp(emeka, '/history', 'en'))).toBe('You have no activity yet.');
    await answer(emeka, fromApp(emeka, 'abeg how my money dey', 'en'));
    expect(await answer(emeka, fromApp(emeka, '/history', 'en'))).toBe('You never do anything yet.');
    // A message that shows no language (an amount, "ok") keeps the one known.
    await answer(emeka, fromApp(emeka, 'ok', 'en'));
    expect(await answer(emeka, fromApp(emeka, '/history', 'en'))).toBe('You never do anything yet.');
    expect((await world.svc.deps.accounts.findBy({ telegramUserId: String(emeka.id) }))?.telegramLanguage).toBe('pcm');
    // Writing in English again switches back.
    await answer(emeka, fromApp(emeka, 'what is my balance', 'en'));
    expect(await answer(emeka, fromApp(emeka, '/history', 'en'))).toBe('You have no activity yet.');
  });

  it('nothing yet: said in the person\'s language', async () => {
    const ana: TgUser = { id: 952003, first_name: 'Ana', username: 'tg_hist_ana' };
    await onboard(ana, 'PHP', false);
    expect(await answer(ana, fromApp(ana, '/history', 'fil'))).toBe('Wala ka pang transaksyon.');
  });
});
