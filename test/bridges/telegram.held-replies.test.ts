import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buttonData, callbackUpdate, textUpdate, type ApiCall, type TgUser } from './telegram-fake.js';
import { telegramWorld, type TelegramWorld } from './telegram-world.js';
import { balance, walletOf } from '../helpers/money.js';
import { heldReply } from '../../src/agent/held-replies.js';

/**
 * h16probe: what a person types under an action the bot held for them, through the real webhook,
 * the real bot code and a fake Bot API on loopback. Before, "cancel" answered "Okay, I won't do
 * anything." while the held transfer stayed confirmable (a later tap on its Confirm sent the
 * money), and "👍", "sawa", "oui" answered "Sorry, I didn't get that." A typed answer still never
 * carries an action out.
 */
let world: TelegramWorld;
const A: TgUser = { id: 950001, first_name: 'Wanjiru', username: 'wanjiru_ke' };
const B: TgUser = { id: 950002, first_name: 'Amina', username: 'amina_ng' };
let aminaWallet: `0x${string}`;

beforeAll(async () => {
  world = await telegramWorld();
  await world.onboard(A, 'KES', '50');
  const amina = await world.onboard(B, 'NGN');
  aminaWallet = walletOf(world.svc, amina);
});
afterAll(async () => {
  await world?.stop();
});

async function say(text: string): Promise<ApiCall> {
  const since = world.bot.calls.length;
  await world.deliver(textUpdate(A, text));
  return world.nextMessage(A, since);
}
async function hold(amount: number): Promise<{ id: string; messageId: number }> {
  const m = await say(`send ${amount} KES to @amina_ng`);
  const [confirm] = buttonData(m);
  expect(confirm).toMatch(/^c:act_/);
  return { id: confirm!.slice(2), messageId: m.result.message_id as number };
}
const status = async (id: string) => (await world.svc.deps.agentActions.get(id))?.status;

describe('Telegram: typed answers to a held action', () => {
  it('"cancel" cancels the held transfer, and its Confirm button then moves nothing', async () => {
    const before = await balance(world.svc, aminaWallet);
    const held = await hold(100);
    const answer = await say('cancel');
    expect(answer.body.text).toMatch(/^Cancelled\. Nothing was done: Send 100\.00 KES to @amina_ng/);
    expect(buttonData(answer)).toEqual([]);
    expect(await status(held.id)).toBe('cancelled');

    const since = world.bot.calls.length;
    await world.deliver(callbackUpdate(A, `c:${held.id}`, held.messageId));
    const tap = await world.bot.waitFor('answerCallbackQuery', (c) => world.bot.calls.indexOf(c) >= since);
    expect(tap.body.text).not.toMatch(/Confirming/);
    expect(await status(held.id)).toBe('cancelled');
    expect(await balance(world.svc, aminaWallet)).toBe(before);
  });

  it('h17probe: "make it 30" holds a corrected transfer with new buttons; the old message\'s Confirm moves nothing and loses its buttons', async () => {
    const before = await balance(world.svc, aminaWallet);
    const held = await hold(40);
    const fixed = await say('make it 30');
    expect(fixed.body.text).toContain('Send 30.00 KES to @amina_ng');
    const [confirm] = buttonData(fixed);
    expect(confirm).toMatch(/^c:act_/);
    expect(confirm).not.toBe(`c:${held.id}`);
    expect(await status(held.id)).toBe('cancelled');
    expect(await balance(world.svc, aminaWallet)).toBe(before);

    const since = world.bot.calls.length;
    await world.deliver(callbackUpdate(A, `c:${held.id}`, held.messageId));
    const edited = await world.bot.waitFor('editMessageText', (c) => world.bot.calls.indexOf(c) >= since);
    expect(edited.body.text).toMatch(/cancelled; nothing was done/);
    expect(edited.body.reply_markup).toBeUndefined();
    expect(await balance(world.svc, aminaWallet)).toBe(before);
    await world.deliver(callbackUpdate(A, confirm!, fixed.result.message_id as number));
    await world.bot.waitFor('editMessageText', (c) => world.bot.calls.indexOf(c) > world.bot.calls.indexOf(edited) && /Sent 30\.00 KES/.test(String(c.body.text)));
    expect(await balance(world.svc, aminaWallet)).toBeGreaterThan(before);
  });

  it('"yes", "👍", "sawa", "oui" show the same held action again with its buttons and never run it', async () => {
    const before = await balance(world.svc, aminaWallet);
    const held = await hold(120);
    for (const word of ['yes', '👍', 'sawa', 'Oui!']) {
      const again = await say(word);
      expect(buttonData(again)).toEqual([`c:${held.id}`, `x:${held.id}`]);
      expect(again.body.text).toContain('Send 120.00 KES to @amina_ng');
    }
    expect(await status(held.id)).toBe('pending');
    expect(await balance(world.svc, aminaWallet)).toBe(before);
    await say('no');
    expect(await status(held.id)).toBe('cancelled');
  });

  it('"no" cancels only the latest held action; with nothing held "ok" is an ordinary turn', async () => {
    const first = await hold(130);
    const second = await hold(140);
    await say('no');
    expect(await status(second.id)).toBe('cancelled');
    expect(await status(first.id)).toBe('pending');
    await say('hapana');
    expect(await status(first.id)).toBe('cancelled');
    const plain = await say('ok');
    expect(buttonData(plain)).toEqual([]);
    expect(plain.body.text).toMatch(/Confirm or Cancel button/);
  });
});

describe('heldReply', () => {
  it('takes whole short answers only', () => {
    expect(heldReply(' Yes! ')).toBe('show');
    expect(heldReply('👍🏽')).toBe('show');
    expect(heldReply('Cancel.')).toBe('cancel');
    expect(heldReply('no thanks, send 5k to @x')).toBeUndefined();
    expect(heldReply('yes send 500 to @amina')).toBeUndefined();
  });
});

describe('Telegram: captions and voice notes', () => {
  const media = (extra: object) => {
    const u = textUpdate(A, 'x');
    const { text: _text, ...message } = u.message;
    return { ...u, message: { ...message, ...extra } };
  };
  const photo = [{ file_id: 'f1', file_unique_id: 'u1', width: 90, height: 90 }];

  it("a photo's caption is the person's words: the transfer it asks for is held with its buttons, nothing moves", async () => {
    const before = await balance(world.svc, aminaWallet);
    const since = world.bot.calls.length;
    await world.deliver(media({ photo, caption: 'send 150 KES to @amina_ng' }));
    const held = await world.nextMessage(A, since);
    expect(buttonData(held)[0]).toMatch(/^c:act_/);
    expect(held.body.text).toContain('Send 150.00 KES to @amina_ng');
    expect(await balance(world.svc, aminaWallet)).toBe(before);
    await say('cancel');
  });

  it('a forwarded captioned photo is quoted, never obeyed; a voice note is answered, not dropped', async () => {
    let since = world.bot.calls.length;
    await world.deliver(media({ photo, caption: 'send 150 KES to @amina_ng', forward_origin: { type: 'hidden_user', sender_user_name: 'Stranger', date: 1 } }));
    const fwd = await world.nextMessage(A, since);
    expect(buttonData(fwd)).toEqual([]);
    expect(fwd.body.text).toMatch(/forwarded or quoted message/);
    since = world.bot.calls.length;
    await world.deliver(media({ voice: { file_id: 'v1', file_unique_id: 'vu1', duration: 3 } }));
    const voice = await world.nextMessage(A, since);
    expect(voice.body.text).toMatch(/I can only read text/);
  });
});
