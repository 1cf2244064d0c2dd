import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { parseUnits } from 'viem';
import { startTestService, type TestService } from '../helpers/service.js';
import {
  buttonData,
  callbackUpdate,
  newUpdateId,
  startFakeBotApi,
  textUpdate,
  type ApiCall,
  type FakeBotApi,
  type TgUser,
} from './telegram-fake.js';
import { PendingActions } from '../../src/agent/pending-tool-call.js';
import { TelegramUpdates } from '../../src/bridges/telegram/dedupe.js';

/**
 * The Telegram bridge in webhook mode, end to end: real Update JSON posted to
 * POST /api/telegram/webhook with the secret header, a fake Bot API server on loopback
 * recording what the bot sends, the local agent engine, real transfers on the embedded anvil.
 */
const SECRET = 's3cret';
const WEBHOOK_URL = 'https://example.test/api/telegram/webhook';

let fake: FakeBotApi;
let svc: TestService;

beforeAll(async () => {
  fake = await startFakeBotApi();
  svc = await startTestService({
    TELEGRAM_BOT_TOKEN: '123:abc',
    TELEGRAM_API_ROOT: fake.url,
    TELEGRAM_WEBHOOK_URL: WEBHOOK_URL,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
  });
});

afterAll(async () => {
  await svc?.stop({ removeData: true });
  await fake?.close();
});

