/**
 * The composition root of the core (docs/architecture.md): opens the store, boots the chains
 * (chains.ts), builds every domain service once (the chain-dependent ones once per chain, money-services.ts) and registers every background job with the one scheduler.
 * The doors are built afterwards from the `Core` it returns (src/doors.ts); only the process
 * handle (src/service.ts) sees the store and the chain.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import { InstanceLease, openStore, type Store } from '../store/index.js';
import type { ChainService } from '../chain/chain.js';
import { FxService, loadFxTable } from '../fx/rates.js';
import { AccountsService } from '../accounts/accounts.js';
import { KeysService } from '../keys/keys.js';
import { backfillDepositModes, backfillLivemode } from './livemode-backfill.js';
import { PaymentsService } from '../payments/payments.js';
import { createWebhooks } from '../webhooks/webhooks.js';
import { WebhookEndpointsService } from '../webhooks/endpoints.js';
import { EventsService } from '../events/events.js';
import { auditSettledOnChain } from '../settlement/onchain-audit.js';
import { loadBillerCatalogue } from '../bills/catalogue.js';
import { Agent, createEngine, createToolHandlers, type Engine, type PendingAction } from '../agent/index.js';
import { AgentRateLimit, SharedTurnCounter } from '../limits/agent-turns.js';
import { x402UrlFor } from '../x402/session.js';
import { SeenUpdates } from '../inbox/seen-updates.js';
import { RequestReplays } from '../inbox/request-replays.js';
import { Scheduler } from '../scheduler/scheduler.js';
import type { Core } from './core.js';
import { bootChains } from './chains.js';
import { buildMoney, type Money } from './money-services.js';
import { CheckoutSessions } from '../checkout-sessions/checkout-sessions.js';
import { cancellationByMode, claimsByMode, manualCaptureByMode, modeServices, pick, refundsByMode, settlementByMode, settlementOf, toolHandlersByMode, type Modes } from './by-mode.js';
import { PendingActionsStore } from '../pending-actions/pending-actions.js';
import { noMetrics, type Metrics } from '../metrics/metrics-port.js';
import { prometheusMetrics } from '../metrics/prometheus.js';
import { getAddress } from 'viem';
import { SpendGuard } from '../policies/guard.js';
import { PoliciesService } from '../policies/policies.js';
import { recipientIdentities } from '../transfers/recipients.js';
import { Transfers } from '../transfers/transfer-row.js';
import { BillPayments } from '../bills/bills.js';
import { turnAccounts } from '../accounts/turn-accounts.js';
import { ReceiptsService } from '../receipts/approval-receipts.js';
import { loadReceiptKey } from '../receipts/signing-key.js';

export type { Core } from './core.js';

export interface BuiltCore {
  core: Core;
  /** The process's own handles: for the process (and tests), never for a door. */
  store: Store;
  chain: ChainService;
  /** Test mode's own chain beside a real network (docs/test-mode.md); undefined with the embedded chain alone. */
  testChain: ChainService | undefined;
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
  await backfillDepositModes(store);

  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store, { currencyForCountry: (c) => fx.currencyForCountry(c) });
  // A revoke answers once every live instance dropped the key; one that did not ack in time
  // had stopped serving cached keys by then (src/store/cache-channel.ts): worth a warning.
  const keys = new KeysService(store, {
    id: instance.id,
    onUnacked: (peers, notice) => logger.warn({ peers, notice }, 'api key revocation: instances did not ack; their cached keys had lapsed'),
  });
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

  const chains = await bootChains(config, { store, instance, shared, logger, metrics, minGasEther: config.RELAYER_MIN_GAS_BALANCE, defer });
  const chain = chains.live;
  phase('chain');
  // After a crash: anything reported settled must be on the chain (the journal put back what it
  // lost). A record is on its mode's chain: a hash either chain has mined counts.
  const testChain = chains.test;
  const auditChain: Pick<ChainService, 'waitForReceipt'> = testChain
    ? { waitForReceipt: async (h, t) => ((await chain.waitForReceipt(h, t)).status === 'success' ? { status: 'success' as const } : testChain.waitForReceipt(h, t)) }
    : chain;
  void auditSettledOnChain({ store, chain: auditChain as ChainService, logger: logger.child({ module: 'audit' }) }).catch((err: unknown) =>
    logger.warn({ err }, 'could not audit settled records against the chain'),
  );

  // The chain-dependent services, once per chain (money-services.ts). With the embedded chain alone one
  // set serves both modes; beside a real network, test mode's set runs on test mode's chain and
  // the core's fields dispatch by the record's mode (by-mode.ts).
  const moneyDeps = { config, store, instance, logger, fx, accounts, payments, webhooks, catalogue: loadBillerCatalogue(), metrics };
  const live = buildMoney(chain, testChain ? true : undefined, moneyDeps);
  const modes: Modes | undefined = testChain ? { live, test: buildMoney(testChain, false, moneyDeps) } : undefined;
  const forMode = (livemode: boolean) => modeServices(modes ? pick(modes, livemode) : live);
  const { wallets, transfers, bills, markets, quotes } = live;
  const claims = modes ? claimsByMode(modes) : live.claims;
  const directory = live.directory;

  // Spend policies (docs/policies.md): enforced around every governed tool call, whatever the door.
  const spendGuard = new SpendGuard({
    store,
    logger: logger.child({ module: 'policies' }),
    recipientIds: (accountId, recipient, reads) => recipientIdentities({ accounts: turnAccounts(accounts, reads), wallets: directory }, accountId, recipient),
    livemodeOfKey: (keyId) => keys.livemodeOf(keyId),
    breaker: config.POLICY_BREAKER,
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
  const livemodeOfKey = (id: string) => keys.livemodeOf(id);
  const handlersOver = (m: Money) =>
    createToolHandlers({ accounts, payments, fx, publicUrl: config.PUBLIC_URL, wallets: m.wallets, transfers: m.transfers, bills: m.bills, markets: m.markets, quotes: m.quotes, claims: m.claims, livemodeOfKey, refunds: { create: (...a) => m.refunds.create(...a) }, manualCapture: () => m.manualCapture });
  const agent = new Agent({
    policies: {
      guard: spendGuard,
      fx,
      billCurrency: async (accountId, input) => {
        const q = await bills.quote(accountId, input);
        return q.ok ? q.quote.biller.currency : undefined;
      },
      paymentOf: async (accountId, id, keyId, livemode) => payments.getForAccount(accountId, id, livemode === false ? false : keyId ? await keys.livemodeOf(keyId) : true),
    },
    engine: o.engine ?? createEngine(config, logger.child({ module: 'agent' })),
    // A test key's tools move money on test mode's chain only (by-mode.ts).
    handlers: modes ? toolHandlersByMode(handlersOver(modes.live), handlersOver(modes.test), livemodeOfKey) : handlersOver(live),
    actions: agentActions,
    livemodeOfKey,
    logger: logger.child({ module: 'agent' }),
    accounts,
    instance,
    metrics,
  });
  // Before any confirm can run here: an action still `executing` was cut off by a stop
  // (with several instances: only those whose instance is gone; checked again periodically).
  await agent.recoverInterrupted();
  // Before the doors open: an agent turn's settled outcome is made durable after its reply, so a
  // crash in between left it `submitted`; the chain finishes it (docs/money-modules.md). Each chain's own.
  for (const m of modes ? [modes.live, modes.test] : [live]) await m.transfers.finishMovedOnChain((owner) => instance.isLive(owner));
  phase('agent');
  // One limiter for every door: AGENT_RATE_LIMIT counts an account's turns wherever they come
  // from. On PostgreSQL the count lives in the database, exact across instances.
  const agentTurns = new AgentRateLimit({ ...config.AGENT_RATE_LIMIT, counter: shared ? new SharedTurnCounter(store) : undefined });
  defer(() => agentTurns.close());

  const sets = modes ? [modes.live, modes.test] : [live];
  for (const m of sets) defer(() => m.settlement.close());
  const settlement = modes ? settlementByMode(modes, payments) : settlementOf(live);
  const manualCapture = modes ? manualCaptureByMode(modes) : live.manualCapture;
  const refunds = modes ? refundsByMode(modes) : live.refunds;
  for (const m of sets) defer(() => m.refunds.close());
  const facilitator = live.facilitator;
  const x402Port = live.x402Port;

  // The one view of a checkout session every door renders (src/checkout-sessions, docs/checkout.md).
  const checkoutSessions = new CheckoutSessions({
    payments,
    accounts,
    settlement,
    refunds,
    // A session pays on its mode's chain (docs/test-mode.md).
    chainOf: (p) => {
      const m = modes ? pick(modes, p.livemode !== false) : live;
      return { network: m.wallets.network, tokenAddress: m.chain.tokenAddress };
    },
    tokenSymbol: 'USDC',
    logger,
    // `pay` settles on the session's mode's chain (src/checkout-sessions/pay.ts).
    rails: (p) => {
      const m = modes ? pick(modes, p.livemode !== false) : live;
      return { store, chain: m.chain, settlement: m.settlement, x402Port: m.x402Port };
    },
  });
  // Money at a deposit address pays its session through the registered deposit-address method
  // (src/checkout-sessions/methods/deposit-address.ts), like every other way to pay.
  for (const m of sets) m.deposits.handOver((p, input) => checkoutSessions.pay(p.id, input));
  const readiness = async () => {
    const [storeUp, c] = await Promise.all([store.ping().catch(() => false), chains.readiness()]);
    // Test mode's chain counts too: a test payment must settle as surely as a live one.
    const chainUp = c.chain && (c.test?.chain ?? true);
    return { ok: storeUp && chainUp, details: { store: storeUp, chain: chainUp, relayer: c.relayer, ...(c.test ? { test: c.test } : {}) } };
  };
  const core: Core = {
    config,
    logger,
    fx,
    accounts,
    keys,
    payments,
    checkoutSessions,
    cancellation: modes ? cancellationByMode(modes) : live.cancellation,
    settlement,
    forMode,
    refunds,
    webhooks: webhooks.service,
    webhookEndpoints: new WebhookEndpointsService(store, webhooks.secrets, (u, param) => webhooks.service.checkUrl(u, param), webhooks.endpoints),
    events: new EventsService(store),
    facilitator,
    manualCapture,
    // The public bazaar lists live sessions' terms on the live chain.
    discovery: live.discovery,
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
    requestReplays: new RequestReplays(store, undefined, {
      instance,
      // An interrupted request's records, by the request id the money modules' rows carry (src/api/agent-interrupted.ts).
      recorded: async (accountId, requestId) => ({
        transfers: await store.table(Transfers).findMany({ accountId, requestId }),
        bills: await store.table(BillPayments).findMany({ accountId, requestId }),
      }),
    }),
    ready: async () => (await readiness()).ok,
    readiness,
    metrics,
    present: {
      // The balance on the mode's chain: a test-mode view shows the wallet's test money.
      account: async (account, livemode = true) => ({ wallet: await forMode(livemode).wallets.summary(account) }),
      // As settlement.recipientFor, with the account's wallet index remembered (it never changes),
      // so answering a create costs no account read.
      payment: async (p) => {
        const index = p.payoutAddress ? undefined : await accounts.walletIndexOf(p.accountId);
        const payTo = p.payoutAddress ? getAddress(p.payoutAddress.toLowerCase()) : index !== undefined ? chain.custodialAddress(index) : null;
        return { pay_to: payTo, x402_url: x402UrlFor(config.PUBLIC_URL, p.id) };
      },
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
        // Each chain's services finish their own mode's moves (money-services.ts).
        for (const { transfers, bills, markets } of sets) {
          for (const t of await transfers.unfinished(idle)) await transfers.reconcile(t.id);
          for (const b of await bills.unfinished(idle)) await bills.reconcile(b.id);
          const m = await markets.unfinished(idle);
          for (const id of m.stakes) await markets.reconcileStakes(id);
          for (const id of m.payouts) await markets.settlePayouts(id);
        }
      },
    })
    // Claim links: finish steps a crash or a timeout left in flight (at start: recovery), return expired ones.
    .add({ name: 'claims:sweep', everyMs: config.RECONCILE_INTERVAL, atStart: true, run: () => claims.sweep() })
    // Pending webhook deliveries without a runner (another instance stopped, a lost wake-up).
    .add({ name: 'webhooks:rescan', everyMs: config.WEBHOOK_RESCAN_INTERVAL, run: () => webhooks.dispatcher.rescan() });
  // With several instances, actions another instance was executing when it died.
  if (shared) scheduler.add({ name: 'agent:recover', everyMs: config.RECONCILE_INTERVAL, run: () => agent.recoverInterrupted() });
  // This instance's own confirms a failed store left `executing` although they wrote nothing: pending again (src/agent/parked-claims.ts).
  scheduler.add({ name: `agent:parked:${instance.id}`, everyMs: config.RECONCILE_INTERVAL, run: () => agent.releaseParked() });
  // Stopped before the services above close (cleanups run in reverse).
  defer(() => scheduler.stop());

  return { core, store, chain, testChain, instance, scheduler };
}
