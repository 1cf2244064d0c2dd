import { InlineKeyboard } from 'grammy';
import type { Account } from '../../accounts/accounts.js';
import type { FxService } from '../../fx/rates.js';
import type { BotContext } from './context.js';

/** Telegram's limits: message text 4096 characters, callback answer 200. */
const MESSAGE_MAX = 4096;
const ANSWER_MAX = 200;

export function clip(text: string, max = MESSAGE_MAX): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}

export const clipAnswer = (text: string) => clip(text, ANSWER_MAX);

export const START_FIRST = 'Send /start to open your wallet first.';

/** The account for a command, or a nudge to /start (callback queries get it as their answer). */
export async function requireAccount(ctx: BotContext): Promise<Account | undefined> {
  if (ctx.account) return ctx.account;
  if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: START_FIRST, show_alert: true });
  else await ctx.reply(START_FIRST);
  return undefined;
}

/** Fiat currencies users can pick (the stablecoin itself is not a local currency). */
export function localCurrencies(fx: FxService): string[] {
  return fx.supported().filter((c) => c !== 'USDC');
}

export const CURRENCY_PREFIX = 'cur:';

/** One button per currency of the FX table, three to a row; the current one is marked. */
export function currencyKeyboard(fx: FxService, current?: string): InlineKeyboard {
  const kb = new InlineKeyboard();
  localCurrencies(fx).forEach((code, i) => {
    if (i > 0 && i % 3 === 0) kb.row();
    kb.text(code === current ? `✓ ${code}` : code, `${CURRENCY_PREFIX}${code}`);
  });
  return kb;
}

/** Errors that only mean the message already shows what we wanted (a repeated edit). */
export function isNotModified(err: unknown): boolean {
  return err instanceof Error && /message is not modified/i.test(err.message);
}
