import type { Context } from 'grammy';
import type { Account } from '../../accounts/accounts.js';
import type { Core } from '../../core/core.js';

/**
 * What the bridge takes from the core (src/core/core.ts). `agentTurns` is AGENT_RATE_LIMIT,
 * the one counter shared with the HTTP doors.
 */
export type TelegramDeps = Pick<Core, 'config' | 'logger' | 'fx' | 'accounts' | 'agent' | 'agentTurns' | 'transfers' | 'wallets' | 'seenUpdates'>;

/** Context flavor: the sender's account, loaded once per update (identity.ts). */
export interface AccountFlavor {
  account?: Account;
}

export type BotContext = Context & AccountFlavor;
