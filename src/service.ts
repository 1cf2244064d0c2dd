import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { createLogger } from './lib/logger.js';
import { InstanceLease, openStore, type Store } from './store/index.js';
import { FxService, loadFxTable } from './fx/rates.js';
import { AccountsService } from './accounts/accounts.js';
import { KeysService } from './keys/keys.js';
import { PaymentsService } from './payments/payments.js';
import { createApp } from './api/app.js';
import type { AppDeps } from './api/deps.js';
import { ensureDemoAccount } from './accounts/demo.js';
import { appPaymentsRouter } from './api/app-payments.router.js';
import { webRouter } from './web/router.js';
import { dashboardDataRouter } from './web/data.router.js';
import { createChain } from './chain/chain.js';
import { storeRelayJournal } from './chain/relay-journal.js';
import { auditSettledOnChain } from './settlement/onchain-audit.js';
import { walletSummary } from './wallet/balance.js';
import { createMoneyModules } from './money-modules.js';
import { Agent, createEngine, createToolHandlers, type Engine } from './agent/index.js';
import { agentRateLimiter, agentRouter } from './api/agent.router.js';
import { AgentRateLimit, SharedTurnCounter } from './agent/rate-limit.js';
import { chatRouter } from './api/chat.router.js';
import { createWebhooks } from './webhooks/webhooks.js';
import { webhooksRouter } from './api/webhooks.router.js';
import { SettlementService } from './settlement/settlement.js';
import { settlementRouter } from './api/settlement.router.js';
import { PaymentCancellation } from './payments/cancel.js';
import { cancelRouter } from './api/cancel.router.js';
import { EventsService } from './events/events.js';
import { eventsRouter } from './api/events.router.js';
import { WebhookEndpointsService } from './webhooks/endpoints.js';
import { webhookEndpointsRouter } from './api/webhook-endpoints.router.js';
import { RefundsService } from './refunds/refunds.js';
import { refundsRouter } from './api/refunds.router.js';
import { devRouter, devRoutesEnabled } from './api/dev.router.js';
import { checkoutPageRouter } from './checkout/checkout.router.js';
import { startingHandler } from './api/starting.js';
import { startupTimeline } from './lib/timeline.js';
import { Facilitator } from './x402/facilitator.js';
import { chainPort } from './x402/exact-evm.js';
import { x402Router } from './api/x402.router.js';
import { x402PayRouter, x402UrlFor } from './api/x402-pay.router.js';
import { appWalletPayRouter } from './checkout/app-wallet.router.js';

export interface Service {
  url: string;
  app: Express;
  deps: AppDeps;
  close(): Promise<void>;
}

export interface ServiceOptions {
  logger?: Logger;
  /** Where first-start notices (demo login) are printed; stdout by default, never the log. */
  print?: (text: string) => void;
  /** The agent engine, instead of the one the config selects (tests score a scripted one). */
  engine?: Engine;
  /**
   * Called once the socket accepts connections and before anything else is built (tests use it
   * to probe the start-up window; start-up waits for it).
   */
  onListening?: (url: string) => Promise<void> | void;
}

