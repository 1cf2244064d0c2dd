import type { MiddlewareFn } from 'grammy';
import type { Logger } from 'pino';
import type { SeenUpdates } from '../../inbox/seen-updates.js';
import type { BotContext } from './context.js';

export { markSeen, SEEN_UPDATES_KEPT, TelegramUpdates, type SeenUpdate } from '../../inbox/seen-updates.js';

/** Ignores an update already taken in (src/inbox/seen-updates.ts keeps the ids). */
export function dedupeUpdates(seen: Pick<SeenUpdates, 'markSeen'>, logger: Logger): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const key = `${ctx.me.id}:${ctx.update.update_id}`;
    if (!(await seen.markSeen(key))) {
      logger.info({ updateId: ctx.update.update_id }, 'duplicate Telegram update ignored');
      return;
    }
    await next();
  };
}
