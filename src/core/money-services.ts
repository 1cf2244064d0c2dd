/**
 * The chain-dependent services over one chain, built once per chain by the composition root
 * (build.ts): settlement and its deposit watcher, refunds, the x402 facilitator and manual
 * capture, the custodial wallets and the money modules behind the agent's tools. With a chain
 * per mode (docs/test-mode.md, "Where test mode settles") there are two such sets, each serving
 * only its mode's records; with one chain for both modes, one set serves both.
 */
import { endReservationIn } from '../policies/guard.js';
import type { Address } from 'viem';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { InstanceLease, Store } from '../store/index.js';
import type { ChainService } from '../chain/chain.js';
import type { FxService } from '../fx/rates.js';
import type { AccountsService } from '../accounts/accounts.js';
import type { Payment, PaymentsService } from '../payments/payments.js';
import { PaymentCancellation } from '../payments/cancel.js';
import { merchantNameOf } from '../payments/merchant-name.js';
import type { createWebhooks } from '../webhooks/webhooks.js';
import { SettlementService } from '../settlement/settlement.js';
import { depositWatcherFor } from '../settlement/deposit-watcher-for.js';
import type { DepositWatcher } from '../settlement/deposit-watcher.js';
import { PaymentQueue } from '../settlement/payment-queue.js';
import { AttemptLedger } from '../settlement/attempts.js';
import { RefundsService } from '../refunds/refunds.js';
import { BillsService } from '../bills/bills.js';
import type { BillerCatalogue } from '../bills/catalogue.js';
import { SandboxBillProvider } from '../bills/sandbox-provider.js';
import { MarketsService } from '../markets/markets.js';
import { TransfersService } from '../transfers/transfers.js';
import { QuotesService } from '../quotes/quotes.js';
import { ClaimsService, claimContact, mask } from '../claims/claims.js';
import { HttpRateSource, TableRateSource } from '../quotes/rate-source.js';
import { WalletDirectory } from '../wallet/directory.js';
import { Wallets } from '../wallet/wallets.js';
import { authCapturePort } from '../x402/auth-capture/auth-capture-port.js';
import { ManualCaptureSessions } from '../x402/auth-capture/manual-capture-sessions.js';
import { EscrowRefunds } from '../x402/auth-capture/escrow-refunds.js';
import { Facilitator } from '../x402/facilitator.js';
import { Discovery } from '../x402/discovery.js';
import type { ExactEvmPort } from '../x402/exact-evm.js';
import type { Metrics } from '../metrics/metrics-port.js';

type Webhooks = Awaited<ReturnType<typeof createWebhooks>>;

export interface MoneyDeps {
  config: Config;
  store: Store;
  instance: InstanceLease;
  logger: Logger;
  fx: FxService;
  accounts: AccountsService;
  payments: PaymentsService;
  webhooks: Webhooks;
  catalogue: BillerCatalogue;
  metrics: Metrics;
}

/** One chain's services. */
export interface Money {
  chain: ChainService;
  /** The mode this set serves; undefined: both (one chain for both modes). */
  livemode: boolean | undefined;
  directory: WalletDirectory;
  transfers: TransfersService;
  bills: BillsService;
  markets: MarketsService;
  quotes: QuotesService;
  claims: ClaimsService;
  wallets: Wallets;
  settlement: SettlementService;
  /** Deposit addresses: a session paid by a plain token transfer from any wallet (src/settlement/deposit-watcher.ts). */
  deposits: DepositWatcher;
  cancellation: PaymentCancellation;
  facilitator: Facilitator;
  manualCapture: ManualCaptureSessions | undefined;
  discovery: Discovery;
  x402Port: ExactEvmPort;
  refunds: RefundsService;
}

