/**
 * The composition root of the core (docs/architecture.md): opens the store, boots the chain,
 * builds every domain service once and registers every background job with the one scheduler.
 * The doors are built afterwards from the `Core` it returns (src/doors.ts); only the process
 * handle (src/service.ts) sees the store and the chain.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { InstanceLease, openStore, type Store } from '../store/index.js';
import { createChain } from '../chain/boot.js';
import type { ChainService } from '../chain/chain.js';
import { storeRelayJournal } from '../chain/relay-journal.js';
import { FxService, loadFxTable } from '../fx/rates.js';
import { AccountsService } from '../accounts/accounts.js';
import { KeysService } from '../keys/keys.js';
import { backfillLivemode } from './livemode-backfill.js';
import { PaymentsService } from '../payments/payments.js';
import { PaymentCancellation } from '../payments/cancel.js';
import { merchantNameOf } from '../payments/merchant-name.js';
import { createWebhooks } from '../webhooks/webhooks.js';
import { WebhookEndpointsService } from '../webhooks/endpoints.js';
import { EventsService } from '../events/events.js';
import { SettlementService } from '../settlement/settlement.js';
import { WalletPayments } from '../settlement/wallet-payments.js';
import { auditSettledOnChain } from '../settlement/onchain-audit.js';
import { RefundsService } from '../refunds/refunds.js';
import { BillsService } from '../bills/bills.js';
import { loadBillerCatalogue } from '../bills/catalogue.js';
import { SandboxBillProvider } from '../bills/sandbox-provider.js';
import { MarketsService } from '../markets/markets.js';
import { TransfersService } from '../transfers/transfers.js';
import { QuotesService } from '../quotes/quotes.js';
import { ClaimsService } from '../claims/claims.js';
import { HttpRateSource, TableRateSource } from '../quotes/rate-source.js';
import { WalletDirectory } from '../wallet/directory.js';
import { Wallets } from '../wallet/wallets.js';
import { Agent, createEngine, createToolHandlers, type Engine, type PendingAction } from '../agent/index.js';
import { AgentRateLimit, SharedTurnCounter } from '../limits/agent-turns.js';
import { AttemptLedger } from '../settlement/attempts.js';
import { authCapturePort } from '../x402/auth-capture/port.js';
import { ManualCaptureSessions } from '../x402/auth-capture/sessions.js';
import { Facilitator } from '../x402/facilitator.js';
import { Discovery } from '../x402/discovery.js';
import { chainPort } from '../x402/exact-evm.js';
import { x402UrlFor } from '../x402/session.js';
import { SeenUpdates } from '../inbox/seen-updates.js';
import { Scheduler } from '../scheduler/scheduler.js';
import type { Core } from './core.js';
import { PendingActionsStore } from '../pending-actions/pending-actions.js';
import { noMetrics, type Metrics } from '../metrics/port.js';
import { prometheusMetrics } from '../metrics/prometheus.js';
import { RelayerHealth } from '../chain/relayer-health.js';
import { getAddress, parseEther } from 'viem';
import { SpendGuard } from '../policies/guard.js';
import { PoliciesService } from '../policies/policies.js';
import { recipientIdentities } from '../transfers/recipients.js';
import { ReceiptsService } from '../receipts/approval-receipts.js';
import { loadReceiptKey } from '../receipts/signing-key.js';

export type { Core } from './core.js';

export interface BuiltCore {
  core: Core;
  /** The process's own handles: for the process (and tests), never for a door. */
  store: Store;
  chain: ChainService;
  instance: InstanceLease;
  /** Every background job; started by `start`, stopped by the cleanup registered with `defer`. */
  scheduler: Scheduler;
}

export interface BuildCoreOptions {
  logger: Logger;
  /** The agent engine, instead of the one the config selects (tests score a scripted one). */
  engine?: Engine;
  /** Registers a cleanup; the caller runs them in reverse order at shutdown. */
  defer(cleanup: () => Promise<void> | void): void;
  /** Start-up phases for the timeline log. */
  phase?(name: string): void;
}