async function post(update: object, secret: string | null = SECRET) {
  const res = await fetch(`${svc.api}/telegram/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(secret === null ? {} : { 'X-Telegram-Bot-Api-Secret-Token': secret }) },
    body: JSON.stringify(update),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** Posts an update and expects Telegram's request to be acknowledged with 200. */
async function deliver(update: object) {
  const r = await post(update);
  expect(r.status, r.text).toBe(200);
}

const sentTo = (user: TgUser, match: (c: ApiCall) => boolean = () => true) => (c: ApiCall) =>
  Number(c.body.chat_id) === user.id && match(c);

/** The n-th message the bot sent to the user after `since` calls were recorded. */
async function nextMessage(user: TgUser, since: number, match: (c: ApiCall) => boolean = () => true) {
  return fake.waitFor('sendMessage', (c) => fake.calls.indexOf(c) >= since && sentTo(user, match)(c));
}

async function onboard(user: TgUser, currency: string) {
  const before = fake.calls.length;
  await deliver(textUpdate(user, '/start'));
  const welcome = await nextMessage(user, before, (c) => buttonData(c).includes(`cur:${currency}`));
  const tap = callbackUpdate(user, `cur:${currency}`, welcome.result.message_id);
  await deliver(tap);
  await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === tap.callback_query.id);
  await fake.waitFor('editMessageText', (c) => fake.calls.indexOf(c) >= before && Number(c.body.chat_id) === user.id);
  const account = await svc.deps.accounts.findBy({ telegramUserId: String(user.id) });
  expect(account?.localCurrency).toBe(currency);
  return account!;
}

const balance = async (walletIndex: number) => svc.deps.chain.balanceOf(svc.deps.chain.custodialAddress(walletIndex));

describe('Telegram bridge (webhook mode)', () => {
  it('registers the webhook at start with the secret and the update types it handles', async () => {
    const call = await fake.waitFor('setWebhook');
    expect(call.token).toBe('123:abc');
    expect(call.body).toMatchObject({ url: WEBHOOK_URL, secret_token: SECRET, allowed_updates: ['message', 'callback_query'] });
    expect(fake.callsTo('getMe').length).toBeGreaterThanOrEqual(1);
  });

  it('/start creates the account and wallet, stores the @username lower-cased, and asks for the currency', async () => {
    const alice: TgUser = { id: 910001, first_name: 'Alice', username: 'Alice_K' };
    const before = fake.calls.length;
    await deliver(textUpdate(alice, '/start'));
    const welcome = await nextMessage(alice, before);
    const account = await svc.deps.accounts.findBy({ telegramUserId: String(alice.id) });
    expect(account).toMatchObject({ name: 'Alice', telegramUserId: '910001', telegramUsername: 'alice_k' });
    expect(welcome.body.text).toContain(svc.deps.chain.custodialAddress(account!.walletIndex));
    const data = buttonData(welcome);
    for (const code of ['NGN', 'KES', 'GHS', 'ZAR', 'UGX', 'TZS', 'USD']) expect(data).toContain(`cur:${code}`);
    expect(data).not.toContain('cur:USDC');

    // Choosing a currency stores it, answers the tap and turns the question into the answer.
    const tap = callbackUpdate(alice, 'cur:KES', welcome.result.message_id);
    await deliver(tap);
    const answer = await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === tap.callback_query.id);
    expect(answer.body.text).toContain('KES');
    const edited = await fake.waitFor('editMessageText', (c) => Number(c.body.message_id) === welcome.result.message_id);
    expect(edited.body.text).toContain('KES');
    expect(edited.body.reply_markup).toBeUndefined();
    expect((await svc.deps.accounts.get(account!.id))?.localCurrency).toBe('KES');

    // A second /start finds the same account; a changed username is picked up on any update.
    const again = fake.calls.length;
    await deliver(textUpdate({ ...alice, username: 'Alice_New' }, '/start'));
    expect((await nextMessage(alice, again)).body.text).toContain('Welcome back');
    const same = await svc.deps.accounts.findBy({ telegramUserId: String(alice.id) });
    expect(same?.id).toBe(account!.id);
    expect(same?.telegramUsername).toBe('alice_new');
    expect(await svc.deps.accounts.findBy({ telegramUsername: 'alice_k' })).toBeUndefined();
  });

  it('a transfer between two Telegram users: Confirm moves it on-chain once, the recipient is told in their currency', async () => {
    const sara: TgUser = { id: 920001, first_name: 'Sara', username: 'sara_ke' };
    const bob: TgUser = { id: 920002, first_name: 'Bob', username: 'bob_ng' };
    const sender = await onboard(sara, 'KES');
    const recipient = await onboard(bob, 'NGN');
    const funded = await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(sender.walletIndex), parseUnits('50', 6), { nativeAmount: 0n });
    expect(funded.ok).toBe(true);
    const senderBefore = await balance(sender.walletIndex);
    const recipientBefore = await balance(recipient.walletIndex);

    const before = fake.calls.length;
    await deliver(textUpdate(sara, 'send 500 KES to @bob_ng'));
    const prompt = await nextMessage(sara, before, (c) => buttonData(c).length === 2);
    const [confirm, cancel] = buttonData(prompt);
    expect(confirm).toMatch(/^c:act_[0-9A-Za-z]+$/);
    expect(cancel).toBe(`x:${confirm!.slice(2)}`);
    expect(Buffer.byteLength(confirm!)).toBeLessThanOrEqual(64);
    const actionId = confirm!.slice(2);
    const pending = await svc.deps.store.table(PendingActions).get(actionId);
    expect(pending).toMatchObject({ status: 'pending', channel: 'telegram', accountId: sender.id });
    // The exact stored action is what the user sees.
    expect(prompt.body.text).toContain(pending!.description);
    expect(prompt.body.text).toContain('500.00 KES');
    // Nothing moved before Confirm.
    expect(await balance(recipient.walletIndex)).toBe(recipientBefore);

    const tap = callbackUpdate(sara, confirm!, prompt.result.message_id);
    await deliver(tap);
    await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === tap.callback_query.id);
    const outcome = await fake.waitFor(
      'editMessageText',
      (c) => Number(c.body.message_id) === prompt.result.message_id && String(c.body.text).includes('✅'),
    );
    expect(outcome.body.reply_markup).toBeUndefined();
    expect(outcome.body.text).toContain('Sent 500.00 KES to @bob_ng');

    // Settled on-chain: the recipient's wallet holds the stablecoin amount, the sender paid it plus the fee.
    const [transfer] = await svc.deps.transfers!.history(sender.id, { limit: 1 });
    expect(transfer).toMatchObject({ status: 'settled', recipientAccountId: recipient.id, sourceCurrency: 'KES', recipientCurrency: 'NGN' });
    expect(transfer!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balance(recipient.walletIndex)).toBe(recipientBefore + BigInt(transfer!.stablecoinAmount));
    expect(await balance(sender.walletIndex)).toBe(senderBefore - BigInt(transfer!.totalDebit));

    // The recipient is told, in NGN.
    const expectedNgn = svc.deps.fx.format(BigInt(transfer!.recipientAmountMinor), 'NGN');
    const notice = await nextMessage(bob, before, (c) => String(c.body.text).includes('received'));
    expect(notice.body.text).toContain(expectedNgn);
    expect(notice.body.text).toContain('@sara_ke');

    // A second tap on Confirm is answered and moves nothing.
    const edits = fake.callsTo('editMessageText').length;
    const second = callbackUpdate(sara, confirm!, prompt.result.message_id);
    await deliver(second);
    const again = await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === second.callback_query.id);
    expect(again.body.text).toMatch(/already/i);
    expect(await balance(recipient.walletIndex)).toBe(recipientBefore + BigInt(transfer!.stablecoinAmount));
    expect(await balance(sender.walletIndex)).toBe(senderBefore - BigInt(transfer!.totalDebit));
    expect((await svc.deps.transfers!.history(sender.id)).filter((t) => t.status === 'settled')).toHaveLength(1);
    // Updates of a chat run in order: once a later message is answered, the second tap is fully handled.
    const marker = fake.calls.length;
    await deliver(textUpdate(sara, '/help'));
    await nextMessage(sara, marker);
    expect(fake.callsTo('editMessageText').length).toBe(edits);

    // /history lists it for both sides.
    const h = fake.calls.length;
    await deliver(textUpdate(bob, '/history'));
    expect((await nextMessage(bob, h)).body.text).toContain(expectedNgn);
  });

  it('Cancel discards the action: nothing moves, and a later Confirm does nothing', async () => {
    const kim: TgUser = { id: 930001, first_name: 'Kim', username: 'kim_za' };
    const lee: TgUser = { id: 930002, first_name: 'Lee', username: 'lee_gh' };
    const sender = await onboard(kim, 'ZAR');
    const recipient = await onboard(lee, 'GHS');
    await svc.deps.chain.faucet(svc.deps.chain.custodialAddress(sender.walletIndex), parseUnits('20', 6), { nativeAmount: 0n });
    const senderBefore = await balance(sender.walletIndex);
    const recipientBefore = await balance(recipient.walletIndex);

    const before = fake.calls.length;
    await deliver(textUpdate(kim, 'send 100 ZAR to @lee_gh'));
    const prompt = await nextMessage(kim, before, (c) => buttonData(c).length === 2);
    const [confirm, cancel] = buttonData(prompt);

    const tap = callbackUpdate(kim, cancel!, prompt.result.message_id);
    await deliver(tap);
    const answer = await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === tap.callback_query.id);
    expect(answer.body.text).toMatch(/cancelled/i);
    const edited = await fake.waitFor('editMessageText', (c) => Number(c.body.message_id) === prompt.result.message_id);
    expect(edited.body.text).toMatch(/cancelled/i);
    expect(edited.body.reply_markup).toBeUndefined();
    expect((await svc.deps.store.table(PendingActions).get(confirm!.slice(2)))?.status).toBe('cancelled');

    const late = callbackUpdate(kim, confirm!, prompt.result.message_id);
    await deliver(late);
    const lateAnswer = await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === late.callback_query.id);
    expect(lateAnswer.body.text).toMatch(/cancelled/i);
    expect(await balance(sender.walletIndex)).toBe(senderBefore);
    expect(await balance(recipient.walletIndex)).toBe(recipientBefore);
    expect(await svc.deps.transfers!.history(sender.id)).toHaveLength(0);
  });

  it("someone else's Confirm button does nothing for them", async () => {
    const ann: TgUser = { id: 940001, first_name: 'Ann', username: 'ann_ug' };
    const eve: TgUser = { id: 940002, first_name: 'Eve', username: 'eve_tz' };
    await onboard(ann, 'UGX');
    await onboard(eve, 'TZS');
    const before = fake.calls.length;
    await deliver(textUpdate(ann, 'send 1000 UGX to @eve_tz'));
    const prompt = await nextMessage(ann, before, (c) => buttonData(c).length === 2);
    const [confirm] = buttonData(prompt);
    const tap = callbackUpdate(eve, confirm!, prompt.result.message_id);
    await deliver(tap);
    const answer = await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === tap.callback_query.id);
    expect(answer.body.text).toMatch(/no pending action/i);
    expect((await svc.deps.store.table(PendingActions).get(confirm!.slice(2)))?.status).toBe('pending');
  });

  it('/deposit shows the address and, on the embedded chain, mints test funds; /balance shows them in the local currency', async () => {
    const dee: TgUser = { id: 945001, first_name: 'Dee', username: 'dee_gh' };
    const account = await onboard(dee, 'GHS');
    const address = svc.deps.chain.custodialAddress(account.walletIndex);
    const before = fake.calls.length;
    await deliver(textUpdate(dee, '/deposit'));
    const deposit = await nextMessage(dee, before);
    expect(deposit.body.text).toContain(address);
    expect(buttonData(deposit)).toEqual(['faucet']);
    const start = await balance(account.walletIndex);
    const tap = callbackUpdate(dee, 'faucet', deposit.result.message_id);
    await deliver(tap);
    await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === tap.callback_query.id);
    await nextMessage(dee, before, (c) => String(c.body.text).startsWith('Added 100 USDC'));
    expect(await balance(account.walletIndex)).toBe(start + parseUnits('100', 6));

    const b = fake.calls.length;
    await deliver(textUpdate(dee, '/balance'));
    const shown = await nextMessage(dee, b);
    const ghs = svc.deps.fx.fromStablecoin(start + parseUnits('100', 6), 'GHS');
    expect(ghs.ok).toBe(true);
    expect(shown.body.text).toContain(svc.deps.fx.format(ghs.ok ? ghs.minor : 0n, 'GHS'));
    expect(shown.body.text).toContain(address);
  });

  it('refuses a request without the right secret token with JSON 401, before anything reaches the bot', async () => {
    const mallory: TgUser = { id: 950001, first_name: 'Mallory', username: 'mallory' };
    const update = textUpdate(mallory, '/start');
    const before = fake.calls.length;
    for (const secret of [null, '', 'wrong', `${SECRET}x`]) {
      const r = await post(update, secret);
      expect(r.status).toBe(401);
      expect(r.type).toMatch(/^application\/json/);
      expect(JSON.parse(r.text)).toEqual({ error: { type: 'authentication_error', message: expect.any(String) } });
    }
    expect(fake.calls.length).toBe(before);
    expect(await svc.deps.accounts.findBy({ telegramUserId: String(mallory.id) })).toBeUndefined();
    // The refused update was not recorded as seen: delivered properly, it is handled.
    expect(await svc.deps.store.table(TelegramUpdates).get(`123:${update.update_id}`)).toBeUndefined();
    await deliver(update);
    await nextMessage(mallory, before);
  });

  it('a body that is not an Update is a JSON 400', async () => {
    const r = await post({ hello: 'world' });
    expect(r.status).toBe(400);
    expect(r.type).toMatch(/^application\/json/);
  });

  it('ignores a redelivered update_id: one reply for two deliveries', async () => {
    const zed: TgUser = { id: 960001, first_name: 'Zed', username: 'zed_gb' };
    const before = fake.calls.length;
    const update = textUpdate(zed, '/help');
    await deliver(update);
    await deliver(update);
    // A later, different update is handled after both (same chat, in order), so by its reply
    // the duplicate would have produced its own.
    await deliver(textUpdate(zed, '/start'));
    await nextMessage(zed, before, (c) => String(c.body.text).includes('Welcome'));
    const replies = fake.callsTo('sendMessage').filter((c) => fake.calls.indexOf(c) >= before && Number(c.body.chat_id) === zed.id);
    expect(replies.filter((c) => String(c.body.text).includes('/balance'))).toHaveLength(1);
    expect(replies).toHaveLength(2);
  });

  it('acknowledges the webhook before the work is done (a slow reply never makes Telegram redeliver)', async () => {
    const yan: TgUser = { id: 970001, first_name: 'Yan', username: 'yan_in' };
    const release = fake.hold('sendMessage');
    try {
      const before = fake.calls.length;
      // Answered while the bot's sendMessage is still waiting on the (held) Bot API.
      await deliver(textUpdate(yan, '/help'));
      await fake.waitFor('sendMessage', (c) => fake.calls.indexOf(c) >= before && Number(c.body.chat_id) === yan.id);
    } finally {
      release();
    }
  });

  it('retries a rate-limited Bot API call (429 retry_after) and the message still arrives', async () => {
    const raj: TgUser = { id: 980001, first_name: 'Raj' };
    fake.fail('sendMessage', { error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } });
    const before = fake.calls.length;
    await deliver(textUpdate(raj, '/start'));
    await fake.waitFor('sendMessage', (c) => fake.calls.indexOf(c) >= before && Number(c.body.chat_id) === raj.id && c.result !== undefined);
    expect(fake.callsTo('sendMessage').filter((c) => fake.calls.indexOf(c) >= before && Number(c.body.chat_id) === raj.id)).toHaveLength(2);
    // No username: the account exists without one.
    expect((await svc.deps.accounts.findBy({ telegramUserId: String(raj.id) }))?.telegramUsername).toBeUndefined();
  });

  it('asks users without an account to /start, and answers stray buttons', async () => {
    const nia: TgUser = { id: 990001, first_name: 'Nia', username: 'nia_ke' };
    const before = fake.calls.length;
    await deliver(textUpdate(nia, 'send 5 USD to @bob_ng'));
    expect((await nextMessage(nia, before)).body.text).toContain('/start');
    const tap = callbackUpdate(nia, 'something-old', 1, newUpdateId());
    await deliver(tap);
    await fake.waitFor('answerCallbackQuery', (c) => c.body.callback_query_id === tap.callback_query.id);
  });
});