/** Builds everything from config and starts listening; `close()` undoes it in reverse. */
export async function startService(config: Config, opts: ServiceOptions = {}): Promise<Service> {
  const logger = opts.logger ?? createLogger(config.LOG_LEVEL);
  const print = opts.print ?? ((t: string) => process.stdout.write(t + '\n'));
  const cleanups: Array<() => Promise<void> | void> = [];
  let closeServer: (() => Promise<void>) | undefined;
  const close = async () => {
    // Stop taking requests first, then the workers, then the store.
    await closeServer?.();
    for (const c of cleanups.reverse()) await c();
  };
  const timeline = startupTimeline(logger);
  try {
    // Listen first so a PORT of 0 gives the real port before anything builds URLs from it; until
    // the app is attached, every request is answered at once (healthz up but not ready, else 503).
    const server = http.createServer(startingHandler);
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => resolve());
    });
    closeServer = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    const port = (server.address() as AddressInfo).port;
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
    if (!config.publicUrlExplicit) config = { ...config, PUBLIC_URL: `http://localhost:${port}` };
    timeline.phase('listen');
    await opts.onListening?.(url);

    const store: Store = await openStore(config);
    cleanups.push(() => store.close());
    // This process among the instances sharing the store (docs/deploy.md): work it marks as its
    // own is taken over by another instance only once this lease lapses.
    const instance = new InstanceLease(store);
    await instance.start();
    cleanups.push(() => instance.stop());
    const shared = config.DATABASE_URL !== undefined;
    timeline.phase('store');
    const fx = new FxService(loadFxTable());
    const accounts = new AccountsService(store, { currencyForCountry: (c) => fx.currencyForCountry(c) });
    const keys = new KeysService(store);
    const payments = new PaymentsService(store, fx, config.PUBLIC_URL);
    // Webhooks (docs/webhooks.md): the outbox listens to every payment transition from here on;
    // the dispatcher resumes pending deliveries and stops before the store closes.
    const webhooks = await createWebhooks({ config, logger: logger.child({ module: 'webhooks' }), store, payments, instance, rescanMs: config.WEBHOOK_RESCAN_INTERVAL });
    cleanups.push(() => webhooks.stop());
    await webhooks.start();
    timeline.phase('webhooks');
    const chain = await createChain({
      dataDir: config.DATA_DIR,
      rpcUrl: config.CHAIN_RPC_URL,
      chainId: config.CHAIN_ID,
      tokenAddress: config.TOKEN_ADDRESS as `0x${string}` | undefined,
      relayerPrivateKey: config.RELAYER_PRIVATE_KEY as `0x${string}` | undefined,
      walletMnemonic: config.WALLET_MNEMONIC,
      logScan: { windowBlocks: BigInt(config.CHAIN_LOG_SCAN_BLOCKS), maxLookbackBlocks: BigInt(config.CHAIN_LOG_MAX_LOOKBACK_BLOCKS) },
      logger: logger.child({ module: 'chain' }),
      // Signed transactions are kept until the chain surely has them (docs/chain.md, "Power loss").
      journal: storeRelayJournal(store),
    });
    cleanups.push(() => chain.close());
    // The relayer's nonces are counted in this process: two live instances must never send from
    // one relayer key. Each instance gets its own RELAYER_PRIVATE_KEY from a pool (docs/deploy.md).
    // After a kill -9 the old lease lapses within its TTL: a restart waits that long at most.
    const relayer = await instance.hold(`relayer:${chain.relayerAddress.toLowerCase()}`, shared ? instance.ttlMs + 2_000 : 0);
    if (!relayer.ok) {
      throw new Error(
        `the relayer ${chain.relayerAddress} is in use by the running instance ${relayer.holder}: give each instance its own RELAYER_PRIVATE_KEY (docs/deploy.md)`,
      );
    }
    timeline.phase('chain');
    // After a crash: anything reported settled must be on the chain (the journal put back what it lost).
    void auditSettledOnChain({ store, chain, logger: logger.child({ module: 'audit' }) }).catch((err: unknown) =>
      logger.warn({ err }, 'could not audit settled records against the chain'),
    );
    // Transfers, bills and markets (docs/money-modules.md), with a sweep that finishes interrupted ones.
    const money = createMoneyModules({ store, chain, fx, accounts, logger, confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT });
    cleanups.push(money.start(config.RECONCILE_INTERVAL));
    const agent = new Agent({
      engine: opts.engine ?? createEngine(config, logger.child({ module: 'agent' })),
      handlers: createToolHandlers({
        accounts,
        payments,
        fx,
        publicUrl: config.PUBLIC_URL,
        chain,
        transfers: money.transfers,
        bills: money.bills,
        markets: money.markets,
      }),
      store,
      logger: logger.child({ module: 'agent' }),
      accounts,
      instance,
    });
    // Before any confirm can run here: an action still `executing` was cut off by a stop
    // (with several instances: only those whose instance is gone; checked again periodically).
    await agent.recoverInterrupted();
    if (shared) {
      const recovery = setInterval(() => {
        agent.recoverInterrupted().catch((err) => logger.error({ err }, 'interrupted-action recovery failed'));
      }, config.RECONCILE_INTERVAL);
      recovery.unref();
      cleanups.push(() => clearInterval(recovery));
    }
    timeline.phase('agent');
    const deps: AppDeps = {
      config,
      logger,
      store,
      fx,
      chain,
      accounts,
      keys,
      payments,
      agent,
      transfers: money.transfers,
      bills: money.bills,
      markets: money.markets,
      apiRouters: [],
      pageRouters: [],
      readiness: [() => chain.ping()],
      accountExtras: async (account) => ({ wallet: await walletSummary(chain, fx, account) }),
      checkoutExtras: () => ({ chainId: chain.chainId, tokenAddress: chain.tokenAddress, tokenSymbol: 'USDC' }),
    };
    // The web app at /app and the session-only JSON it reads (src/web, docs/web-app.md).
    deps.apiRouters.push(appPaymentsRouter(deps), dashboardDataRouter(deps));
    deps.webhooks = webhooks.service;
    deps.apiRouters.push(webhooksRouter(deps, webhooks.service));
    // One limiter for every door: AGENT_RATE_LIMIT counts an account's turns wherever they come from
    // (the HTTP doors share this middleware; the Telegram bridge takes from the same store).
    // On PostgreSQL the count lives in the database, exact across instances.
    deps.agentRateLimit = new AgentRateLimit({ ...config.AGENT_RATE_LIMIT, counter: shared ? new SharedTurnCounter(store) : undefined });
    cleanups.push(() => deps.agentRateLimit?.close());
    const agentLimiter = agentRateLimiter(deps);
    deps.apiRouters.push(agentRouter(deps, agentLimiter), chatRouter(deps, agentLimiter));
    deps.pageRouters.push(webRouter(deps));
    // On-chain settlement, the hosted checkout page /pay/:id and dev-only helpers (docs/settlement.md).
    const settlement = new SettlementService({
      store,
      payments,
      accounts,
      chain,
      logger: logger.child({ module: 'settlement' }),
      confirmTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    });
    deps.settlement = settlement;
    deps.paymentExtras = async (p) => ({ pay_to: (await settlement.recipientFor(p)) ?? null, x402_url: x402UrlFor(config.PUBLIC_URL, p.id) });
    deps.apiRouters.push(settlementRouter(deps), appWalletPayRouter(deps));
    // x402 v2 facilitator for merchants' own resource servers (docs/x402.md).
    deps.facilitator = new Facilitator({
      port: chainPort(chain),
      store,
      logger: logger.child({ module: 'x402' }),
      receiptTimeoutMs: config.SETTLEMENT_CONFIRM_TIMEOUT,
    });
    deps.apiRouters.push(x402Router(deps), x402PayRouter(deps));
    // Merchant operations after the sale (issue 15): cancel a pending session.
    deps.cancellation = new PaymentCancellation(payments, chain, (id) => settlement.nonceFor(id));
    deps.apiRouters.push(cancelRouter(deps));
    // The events API: the webhook bodies read back for reconciliation.
    deps.apiRouters.push(eventsRouter(deps, new EventsService(store)));
    // Several webhook endpoints per account, each with an optional event-type list.
    const endpoints = new WebhookEndpointsService(store, webhooks.secrets, (u, param) => webhooks.service.checkUrl(u, param));
    deps.apiRouters.push(webhookEndpointsRouter(deps, endpoints));
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
    });
    deps.refunds = refunds;
    deps.apiRouters.push(refundsRouter(deps, refunds));
    refunds.start(config.RECONCILE_INTERVAL);
    cleanups.push(() => refunds.close());
    if (devRoutesEnabled(deps)) deps.apiRouters.push(devRouter(deps));
    deps.pageRouters.push(checkoutPageRouter(deps));
    settlement.start(config.RECONCILE_INTERVAL);
    cleanups.push(() => settlement.close());

    // One instance sweeps per interval (a lease); the sweep's compare-and-set keeps a second harmless.
    const sweeper = setInterval(() => {
      store
        .lease('sweep:expiry', instance.id, config.EXPIRY_SWEEP_INTERVAL)
        .then((mine) => (mine ? payments.sweepExpired() : 0))
        .catch((err) => logger.error({ err }, 'expiry sweep failed'));
    }, config.EXPIRY_SWEEP_INTERVAL);
    sweeper.unref();
    cleanups.push(() => clearInterval(sweeper));

    if (!config.production) await ensureDemoAccount(accounts, print, config.PUBLIC_URL);

    // Telegram bridge (docs/telegram.md): only with TELEGRAM_BOT_TOKEN; its webhook route must exist
    // before the app is built, and it connects (setWebhook / polling) once requests are served.
    // grammY is loaded only when a bot is configured: it is a large share of start-up otherwise.
    const telegram = config.TELEGRAM_BOT_TOKEN ? (await import('./bridges/telegram/index.js')).createTelegramBridge(deps) : undefined;
    if (telegram?.router) deps.apiRouters.push(telegram.router);
    if (telegram) cleanups.push(() => telegram.stop());

    const app = createApp(deps);
    timeline.phase('routes');
    // Swapped in one step: a request is served by exactly one of the two handlers.
    server.removeListener('request', startingHandler);
    server.on('request', app);
    await telegram?.start();
    timeline.phase('telegram');
    logger.info({ url, dataDir: config.DATA_DIR, startMs: timeline.totalMs() }, 'service listening');
    return { url, app, deps, close };
  } catch (e) {
    await close();
    throw e;
  }
}
