/**
 * The core every door is given (docs/architecture.md): the fully wired domain services, built
 * once by the composition root (build.ts). No field is optional and there is no raw store or
 * chain handle: a door parses its input, calls one of these, and shapes its own answer.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Account, AccountsService } from '../accounts/accounts.js';
import type { KeysService } from '../keys/keys.js';
import type { Payment, PaymentsService } from '../payments/payments.js';
import type { CheckoutSessions } from '../checkout-sessions/checkout-sessions.js';
import type { PaymentCancellation } from '../payments/cancel.js';
import type { FxService } from '../fx/rates.js';
import type { SettlementService } from '../settlement/settlement.js';
import type { DepositWatcher } from '../settlement/deposit-watcher.js';
import type { Agent } from '../agent/agent.js';
import type { PendingAction } from '../agent/index.js';
import type { PendingActionsStore } from '../pending-actions/pending-actions.js';
import type { AgentRateLimit } from '../limits/agent-turns.js';
import type { TransfersService } from '../transfers/transfers.js';
import type { QuotesService } from '../quotes/quotes.js';
import type { ClaimsService } from '../claims/claims.js';
import type { BillsService } from '../bills/bills.js';
import type { MarketsService } from '../markets/markets.js';
import type { WebhooksService } from '../webhooks/webhooks.js';
import type { WebhookEndpointsService } from '../webhooks/endpoints.js';
import type { EventsService } from '../events/events.js';
import type { RefundsService } from '../refunds/refunds.js';
import type { Facilitator } from '../x402/facilitator.js';
import type { ManualCaptureSessions } from '../x402/auth-capture/manual-capture-sessions.js';
import type { Discovery } from '../x402/discovery.js';
import type { ExactEvmPort } from '../x402/exact-evm.js';
import type { Wallets } from '../wallet/wallets.js';
import type { SeenUpdates } from '../inbox/seen-updates.js';
import type { RequestReplays } from '../inbox/request-replays.js';
import type { Metrics } from '../metrics/metrics-port.js';
import type { RelayerStatus } from '../chain/relayer-health.js';
import type { PoliciesService } from '../policies/policies.js';
import type { ReceiptsService } from '../receipts/approval-receipts.js';

/**
 * Checkout settlement as the doors call it: with a chain per mode, each call goes to the
 * payment's mode's chain (src/core/by-mode.ts).
 */
export type SettlementDoor = Pick<SettlementService, 'settle' | 'authorizationFor' | 'recipientFor' | 'nonceFor' | 'reconcile'> & {
  deposits: Pick<DepositWatcher, 'depositFor' | 'get' | 'uri' | 'pass'>;
};

/** What the doors may call on refunds; with a chain per mode the by-mode facade implements exactly this. */
export type RefundsDoor = Pick<RefundsService, 'create' | 'get' | 'list' | 'ofPayment' | 'succeededOf' | 'reconcile' | 'close'>;
/** What the doors may call on manual capture. */
export type ManualCaptureDoor = Pick<ManualCaptureSessions, 'requirements' | 'authorize' | 'capture' | 'void' | 'sweep'>;
/** What the doors may call on claim links. */
export type ClaimsDoor = Pick<ClaimsService, 'get' | 'byToken' | 'history' | 'create' | 'claim' | 'cancel' | 'sweep'>;
/** What the doors may call on cancellation. */
export type CancellationDoor = Pick<PaymentCancellation, 'cancel'>;

/** The chain-dependent services of one mode, for a door whose mode comes from its caller (a key, the app's switch). */
export interface ModeServices {
  facilitator: Facilitator;
  wallets: Wallets;
  x402Port: ExactEvmPort;
  transfers: TransfersService;
  claims: ClaimsService;
  quotes: QuotesService;
}

export interface Core {
  config: Config;
  logger: Logger;
  fx: FxService;
  accounts: AccountsService;
  keys: KeysService;
  payments: PaymentsService;
  /** The one view of a checkout session that every door renders (src/checkout-sessions). */
  checkoutSessions: CheckoutSessions;
  /** Canceling pending payments (src/payments/cancel.ts). */
  cancellation: CancellationDoor;
  /** On-chain settlement of checkout payments (src/settlement). */
  settlement: SettlementDoor;
  /**
   * The services of a mode: test mode's chain for `false` when each mode has its own
   * (docs/test-mode.md, "Where test mode settles"); the fields above dispatch by record.
   */
  forMode(livemode: boolean): ModeServices;
  /** Refunds of settled payments (src/refunds). */
  refunds: RefundsDoor;
  /** Webhook endpoint, signing secret, delivery log and the production URL guard (src/webhooks). */
  webhooks: WebhooksService;
  /** Several webhook endpoints per account. */
  webhookEndpoints: WebhookEndpointsService;
  /** The webhook bodies read back (the events API). */
  events: EventsService;
  /** x402 v2 facilitator (src/x402), and the terms the exact-EVM scheme checks a session against. */
  facilitator: Facilitator;
  /** Manual-capture sessions (x402 auth-capture), when the chain has the escrow. */
  manualCapture: ManualCaptureDoor | undefined;
  /** The public x402 bazaar listing of discoverable sessions (src/x402/discovery.ts). */
  discovery: Discovery;
  x402Port: Pick<ExactEvmPort, 'chainId' | 'tokenAddress' | 'eip712Domain'>;
  /** The network, custodial wallets, and the dev chain's faucet. */
  wallets: Wallets;
  /** The agent: turns, pending actions (confirm/cancel). */
  agent: Agent;
  /** The agent's actions as rows, per mode (`GET /api/agent/actions`, docs/test-mode.md). */
  agentActions: PendingActionsStore<PendingAction>;
  /** AGENT_RATE_LIMIT: the one per-account turn counter every door (HTTP, chat, Telegram) takes from. */
  agentTurns: AgentRateLimit;
  /** Spend policies: read and changed by the person (docs/policies.md); enforced inside the agent. */
  policies: PoliciesService;
  /** Signed receipts of confirmed actions and the key set that verifies them (docs/receipts.md). */
  receipts: ReceiptsService;
  /** Money modules behind the agent's tools (docs/money-modules.md). */
  transfers: TransfersService;
  /** Firm quotes: a transfer's price locked for QUOTE_TTL (src/quotes). */
  quotes: QuotesService;
  /** Claim links for phones and emails with no account (src/claims). */
  claims: ClaimsDoor;
  bills: BillsService;
  markets: MarketsService;
  /** Chat updates already taken in (the Telegram bridge's dedupe). */
  seenUpdates: SeenUpdates;
  /** First answers of requests with an Idempotency-Key on `POST /api/agent/settle`, replayed to retries. */
  requestReplays: RequestReplays;
  /** Readiness: the store and the chain answer. */
  ready(): Promise<boolean>;
  /** Readiness with what was checked: the store, the chain, the relayer's gas and nonce lag (`/readyz`). */
  readiness(): Promise<{ ok: boolean; details: { store: boolean; chain: boolean; relayer: RelayerStatus } }>;
  /** What `/metrics` serves (off, `enabled: false`, without METRICS_TOKEN). */
  metrics: Metrics;
  /** The fields the HTTP answers add beyond a record's own (they need the chain or settlement). */
  present: {
    /** `GET /api/me`: the custodial wallet, with its balance on the mode's chain. */
    account(account: Account, livemode?: boolean): Promise<{ wallet: Awaited<ReturnType<Wallets['summary']>> }>;
    /** The authenticated payment record: where it is paid to and its x402 URL. */
    payment(payment: Payment): Promise<{ pay_to: string | null; x402_url: string }>;
  };
}
