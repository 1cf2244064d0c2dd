import { Composer } from 'grammy';
import type { BotContext, TelegramDeps } from './context.js';
import { findOrCreateAccount } from './identity.js';
import { currencyKeyboard } from './ui.js';

/** /start: the Telegram user is the account; a custodial wallet comes with it. */
export function onboardingFeature(deps: TelegramDeps): Composer<BotContext> {
  const c = new Composer<BotContext>();

  c.command('start', async (ctx) => {
    const user = ctx.from;
    if (!user || user.is_bot) return;
    const { account, created } = await findOrCreateAccount(deps, user);
    ctx.account = account;
    if (created) deps.logger.info({ accountId: account.id }, 'Telegram account created');
    const address = deps.wallets.addressOf(account);
    const greeting = created
      ? `Welcome, ${account.name}! Your wallet is ready:\n${address}`
      : `Welcome back, ${account.name}. Your wallet:\n${address}`;
    const who = account.telegramUsername
      ? `Others can pay you as @${account.telegramUsername}.`
      : 'Set a Telegram username so others can pay you by @username.';
    await ctx.reply(`${greeting}\n\n${who}\n\nChoose your local currency (now ${account.localCurrency}):`, {
      reply_markup: currencyKeyboard(deps.fx, account.localCurrency),
    });
  });

  c.command('help', async (ctx) => {
    await ctx.reply(HELP);
  });

  return c;
}

export const HELP = [
  'I move money for you with a stablecoin (USDC) wallet. Tell me what to do in plain words:',
  '',
  '• send 5,000 KES to @amina',
  '• pay my IKEDC meter 45123456789 with 3000 naira',
  '• create a market: will it rain in Lagos on Friday?',
  '• what is my balance?',
  '',
  'Anything that moves money shows you the exact action first, with Confirm and Cancel buttons.',
  '',
  '/balance – your balance and its value in your currency',
  '/deposit – your wallet address (and test funds on the test network)',
  '/currency – change your local currency',
  '/history – recent transfers',
  '/help – this message',
].join('\n');
