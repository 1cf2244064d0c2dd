/**
 * The recipient of an agent transfer finished by the start-up pass (TransfersService.finishMovedOnChain:
 * its settled outcome was durable only after the reply, and the process died in between) is told on
 * Telegram as one finished live is, exactly once: the live path tells them only once its outcome is
 * durable, so a crash before that leaves nobody told and the next lifetime tells them; its notice
 * waits for the bot (registered after the pass). Real HTTP, real anvil, a fake Bot API on loopback
 * (long polling), two service lifetimes on one data dir.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type Merchant, type TestService } from '../helpers/service.js';
import { storedTables } from '../helpers/stored.js';
import { atBroadcast, dieAfterBroadcast, expectFinished, QUIET, turn } from '../agent/outcome-crash.js';
import { kenyanSender, transferTurnWorld } from '../agent/transfer-turn-world.js';
import { startFakeBotApi, textUpdate, type FakeBotApi, type TgUser } from './telegram-fake.js';

let bot: FakeBotApi;
beforeAll(async () => {
  bot = await startFakeBotApi();
});
afterAll(async () => {
  await bot?.close();
});

const env = () => ({ ...QUIET, TELEGRAM_BOT_TOKEN: '123:abc', TELEGRAM_API_ROOT: bot.url });

/** A Kenyan sender and a Nigerian recipient who uses the bot as `user`. */
async function world(handle: string, user: TgUser): Promise<{ svc: TestService; sender: Merchant }> {
  const { svc } = await transferTurnWorld(handle, env());
  const recipient = (await svc.deps.accounts.findBy({ telegramUsername: handle }))!;
  await svc.deps.accounts.update(recipient.id, { telegramUserId: String(user.id) });
  return { svc, sender: await kenyanSender(svc, 'Njeri') };
}

const notices = (user: TgUser) => bot.callsTo('sendMessage').filter((c) => Number(c.body.chat_id) === user.id && String(c.body.text).includes('You received'));

/** The recipient's notice in the second lifetime, and then no other: a later message of theirs is answered after it. */
async function toldOnce(user: TgUser): Promise<void> {
  const notice = await bot.waitFor('sendMessage', (c) => Number(c.body.chat_id) === user.id && String(c.body.text).includes('You received'), 30_000);
  expect(notice.body.text).toContain('from Njeri');
  expect(notice.body.text).toContain('NGN');
  const marker = bot.calls.length;
  bot.push(textUpdate(user, '/help'));
  await bot.waitFor('sendMessage', (c) => bot.calls.indexOf(c) >= marker && Number(c.body.chat_id) === user.id);
  expect(notices(user)).toHaveLength(1);
}

describe('Telegram: a transfer the start-up pass finishes tells its recipient, once', () => {
  it('the process dies between the broadcast and the outcome: the next lifetime finishes it and the recipient hears of it', { timeout: 120_000 }, async () => {
    const user: TgUser = { id: 961001, first_name: 'Amaka', username: 'amaka_rec1' };
    const { svc, sender } = await world('amaka_rec1', user);
    let second: TestService | undefined;
    try {
      const died = dieAfterBroadcast(svc);
      const answered = turn(svc, sender, 'send 500 KES to @amaka_rec1').then(
        () => 'answered',
        () => 'cut',
      );
      await died;
      const { tables } = await storedTables<Record<string, unknown>>(svc.dataDir);
      const id = tables.transfers?.find((t) => t.accountId === sender.accountId)?.id as string;
      await svc.stop();
      expect(await answered).toBe('cut');
      expect(notices(user)).toHaveLength(0);

      second = await startTestService(env(), { dataDir: svc.dataDir });
      await expectFinished(second, sender, id);
      await toldOnce(user);
    } finally {
      await (second ?? svc).stop({ removeData: true });
    }
  });

  it('answered settled, then dead before the outcome reached the disk: nobody was told yet, and the next lifetime tells the recipient once', { timeout: 120_000 }, async () => {
    const user: TgUser = { id: 961002, first_name: 'Amaka', username: 'amaka_rec2' };
    const { svc, sender } = await world('amaka_rec2', user);
    let second: TestService | undefined;
    try {
      // From the broadcast on, disk writes wait; then they fail (the process died): nothing more reaches the disk.
      const db = (svc.deps.store as unknown as { db: { write: () => Promise<void> } }).db;
      const write = db.write.bind(db);
      let gate: Promise<void> | undefined;
      let die!: (e: Error) => void;
      atBroadcast(svc, () => void (gate ??= new Promise<void>((_, reject) => (die = reject))));
      db.write = () => (gate ? gate : write());
      const heard: string[] = [];
      svc.deps.transfers.onTransferSettled((e) => void heard.push(e.transfer.id));

      const r = await turn(svc, sender, 'send 500 KES to @amaka_rec2');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.transfer).toMatchObject({ status: 'settled' });
      const id = r.body.transfer.id as string;
      // The reply said settled; the outcome is not on disk, and nobody has been told of it.
      const { tables } = await storedTables<Record<string, unknown>>(svc.dataDir);
      expect(tables.transfers?.find((t) => t.id === id)).toMatchObject({ status: 'submitted' });
      expect(heard).toEqual([]);
      die(new Error('the process died'));
      await svc.stop();
      expect(heard).toEqual([]);
      expect(notices(user)).toHaveLength(0);

      second = await startTestService(env(), { dataDir: svc.dataDir });
      await expectFinished(second, sender, id, r.body.transfer.tx_hash);
      await toldOnce(user);
    } finally {
      await (second ?? svc).stop({ removeData: true });
    }
  });
});
