import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Store } from '../store/index.js';
import type { Account, AccountsService } from '../accounts/accounts.js';
import type { KeysService } from '../keys/keys.js';
import type { Payment, PaymentsService } from '../payments/payments.js';
import type { FxService } from '../fx/rates.js';
import type { ChainService } from '../chain/chain.js';
import type { SettlementService } from '../settlement/settlement.js';
import type { Agent } from '../agent/agent.js';
import type { AgentRateLimit } from '../agent/rate-limit.js';
import type { TransfersService } from '../transfers/transfers.js';
import type { BillsService } from '../bills/bills.js';
import type { MarketsService } from '../markets/markets.js';
import type { WebhooksService } from '../webhooks/webhooks.js';
import type { Facilitator } from '../x402/facilitator.js';
import type { PaymentCancellation } from '../payments/cancel.js';
import type { RefundsService } from '../refunds/refunds.js';

/** What the HTTP layer is given by the composition root (src/main.ts). */
export interface AppDeps {
  config: Config;
  logger: Logger;
  store: Store;
  fx: FxService;
  chain: ChainService;
  accounts: AccountsService;
  keys: KeysService;
  payments: PaymentsService;
  /** On-chain settlement of checkout payments (src/settlement). */
  settlement?: SettlementService;
  /** x402 v2 facilitator (src/x402). */
  facilitator?: Facilitator;
  /** Webhook endpoint, signing secret, delivery log and the production URL guard (src/webhooks). */
  webhooks?: WebhooksService;
  /** Canceling pending payments (src/payments/cancel.ts). */
  cancellation?: PaymentCancellation;
  /** Refunds of settled payments (src/refunds). */
  refunds?: RefundsService;
  /** The agent engine core: turns, pending actions (confirm/cancel). */
  agent: Agent;
  /** AGENT_RATE_LIMIT: the one per-account turn counter every door (HTTP, chat, Telegram) takes from. */
  agentRateLimit?: AgentRateLimit;
  /** Money modules behind the agent's tools (docs/money-modules.md); the Telegram bridge uses transfers.onTransferSettled. */
  transfers?: TransfersService;
  bills?: BillsService;
  markets?: MarketsService;
  /** Readiness probes beyond the store (e.g. the chain). */
  readiness: Array<() => Promise<boolean>>;
  /** Extra fields for `GET /api/me` (e.g. the custodial wallet address). */
  accountExtras?: (account: Account) => Promise<Record<string, unknown>>;
  /** Extra fields for the authenticated payment record. */
  paymentExtras?: (payment: Payment) => Promise<Record<string, unknown>>;
  /** Extra fields for the public checkout view (the chain the page pays on). */
  checkoutExtras?: () => Record<string, unknown>;
  /** Routers added by later features (settlement, webhooks, agent, bridges), mounted under /api. */
  apiRouters: import('express').Router[];
  /** Routers outside /api (pages: /pay/:id, /app). */
  pageRouters: import('express').Router[];
}
