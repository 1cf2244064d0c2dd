/**
 * Webhook pipeline benchmark: N real payment state changes (processing -> settled, each
 * writing its event in the same transaction), delivered by the dispatcher to a node:http
 * receiver on loopback in this process. Reports events/s and the p50/p99 latency from the
 * state change call to the receiver having the event.
 *
 *   npx tsx bench/webhooks.ts [events]
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config/config.js';
import { createLogger } from '../src/lib/logger.js';
import { LowdbStore } from '../src/store/index.js';
import { FxService, loadFxTable } from '../src/fx/rates.js';
import { AccountsService } from '../src/accounts/accounts.js';
import { PaymentsService } from '../src/payments/payments.js';
import { CreatePaymentInput } from '../src/payments/payment-schemas.js';
import { createWebhooks } from '../src/webhooks/webhooks.js';
import { WebhookDeliveries } from '../src/webhooks/outbox.js';
import { percentile, pool } from './stats.js';

export interface WebhookBenchResult {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export interface WebhookBenchOptions {
  events?: number;
  /** State changes in flight at once. */
  concurrency?: number;
  /** Webhook requests on the wire at once (the dispatcher's gate). */
  deliveryConcurrency?: number;
  print?: (line: string) => void;
}



export async function benchWebhooks(opts: WebhookBenchOptions = {}): Promise<WebhookBenchResult> {
  const n = opts.events ?? 10_000;
  const concurrency = opts.concurrency ?? 200;
  const print = opts.print ?? ((l: string) => console.log(l));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sp-bench-webhooks-'));

  // The merchant's receiver: records when each payment's event arrived.
  const startedAt = new Map<string, number>();
  const arrivedAt = new Map<string, number>();
  let allArrived!: () => void;
  const done = new Promise<void>((r) => (allArrived = r));
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const t = performance.now();
      res.writeHead(200).end();
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { id: string } }).data.id;
      if (!arrivedAt.has(id)) {
        arrivedAt.set(id, t);
        if (arrivedAt.size === n) allArrived();
      }
    });
  });
  receiver.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, WEBHOOK_RETRY_SCHEDULE: '0,1s,5s,30s' });
  const logger = createLogger('silent');
  const store = await LowdbStore.open(config.DATA_DIR);
  const fx = new FxService(loadFxTable());
  const accounts = new AccountsService(store);
  const payments = new PaymentsService(store, fx, config.PUBLIC_URL);
  const webhooks = await createWebhooks({ config, logger, store, payments, concurrency: opts.deliveryConcurrency ?? 256 });
  await webhooks.start();
  try {
    const created = await accounts.create({ name: 'Bench Shop' });
    if (!created.ok) throw new Error(created.message);
    const accountId = created.account.id;
    const setup = await webhooks.service.setEndpoint(accountId, url);
    if (!setup.ok) throw new Error(setup.message);

    // Setup (not measured): N pending payments moved to processing (no event for that).
    const input = CreatePaymentInput.parse({ amount: 12.5, currency: 'USD', redirect_url: 'https://shop.example/done' });
    const ids: string[] = [];
    await pool(Array.from({ length: n }, (_, i) => i), concurrency, async () => {
      const r = await payments.create(accountId, input);
      if (!r.ok) throw new Error(r.message);
      await payments.transition(r.payment.id, 'pending', 'processing');
      ids.push(r.payment.id);
    });

    const t0 = performance.now();
    await pool(ids, concurrency, async (id) => {
      startedAt.set(id, performance.now());
      const after = await payments.transition(id, 'processing', 'settled', { settledAt: new Date().toISOString() });
      if (!after) throw new Error(`transition failed for ${id}`);
    });
    await done;
    const seconds = (performance.now() - t0) / 1000;
    const latencies = ids.map((id) => arrivedAt.get(id)! - startedAt.get(id)!).sort((a, b) => a - b);
    const result: WebhookBenchResult = {
      events: n,
      seconds: Math.round(seconds * 1000) / 1000,
      eventsPerSecond: Math.round(n / seconds),
      p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
      p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
    };
    // Let the dispatcher record the last results before stopping (not measured).
    const deliveriesTable = store.table(WebhookDeliveries);
    for (let i = 0; i < 500 && (await deliveriesTable.count({ status: 'delivered' })) < n; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    print(
      `webhooks: ${n} events in ${result.seconds} s = ${result.eventsPerSecond} events/s; ` +
        `state change -> delivered p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms`,
    );
    return result;
  } finally {
    await webhooks.stop();
    await store.close();
    receiver.closeAllConnections();
    await new Promise<void>((r) => receiver.close(() => r()));
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  benchWebhooks({ events: process.argv[2] ? Number(process.argv[2]) : undefined }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
