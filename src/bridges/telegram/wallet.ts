import { Composer, InlineKeyboard } from 'grammy';
import { parseUnits } from 'viem';
import { local } from '../../agent/money-format.js';
import { formatUsdc } from '../../lib/money.js';
import type { BotContext, TelegramDeps } from './context.js';
import { CURRENCY_PREFIX, currencyKeyboard, isNotModified, localCurrencies, requireAccount } from './ui.js';

/** "Get test funds": what one tap mints, and the balance above which it is refused. */
export const FAUCET_AMOUNT = '100';
export const FAUCET_CAP = '1000';
export const FAUCET_DATA = 'faucet';

const UNREACHABLE = 'The network is not reachable right now. Try again in a moment.';

/** Test funds exist only on the embedded chain outside production (as /api/dev/faucet). */
export function faucetEnabled(deps: Pick<TelegramDeps, 'wallets'>): boolean {
  return deps.wallets.devTools;
}

/** /balance, /deposit (+ test funds), /currency and the currency buttons (also used by /start). */
export function walletFeature(deps: TelegramDeps): Composer<BotContext> {
  const c = new Composer<BotContext>();

  c.command('balance', async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    let w;
    try {
      w = await deps.wallets.summary(account);
    } catch (err) {
      deps.logger.warn({ err }, 'balance read failed');
      return void (await ctx.reply(UNREACHABLE));
    }
    const base = BigInt(w.balance_base_units);
    const conv = deps.fx.fromStablecoin(base, account.localCurrency);
    const value = conv.ok ? `≈ ${local(deps.fx, conv.minor, account.localCurrency)} (1 USDC = ${conv.rate} ${account.localCurrency})` : '';
    await ctx.reply([`Balance: ${formatUsdc(base)}`, value, `Wallet: ${w.address}`].filter(Boolean).join('\n'));
  });

  c.command('deposit', async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    const address = deps.wallets.addressOf(account);
    const lines = [
      'Send USDC to your wallet address:',
      address,
      `Network: chain id ${deps.wallets.chainId}. Only send USDC on this network.`,
    ];
    if (faucetEnabled(deps)) {
      lines.push('', 'This is a test network: tap below for free test USDC.');
      const kb = new InlineKeyboard().text(`Get test funds (${FAUCET_AMOUNT} USDC)`, FAUCET_DATA);
      return void (await ctx.reply(lines.join('\n'), { reply_markup: kb }));
    }
    await ctx.reply(lines.join('\n'));
  });

  c.callbackQuery(FAUCET_DATA, async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    if (!faucetEnabled(deps)) return void (await ctx.answerCallbackQuery({ text: 'Test funds are not available here.', show_alert: true }));
    const address = deps.wallets.addressOf(account);
    try {
      if ((await deps.wallets.balanceOf(address)) >= parseUnits(FAUCET_CAP, deps.wallets.decimals)) {
        return void (await ctx.answerCallbackQuery({ text: `You already have ${FAUCET_CAP} USDC or more of test funds.`, show_alert: true }));
      }
    } catch {
      return void (await ctx.answerCallbackQuery({ text: UNREACHABLE, show_alert: true }));
    }
    // Answer first: minting waits for two blocks and the button would spin meanwhile.
    await ctx.answerCallbackQuery({ text: 'Minting test funds…' });
    // Custodial wallets need no gas: the relayer pays it.
    const funded = await deps.wallets.faucet(address, parseUnits(FAUCET_AMOUNT, deps.wallets.decimals), { nativeAmount: 0n });
    if (!funded.ok) {
      deps.logger.warn({ reason: funded.reason }, 'Telegram faucet failed');
      return void (await ctx.reply(`Could not get test funds: ${funded.message}`));
    }
    const balance = await deps.wallets.balanceOf(address).catch(() => undefined);
    await ctx.reply(`Added ${FAUCET_AMOUNT} USDC of test funds.${balance === undefined ? '' : ` Balance: ${formatUsdc(balance)}.`}`);
  });

  c.command('currency', async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    await ctx.reply(`Your local currency is ${account.localCurrency}. Choose another:`, {
      reply_markup: currencyKeyboard(deps.fx, account.localCurrency),
    });
  });

  c.callbackQuery(new RegExp(`^${CURRENCY_PREFIX}([A-Z]{2,8})$`), async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    const code = ctx.match[1]!;
    if (!localCurrencies(deps.fx).includes(code)) {
      return void (await ctx.answerCallbackQuery({ text: `${code} is not supported.`, show_alert: true }));
    }
    const updated = (await deps.accounts.update(account.id, { localCurrency: code })) ?? account;
    ctx.account = updated;
    const name = deps.fx.currency(code)?.name;
    await ctx.answerCallbackQuery({ text: `Currency set to ${code}.` });
    const text = `Your local currency is now ${code}${name ? ` (${name})` : ''}. Amounts you type without a currency are in ${code}.\n\nTry /balance, /deposit, or tell me what to do, e.g. "send 500 ${code} to @amina". /help lists more.`;
    await ctx.editMessageText(text).catch((err: unknown) => {
      if (!isNotModified(err)) throw err;
    });
  });

  return c;
}
