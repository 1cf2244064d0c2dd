import type { MiddlewareFn } from 'grammy';
import type { User } from 'grammy/types';
import type { Account } from '../../accounts/accounts.js';
import type { BotContext, TelegramDeps } from './context.js';

/** Usernames are stored lower-cased without "@": recipients are looked up that way. */
export function normalUsername(username: string | undefined): string | undefined {
  return username ? username.toLowerCase() : undefined;
}

export function displayName(user: Pick<User, 'first_name' | 'last_name' | 'username'>): string {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ').trim();
  return (name || user.username || 'Telegram user').slice(0, 80);
}

/** Gives `account` the Telegram username (or none); a stale holder of the name loses it (AccountsService). */
export function claimUsername(deps: Pick<TelegramDeps, 'accounts'>, account: Account, username: string | undefined): Promise<Account> {
  return deps.accounts.claimTelegramUsername(account, username);
}

/** Finds the user's account, or creates it with a custodial wallet (the /start path). */
export async function findOrCreateAccount(deps: Pick<TelegramDeps, 'accounts'>, user: User): Promise<{ account: Account; created: boolean }> {
  const telegramUserId = String(user.id);
  const username = normalUsername(user.username);
  const existing = await deps.accounts.findBy({ telegramUserId });
  if (existing) return { account: await syncUsername(deps, existing, username), created: false };
  // Created without the username first, then claimed: a stale holder of the name must not block the signup.
  const made = await deps.accounts.create({ name: displayName(user), telegramUserId });
  if (!made.ok) {
    // Lost a race with a concurrent /start of the same user (unique telegramUserId).
    const again = await deps.accounts.findBy({ telegramUserId });
    if (!again) throw new Error(`could not create the Telegram account: ${made.message}`);
    return { account: await syncUsername(deps, again, username), created: false };
  }
  return { account: await syncUsername(deps, made.account, username), created: true };
}

async function syncUsername(deps: Pick<TelegramDeps, 'accounts'>, account: Account, username: string | undefined): Promise<Account> {
  return account.telegramUsername === username ? account : claimUsername(deps, account, username);
}

/** Loads `ctx.account` for the update's sender and keeps the stored @username current. */
export function loadAccount(deps: Pick<TelegramDeps, 'accounts'>): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    const user = ctx.from;
    if (user && !user.is_bot) {
      const account = await deps.accounts.findBy({ telegramUserId: String(user.id) });
      if (account) ctx.account = await syncUsername(deps, account, normalUsername(user.username));
    }
    await next();
  };
}