export async function buildCore(config: Config, o: BuildCoreOptions): Promise<BuiltCore> {
  const { logger, defer } = o;
  const phase = o.phase ?? (() => undefined);

  // Counted only when an operator can read it (METRICS_TOKEN, docs/metrics.md).
  const metrics: Metrics = config.METRICS_TOKEN ? prometheusMetrics() : noMetrics;
  const store: Store = await openStore(config, { onRetry: (_attempt, code) => metrics.storeRetry(code) });
  defer(() => store.close());
  // This process among the instances sharing the store (docs/deploy.md): work it marks as its
  // own is taken over by another instance only once this lease lapses.
  const instance = new InstanceLease(store);
  await instance.start();
  defer(() => instance.stop());
  metrics.instance(instance.id);
  const shared = config.DATABASE_URL !== undefined;
  phase('store');
  // Records from before test mode are live (docs/test-mode.md); PostgreSQL did it in migration 0015.
  await backfillLivemode(store);

  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, { currencyForCountry: (c) => fx.currencyForCountry(c) });
  // Test mode needs a chain of its own: only the embedded chain gives it one (docs/test-mode.md).
  const testMode = !config.CHAIN_RPC_URL;
  const keys = new KeysService(store, testMode);
  // Listens for revocations from every instance before any request is authenticated.
  await keys.start();
  defer(() => keys.stop());
  const payments = new PaymentsService(store, fx, config.PUBLIC_URL, metrics);
  if (metrics.enabled) payments.onTransition(async (tx, _before, after) => tx.afterCommit(() => metrics.paymentStatus(after.status)));
  // Webhooks (docs/webhooks.md): the outbox listens to every payment transition from here on;
  // the dispatcher resumes pending deliveries and stops before the store closes.
  const webhooks = await createWebhooks({ config, logger: logger.child({ module: 'webhooks' }), store, payments, instance, metrics });
  defer(() => webhooks.stop());
  await webhooks.start();
  phase('webhooks');

  const chain = await createChain({
    dataDir: config.DATA_DIR,
    rpcUrl: config.CHAIN_RPC_URL,
    chainId: config.CHAIN_ID,
    tokenAddress: config.TOKEN_ADDRESS as `0x${string}` | undefined,
    relayerPrivateKey: config.RELAYER_PRIVATE_KEY as `0x${string}` | undefined,
    walletMnemonic: config.WALLET_MNEMONIC,
    ...(config.ANVIL_PORT ? { anvil: { port: config.ANVIL_PORT } } : {}),
    logScan: { windowBlocks: BigInt(config.CHAIN_LOG_SCAN_BLOCKS), maxLookbackBlocks: BigInt(config.CHAIN_LOG_MAX_LOOKBACK_BLOCKS) },
    logger: logger.child({ module: 'chain' }),
    // Signed transactions are kept until the chain surely has them (docs/chain.md, "Power loss").
    journal: storeRelayJournal(store),
  });
  defer(() => chain.close());
  // The relayer's nonces are counted in this process: two live instances must never send from
  // one relayer key. Each instance gets its own RELAYER_PRIVATE_KEY from a pool (docs/deploy.md).
  // After a kill -9 the old lease lapses within its TTL: a restart waits that long at most.
  const relayer = await instance.hold(`relayer:${chain.relayerAddress.toLowerCase()}`, shared ? instance.ttlMs + 2_000 : 0);
  if (!relayer.ok) {
    throw new Error(
      `the relayer ${chain.relayerAddress} is in use by the running instance ${relayer.holder}: give each instance its own RELAYER_PRIVATE_KEY (docs/deploy.md)`,
    );
  }
  const relayerHealth = new RelayerHealth({
    chain,
    minGasWei: parseEther(config.RELAYER_MIN_GAS_BALANCE),
    logger: logger.child({ module: 'relayer' }),
    metrics,
  });
  relayerHealth.start(60_000);
  defer(() => relayerHealth.stop());
  phase('chain');
  // After a crash: anything reported settled must be on the chain (the journal put back what it lost).
  void auditSettledOnChain({ store, chain, logger: logger.child({ module: 'audit' }) }).catch((err: unknown) =>
    logger.warn({ err }, 'could not audit settled records against the chain'),
  );

  // Transfers, bills and markets (docs/money-modules.md): the money-moving modules behind the
  // agent's tools, over one directory of custodial wallets.
  const directory = new WalletDirectory(chain, store);
  // Every relayed move (transfers, bills, stakes, claims, refunds) has one owner attempt across
  // instances, on the same ledger as checkout and x402 settles (docs/settlement.md, issue 21).
  const moveAttempts = new AttemptLedger(store, instance, config.SETTLEMENT_CONFIRM_TIMEOUT + config.SETTLEMENT_CHAIN_DELAY, chain.relayerAddress);
  const confirm = { confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT, attempts: moveAttempts };
  const catalogue = loadBillerCatalogue();
  const transfers = new TransfersService(store, chain, fx, accounts, directory, { ...confirm, logger: logger.child({ module: 'transfers' }) });
  const bills = new BillsService(store, chain, fx, accounts, directory, catalogue, new SandboxBillProvider(catalogue), {
    ...confirm,
    logger: logger.child({ module: 'bills' }),
  });
  const markets = new MarketsService(store, chain, fx, accounts, directory, { ...confirm, logger: logger.child({ module: 'markets' }) });
  // Firm quotes (docs/quotes.md): the shipped table unless a live provider is configured.
  const rates = config.FX_RATES_URL ? new HttpRateSource({ url: config.FX_RATES_URL, base: fx }) : new TableRateSource(fx);
  const quotes = new QuotesService(store, rates, accounts, directory, transfers, { ttlMs: config.QUOTE_TTL });
  // Claim links to phones and emails with no account (docs/claims.md).
  const fault = config.NODE_ENV === 'test' ? config.FAULT_CLAIM_STEP : undefined;
  const claims = new ClaimsService(store, chain, fx, accounts, directory, {
    ...confirm,
    ttlMs: config.CLAIM_TTL,
    logger: logger.child({ module: 'claims' }),
    // Each step's `transfer.*` event, in the step's own transaction (docs/claims.md).
    onEvent: async (tx, type, accountId, data, nowMs, livemode) => void (await webhooks.outbox.recordTransfer(tx, type, accountId, data, nowMs, livemode)),
    // The kill -9 tests (test/claims/claims.crash.pg.test.ts) stop the process dead at one step.
    ...(fault ? { crashAt: (step: string) => void (step === fault && process.kill(process.pid, 'SIGKILL')) } : {}),
  });
  const wallets = new Wallets(chain, fx, { production: config.production, name: config.CHAIN_NAME, explorerUrl: config.CHAIN_EXPLORER_URL });

  // Spend policies (docs/policies.md): enforced around every governed tool call, whatever the door.
  const spendGuard = new SpendGuard({
    store,
    logger: logger.child({ module: 'policies' }),
    recipientIds: (accountId, recipient) => recipientIdentities({ accounts, wallets: directory }, accountId, recipient),
    livemodeOfKey: (keyId) => keys.livemodeOf(keyId),
    testModeSettles: testMode,
  });
  const policies = new PoliciesService(store, {
    passwordMatches: async (accountId, password) => {
      const account = await accounts.get(accountId);
      return account?.email ? (await accounts.authenticate({ email: account.email, password })).ok : false;
    },
    ownsKey: (accountId, keyId) => keys.owns(accountId, keyId),
    livemodeOfKey: (keyId) => keys.livemodeOf(keyId),
    // policy.updated is a real event: listed in /api/v1/events and delivered signed (docs/policies.md).
    recordEvent: async (tx, accountId, e, livemode) =>
      void (await webhooks.outbox.recordPolicy(tx, { id: e.id, accountId, subjectId: e.data.key_id ?? accountId, data: e.data, nowMs: e.created * 1000, livemode })),
  });
  // Pending actions carry the mode of the key that asked (docs/test-mode.md).
  const agentActions = new PendingActionsStore<PendingAction>(store, { livemodeOfKey: (id) => keys.livemodeOf(id) });
  const agent = new Agent({
    policies: {
      guard: spendGuard,
      fx,
      billCurrency: async (accountId, input) => {
        const q = await bills.quote(accountId, input);
        return q.ok ? q.quote.biller.currency : undefined;
      },
    },
    engine: o.engine ?? createEngine(config, logger.child({ module: 'agent' })),
    handlers: createToolHandlers({ accounts, payments, fx, publicUrl: config.PUBLIC_URL, wallets, transfers, bills, markets, quotes, claims, livemodeOfKey: (id) => keys.livemodeOf(id) }),
    actions: agentActions,
    logger: logger.child({ module: 'agent' }),
    accounts,
    instance,
    metrics,
  });
  // Before any confirm can run here: an action still `executing` was cut off by a stop
  // (with several instances: only those whose instance is gone; checked again periodically).
  await agent.recoverInterrupted();
  phase('agent');
  // One limiter for every door: AGENT_RATE_LIMIT counts an account's turns wherever they come
  // from. On PostgreSQL the count lives in the database, exact across instances.
  const agentTurns = new AgentRateLimit({ ...config.AGENT_RATE_LIMIT, counter: shared ? new SharedTurnCounter(store) : undefined });
  defer(() => agentTurns.close());

  // On-chain settlement of checkout payments (docs/settlement.md).
  const settlement = new SettlementService({
    store,
    payments,
    accounts,
    chain,
    logger: logger.child({ module: 'settlement' }),
    confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    depositGraceMs: config.DEPOSIT_WATCH_GRACE,
    // Each settle attempt is owned by this instance's lease (docs/settlement.md, "Several instances").
    owner: instance,
    relayer: chain.relayerAddress,
    chainDelayMs: config.SETTLEMENT_CHAIN_DELAY,
    testModeSettles: testMode,
  });
  defer(() => settlement.close());
  if (metrics.enabled) countSettles(settlement, metrics);
  // x402 v2 facilitator for merchants' own resource servers (docs/x402.md).
  const x402Port = chainPort(chain);
  const acFault = config.NODE_ENV === 'test' ? config.FAULT_AUTH_CAPTURE_STEP : undefined;
  const facilitator = new Facilitator({
    port: x402Port,
    store,
    logger: logger.child({ module: 'x402' }),
    receiptTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    // One owner per relayed authorization across instances (issue 21).
    ledger: new AttemptLedger(store, instance, config.SETTLEMENT_CONFIRM_TIMEOUT + config.SETTLEMENT_CHAIN_DELAY, chain.relayerAddress),
    authCapturePort: authCapturePort(chain),
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
    confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    attempts: moveAttempts,
    testModeSettles: testMode,
  });
  defer(() => refunds.close());

  const readiness = async () => {
    const [storeUp, chainUp, relayer] = await Promise.all([store.ping().catch(() => false), chain.ping().catch(() => false), relayerHealth.status()]);
    return { ok: storeUp && chainUp, details: { store: storeUp, chain: chainUp, relayer } };
  };
  const core: Core = {
    config,
    logger,
    fx,
    accounts,
    keys,
    payments,
    cancellation: new PaymentCancellation(payments, chain, (id) => settlement.nonceFor(id)),
    settlement,
    walletPayments: new WalletPayments({ store, chain, settlement }),
    refunds,
    webhooks: webhooks.service,
    webhookEndpoints: new WebhookEndpointsService(store, webhooks.secrets, (u, param) => webhooks.service.checkUrl(u, param)),
    events: new EventsService(store),
    facilitator,
    manualCapture,
    discovery: new Discovery({
      store,
      port: x402Port,
      publicUrl: config.PUBLIC_URL,
      recipientFor: (p) => settlement.recipientFor(p),
      merchantName: (p) => merchantNameOf(p, accounts),
    }),
    x402Port,
    wallets,
    agent,
    agentActions,
    agentTurns,
    policies,
    receipts: new ReceiptsService(store, await loadReceiptKey({ dataDir: config.DATA_DIR, configured: config.RECEIPT_SIGNING_KEY }), config.PUBLIC_URL),
    transfers,
    quotes,
    claims,
    bills,
    markets,
    seenUpdates: new SeenUpdates(store),
    ready: async () => (await readiness()).ok,
    readiness,
    metrics,
    present: {
      account: async (account) => ({ wallet: await wallets.summary(account) }),
      // As settlement.recipientFor, with the account's wallet index remembered (it never changes),
      // so answering a create costs no account read.
      payment: async (p) => {
        const index = p.payoutAddress ? undefined : await accounts.walletIndexOf(p.accountId);
        const payTo = p.payoutAddress ? getAddress(p.payoutAddress.toLowerCase()) : index !== undefined ? chain.custodialAddress(index) : null;
        return { pay_to: payTo, x402_url: x402UrlFor(config.PUBLIC_URL, p.id) };
      },
      checkout: () => ({ chainId: chain.chainId, tokenAddress: chain.tokenAddress, tokenSymbol: 'USDC' }),
    },
  };

  // Every background loop, each pass under its own store lease (one instance at a time).
  const scheduler = new Scheduler({ store, owner: instance.id, logger: logger.child({ module: 'scheduler' }), metrics });
  scheduler
    // Pending sessions past their expiry become `expired`; the sweep's compare-and-set keeps a
    // second sweeper harmless.
    .add({ name: 'sweep:expiry', everyMs: config.EXPIRY_SWEEP_INTERVAL, run: () => payments.sweepExpired() })
    // Settles stuck in `processing`, attempts that never reached the chain (also at start-up).
    .add({ name: 'reconcile:settlement', everyMs: config.RECONCILE_INTERVAL, atStart: true, run: () => settlement.reconcile() })
    // Transfers into checkout deposit addresses: settle, sweep, give back (docs/settlement.md); also finishes a sweep after a crash.
    .add({ name: 'watch:deposits', everyMs: config.DEPOSIT_WATCH_INTERVAL, atStart: true, run: () => settlement.deposits.pass() })
    .add({ name: 'reconcile:refunds', everyMs: config.RECONCILE_INTERVAL, atStart: true, run: () => refunds.reconcile() })
    // Manual capture: holds past their capture deadline are voided; authorizations a crash interrupted are resolved from the escrow.
    .add({ name: 'sweep:auth-capture', everyMs: config.AUTH_CAPTURE_SWEEP_INTERVAL, atStart: true, run: () => manualCapture?.sweep() ?? Promise.resolve(0) })
    // Transfers, bills and market stakes/payouts stopped part-way (receipt timeouts, provider outages, crashes).
    .add({
      name: 'reconcile:money',
      everyMs: config.RECONCILE_INTERVAL,
      run: async () => {
        const idle = config.MONEY_RECONCILE_IDLE;
        for (const t of await transfers.unfinished(idle)) await transfers.reconcile(t.id);
        for (const b of await bills.unfinished(idle)) await bills.reconcile(b.id);
        const m = await markets.unfinished(idle);
        for (const id of m.stakes) await markets.reconcileStakes(id);
        for (const id of m.payouts) await markets.settlePayouts(id);
      },
    })
    // Claim links: finish steps a crash or a timeout left in flight (at start: recovery), return expired ones.
    .add({ name: 'claims:sweep', everyMs: config.RECONCILE_INTERVAL, atStart: true, run: () => claims.sweep() })
    // Pending webhook deliveries without a runner (another instance stopped, a lost wake-up).
    .add({ name: 'webhooks:rescan', everyMs: config.WEBHOOK_RESCAN_INTERVAL, run: () => webhooks.dispatcher.rescan() });
  // With several instances, actions another instance was executing when it died.
  if (shared) scheduler.add({ name: 'agent:recover', everyMs: config.RECONCILE_INTERVAL, run: () => agent.recoverInterrupted() });
  // Stopped before the services above close (cleanups run in reverse).
  defer(() => scheduler.stop());

  return { core, store, chain, instance, scheduler };
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