export function buildMoney(chain: ChainService, livemode: boolean | undefined, d: MoneyDeps): Money {
  const { config, store, instance, fx, accounts, payments, webhooks } = d;
  const logger = livemode === false ? d.logger.child({ mode: 'test' }) : d.logger;
  const deadline = config.SETTLEMENT_CONFIRM_TIMEOUT + config.SETTLEMENT_CHAIN_DELAY;
  // Transfers, bills and markets (docs/money-modules.md): the money-moving modules behind the
  // agent's tools, over one directory of custodial wallets.
  const directory = new WalletDirectory(chain, store);
  // Every relayed move (transfers, bills, stakes, claims, refunds) has one owner attempt across
  // instances, on the same ledger as checkout and x402 settles (docs/settlement.md, issue 21).
  const moveAttempts = new AttemptLedger(store, instance, deadline, chain.relayerAddress);
  const confirm = { confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT, attempts: moveAttempts, ...(livemode !== undefined ? { livemode } : {}) };
  const { catalogue } = d;
  // A reservation a turn left `reserved` (it ended in a store error) is ended by the transfer's reconcile (docs/policies.md).
  const transfers = new TransfersService(store, chain, fx, accounts, directory, { ...confirm, logger: logger.child({ module: 'transfers' }), endSpend: endReservationIn });
  const bills = new BillsService(store, chain, fx, accounts, directory, catalogue, new SandboxBillProvider(catalogue), {
    ...confirm,
    logger: logger.child({ module: 'bills' }),
    endSpend: endReservationIn,
  });
  const markets = new MarketsService(store, chain, fx, accounts, directory, { ...confirm, logger: logger.child({ module: 'markets' }), endSpend: endReservationIn });
  // Firm quotes (docs/quotes.md): the shipped table unless a live provider is configured.
  const rates = config.FX_RATES_URL ? new HttpRateSource({ url: config.FX_RATES_URL, base: fx }) : new TableRateSource(fx);
  const quotes = new QuotesService(store, rates, accounts, directory, transfers, {
    ttlMs: config.QUOTE_TTL,
    claimContact: (text, country) => {
      const c = claimContact(text, country);
      return c && { contact: c.contact, label: mask({ contactKind: c.kind, contact: c.contact }) };
    },
  });
  // Claim links to phones and emails with no account (docs/claims.md).
  const fault = config.NODE_ENV === 'test' ? config.FAULT_CLAIM_STEP : undefined;
  const claims = new ClaimsService(store, chain, fx, accounts, directory, {
    ...confirm,
    ttlMs: config.CLAIM_TTL,
    logger: logger.child({ module: 'claims' }),
    endSpend: endReservationIn,
    // Each step's `transfer.*` event, in the step's own transaction (docs/claims.md).
    onEvent: async (tx, type, accountId, data, nowMs, mode) => void (await webhooks.outbox.recordTransfer(tx, type, accountId, data, nowMs, mode)),
    // The kill -9 tests (test/claims/claims.crash.pg.test.ts) stop the process dead at one step.
    ...(fault ? { crashAt: (step: string) => void (step === fault && process.kill(process.pid, 'SIGKILL')) } : {}),
  });
  // The live chain keeps its configured name and explorer; test mode's is known by its id.
  const names = livemode === false ? {} : { name: config.CHAIN_NAME, explorerUrl: config.CHAIN_EXPLORER_URL };
  const wallets = new Wallets(chain, fx, { production: config.production, ...names });

  // On-chain settlement of checkout payments (docs/settlement.md), and the deposit watcher beside
  // it on the same per-payment queue (a sweep never interleaves with a settle of its payment).
  const settlementLog = logger.child({ module: 'settlement' });
  const settlement = new SettlementService({
    store,
    payments,
    accounts,
    chain,
    logger: settlementLog,
    confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    queue: new PaymentQueue(),
    // Each settle attempt is owned by this instance's lease (docs/settlement.md, "Several instances").
    owner: instance,
    relayer: chain.relayerAddress,
    chainDelayMs: config.SETTLEMENT_CHAIN_DELAY,
    ...(livemode !== undefined ? { livemode } : {}),
  });
  const deposits = depositWatcherFor(settlement, {
    store,
    payments,
    chain,
    logger: settlementLog.child({ part: 'deposits' }),
    graceMs: config.DEPOSIT_WATCH_GRACE,
    ...(livemode !== undefined ? { livemode } : {}),
  });
  if (d.metrics.enabled) countSettles(settlement, d.metrics);
  // x402 v2 facilitator for merchants' own resource servers (docs/x402.md).
  const x402Port: ExactEvmPort = chain;
  const acFault = config.NODE_ENV === 'test' ? config.FAULT_AUTH_CAPTURE_STEP : undefined;
  const facilitator = new Facilitator({
    port: x402Port,
    store,
    logger: logger.child({ module: 'x402' }),
    receiptTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    // One owner per relayed authorization across instances (issue 21).
    ledger: new AttemptLedger(store, instance, deadline, chain.relayerAddress),
    authCapturePort: authCapturePort(chain),
    ...(livemode !== undefined ? { livemode } : {}),
    // The kill -9 test (test/x402/auth-capture.crash.pg.test.ts) stops the process between authorize and capture.
    ...(acFault ? { authCaptureCrashAt: (step: string) => void (step === acFault && process.kill(process.pid, 'SIGKILL')) } : {}),
  });
  // Manual-capture sessions over x402 auth-capture (docs/x402.md), when the chain has the escrow.
  const manualCapture = facilitator.authCapture
    ? new ManualCaptureSessions({
        ac: facilitator.authCapture,
        payments,
        store,
        record: (tx, type, p) => webhooks.outbox.record(tx, type, p),
        logger: logger.child({ module: 'auth-capture' }),
        holdMs: config.AUTH_CAPTURE_HOLD,
        refundWindowMs: config.AUTH_CAPTURE_REFUND_WINDOW,
        // A void after everything captured was refunded makes the payment `refunded` (docs/refunds.md).
        onHoldReleased: (tx, p) => refunds.completedByVoid(tx, p),
      })
    : undefined;
  // Refunds: paid on-chain from the merchant's settlement wallet back to the payer (docs/refunds.md).
  const refunds = new RefundsService({
    store,
    payments,
    accounts,
    chain,
    fx,
    outbox: webhooks.outbox,
    logger: logger.child({ module: 'refunds' }),
    endSpend: endReservationIn,
    confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    attempts: moveAttempts,
    ...(livemode !== undefined ? { livemode } : {}),
    // Manual-capture payments refund through the escrow, funded from the merchant's wallet (docs/refunds.md).
    ...(facilitator.authCapture ? { escrow: new EscrowRefunds(facilitator.authCapture, config.SETTLEMENT_CONFIRM_TIMEOUT) } : {}),
  });
  const discovery = new Discovery({
    store,
    port: x402Port,
    publicUrl: config.PUBLIC_URL,
    recipientFor: (p) => settlement.recipientFor(p),
    merchantName: (p) => merchantNameOf(p, accounts),
    ...(manualCapture ? { manualRequirements: (p: Payment, payTo: Address, nowMs: number) => manualCapture.requirements(p, payTo, nowMs) } : {}),
  });
  return {
    chain,
    livemode,
    directory,
    transfers,
    bills,
    markets,
    quotes,
    claims,
    wallets,
    settlement,
    deposits,
    cancellation: new PaymentCancellation(payments, chain, (id) => settlement.nonceFor(id)),
    facilitator,
    manualCapture,
    discovery,
    x402Port,
    refunds,
  };
}

/**
 * Counts every settle call by outcome and latency, wherever it comes from (the checkout, x402,
 * the app wallet), at the composition root so src/settlement stays free of metrics.
 */
function countSettles(settlement: SettlementService, metrics: Metrics): void {
  const settle = settlement.settle.bind(settlement);
  settlement.settle = async (...args) => {
    const started = performance.now();
    const r = await settle(...args);
    metrics.settlement(r.ok ? r.payment.status : r.reason, (performance.now() - started) / 1000);
    return r;
  };
}
