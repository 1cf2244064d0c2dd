import { Composer } from 'grammy';
import type { Account } from '../../accounts/accounts.js';
import type { Transfer } from '../../transfers/transfers.js';
import { local } from '../../agent/money-format.js';
import type { BotContext, TelegramDeps } from './context.js';
import { requireAccount } from './ui.js';

export const HISTORY_LIMIT = 10;

const STATUS: Record<string, string> = { settled: '✅', submitted: '⏳ pending', failed: '❌ failed', quoted: '…', expired: 'expired' };

function when(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ') + ' UTC';
}

export function accountLabel(a: Pick<Account, 'name' | 'telegramUsername'> | undefined): string {
  if (!a) return 'someone';
  return a.telegramUsername ? `@${a.telegramUsername}` : a.name;
}

/** /history: the account's recent live transfers, sent and received, newest first. */
export function historyFeature(deps: TelegramDeps): Composer<BotContext> {
  const c = new Composer<BotContext>();

  c.command('history', async (ctx) => {
    const account = await requireAccount(ctx);
    if (!account) return;
    if (!deps.transfers) return void (await ctx.reply('Transfer history is not available yet.'));
    // Incoming transfers count only once they arrived. Telegram is the person's live door: a test
    // key's transfers (test mode, even on the embedded chain both modes share) are not listed (docs/test-mode.md).
    const rows = (await deps.transfers.history(account.id, { limit: HISTORY_LIMIT * 2, livemode: true }))
      .filter((t) => t.accountId === account.id || t.status === 'settled')
      .slice(0, HISTORY_LIMIT);
    if (rows.length === 0) {
      return void (await ctx.reply('No transfers yet. Try "send 500 KES to @amina" or /deposit to add funds.'));
    }
    const senders = new Map<string, Account | undefined>();
    for (const t of rows) {
      if (t.accountId !== account.id && !senders.has(t.accountId)) senders.set(t.accountId, await deps.accounts.get(t.accountId));
    }
    const lines = rows.map((t) => line(deps, account, t, senders));
    await ctx.reply(`Recent transfers:\n\n${lines.join('\n')}`);
  });

  return c;
}

function line(deps: TelegramDeps, me: Account, t: Transfer, senders: Map<string, Account | undefined>): string {
  const status = STATUS[t.status] ?? t.status;
  if (t.accountId === me.id) {
    return `↗ ${when(t.createdAt)} · ${local(deps.fx, t.sourceAmountMinor, t.sourceCurrency)} to ${t.recipientLabel} · ${status}`;
  }
  return `↘ ${when(t.settledAt ?? t.createdAt)} · ${local(deps.fx, t.recipientAmountMinor, t.recipientCurrency)} from ${accountLabel(senders.get(t.accountId))} · ${status}`;
}
