import type { Context } from 'grammy';
import type { Logger } from 'pino';
import type { Config } from '../../config/config.js';
import type { Store } from '../../store/index.js';
import type { FxService } from '../../fx/rates.js';
import type { ChainService } from '../../chain/chain.js';
import type { Account, AccountsService } from '../../accounts/accounts.js';
import type { Agent } from '../../agent/agent.js';
import type { AgentRateLimit } from '../../agent/rate-limit.js';
import type { TransfersService } from '../../transfers/transfers.js';

/** What the bridge needs from the composition root; transfers is optional until it is wired. */
export interface TelegramDeps {
  config: Config;
  logger: Logger;
  store: Store;
  fx: FxService;
  chain: ChainService;
  accounts: AccountsService;
  agent: Agent;
  /**
   * AGENT_RATE_LIMIT, shared with the HTTP doors (the composition root passes its one instance);
   * a bridge built without it counts its own turns only.
   */
  agentRateLimit?: AgentRateLimit;
  transfers?: Pick<TransfersService, 'onTransferSettled' | 'history'>;
}

/** Context flavor: the sender's account, loaded once per update (identity.ts). */
export interface AccountFlavor {
  account?: Account;
}

export type BotContext = Context & AccountFlavor;
