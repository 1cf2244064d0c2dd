import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import { createLogger } from './lib/logger.js';
import type { Store } from './store/index.js';
import type { ChainService } from './chain/chain.js';
import { buildCore, type Core } from './core/build.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { Engine } from './agent/index.js';
import { ensureDemoAccount } from './accounts/demo.js';
import { createApp } from './http/app.js';
import { startingHandler } from './http/starting.js';
import { answerClientErrors } from './http/client-errors.js';
import { httpRoutes } from './doors.js';
import { startupTimeline } from './lib/timeline.js';

/** The core, plus the process's own store and chain handles (for tests and operators; no door sees them). */
export type ServiceHandles = Core & { store: Store; chain: ChainService; testChain: ChainService | undefined; scheduler: Scheduler };

export interface Service {
  url: string;
  app: Express;
  core: Core;
  /** The core with the raw store and chain: what tests reach into. */
  deps: ServiceHandles;
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
  let scheduler: Scheduler | undefined;
  let closing: Promise<void> | undefined;
  // Idempotent: a second close waits for the first.
  const close = () =>
    (closing ??= (async () => {
      // At once: stop accepting connections and stop starting background passes. Requests in
      // flight finish (up to SHUTDOWN_GRACE) while the pass running now ends and the scheduler
      // gives its leases up, so another instance takes the jobs over at its next tick. Then the
      // workers, the chain and last the store (cleanups run in reverse).
      await Promise.all([closeServer?.(), scheduler?.stop()]);
      for (const c of cleanups.reverse()) await c();
    })());
  const timeline = startupTimeline(logger);
  try {
    // Listen first so a PORT of 0 gives the real port before anything builds URLs from it; until
    // the app is attached, every request is answered at once (healthz up but not ready, else 503).
    const server = http.createServer(startingHandler);
    server.keepAliveTimeout = 65_000;
    answerClientErrors(server);
    let draining = false;
    // Registered first, so it runs before the app: a response sent while draining closes its
    // connection, so keep-alive clients reconnect to another instance.
    server.on('request', (_req, res) => {
      if (draining) res.setHeader('Connection', 'close');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.PORT, config.HOST, () => resolve());
    });
    closeServer = () =>
      new Promise<void>((resolve) => {
        draining = true;
        // Stop listening; idle keep-alive connections go now, busy ones once their response is
        // sent; past the grace whatever is still open is cut.
        const cut = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_GRACE);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
    const port = (server.address() as AddressInfo).port;
    const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
    if (!config.publicUrlExplicit) config = { ...config, PUBLIC_URL: `http://localhost:${port}` };
    timeline.phase('listen');
    await opts.onListening?.(url);

    const built = await buildCore(config, {
      logger,
      engine: opts.engine,
      defer: (c) => void cleanups.push(c),
      phase: (name) => timeline.phase(name),
    });
    const { core } = built;

    if (!config.production) await ensureDemoAccount(core.accounts, print, config.PUBLIC_URL);

    // Telegram bridge (docs/telegram.md): only with TELEGRAM_BOT_TOKEN; its webhook route must exist
    // before the app is built, and it connects (setWebhook / polling) once requests are served.
    // grammY is loaded only when a bot is configured: it is a large share of start-up otherwise.
    const telegram = config.TELEGRAM_BOT_TOKEN ? (await import('./bridges/telegram/index.js')).createTelegramBridge(core) : undefined;
    if (telegram) cleanups.push(() => telegram.stop());

    const app = createApp(core, httpRoutes(core, { telegram: telegram?.router }));
    // Every background loop (expiry sweep, reconcilers, webhook rescan), each pass under a lease.
    scheduler = built.scheduler;
    built.scheduler.start();
    timeline.phase('routes');
    // Swapped in one step: a request is served by exactly one of the two handlers.
    server.removeListener('request', startingHandler);
    server.on('request', app.serve);
    await telegram?.start();
    timeline.phase('telegram');
    logger.info({ url, dataDir: config.DATA_DIR, startMs: timeline.totalMs() }, 'service listening');
    return { url, app, core, deps: { ...core, store: built.store, chain: built.chain, testChain: built.testChain, scheduler: built.scheduler }, close };
  } catch (e) {
    await close();
    throw e;
  }
}
