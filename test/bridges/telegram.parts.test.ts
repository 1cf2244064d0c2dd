import { describe, it, expect } from 'vitest';
import { Writable } from 'node:stream';
import { rm } from 'node:fs/promises';
import { Bot } from 'grammy';
import { createLogger } from '../../src/lib/logger.js';
import { LowdbStore } from '../../src/store/index.js';
import { redactingLogger } from '../../src/bridges/telegram/redact.js';
import { markSeen, SEEN_UPDATES_KEPT, TelegramUpdates } from '../../src/bridges/telegram/dedupe.js';
import { tempDir } from '../helpers/service.js';

describe('Telegram bridge parts', () => {
  it('never logs the bot token carried by a failed request URL', async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) });
    const token = '123456:SECRET-token_value';
    const log = redactingLogger(createLogger('info', sink), token);
    // Port 9 (discard) on loopback refuses the connection: grammY throws an HttpError whose cause names the URL.
    const bot = new Bot(token, { client: { apiRoot: 'http://127.0.0.1:9' } });
    const err = await bot.api.sendMessage(1, 'x').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    log.error({ err }, 'failed');
    await new Promise((r) => setImmediate(r));
    expect(lines.join('')).toContain('Network request');
    expect(lines.join('')).not.toContain('SECRET-token_value');
  });

  it('remembers seen update ids, refuses a repeat, and keeps the table bounded', async () => {
    const dir = await tempDir();
    const store = await LowdbStore.open(dir);
    try {
      const keep = 50;
      expect(await markSeen(store, '1:1', { keep })).toBe(true);
      expect(await markSeen(store, '1:1', { keep })).toBe(false);
      for (let i = 2; i <= 120; i++) await markSeen(store, `1:${i}`, { keep });
      expect(await store.table(TelegramUpdates).count()).toBeLessThanOrEqual(keep + keep / 10);
      // The newest are kept (a repeat of one is still refused); the oldest went first.
      expect(await markSeen(store, '1:120', { keep })).toBe(false);
      expect(await store.table(TelegramUpdates).get('1:1')).toBeUndefined();
      expect(SEEN_UPDATES_KEPT).toBeGreaterThanOrEqual(1000);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
