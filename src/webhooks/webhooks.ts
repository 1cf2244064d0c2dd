/**
 * The webhooks capability: outbox (events written with the state change), dispatcher
 * (at-least-once delivery with a persisted retry schedule), signing secrets, the account's
 * default endpoint and the delivery log. `createWebhooks` wires it to the payments service.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Store, Tx } from '../store/index.js';
import { nowIso } from '../lib/ids.js';
import { fail, type Result } from '../lib/results.js';
import { inMode } from '../lib/livemode.js';
import type { PaymentsService } from '../payments/payments.js';
import {
  defaultEndpointId,
  Outbox,
  WebhookDeliveries,
  WebhookEndpoints,
  WebhookEvents,
  type EventType,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEvent,
} from './outbox.js';
import { WebhookDispatcher } from './dispatcher.js';
import { EndpointCache } from './endpoint-cache.js';
import { loadSecretBox, WebhookSecretsService, type SecretStatus } from './secrets.js';
import { checkWebhookUrl, type UrlCheckFailure } from './url-guard.js';
import type { ListDeliveriesQuery } from './webhook-schemas.js';
import { sendTestEvent, type TestEventOutcome } from './test-event.js';
import type { Metrics } from '../metrics/metrics-port.js';

export interface DeliveryWithEvent {
  delivery: WebhookDelivery;
  event?: WebhookEvent;
}

export class WebhooksService {
  constructor(
    private readonly store: Store,
    private readonly secrets: WebhookSecretsService,
    private readonly dispatcher: WebhookDispatcher,
    private readonly production: boolean,
    /** Told of every change of the default endpoint, in its transaction. */
    private readonly cache?: Pick<EndpointCache, 'changedIn' | 'transaction'>,
  ) {}

  /** A write of endpoints: answers once every instance dropped what it changed (EndpointCache). */
  private writeEndpoints<R>(fn: (tx: Tx) => Promise<R>): Promise<R> {
    return this.cache ? this.cache.transaction(fn) : this.store.transaction(fn);
  }

  /** The production URL guard (https, public addresses only); everything passes in development and test. */
  checkUrl(url: string, param = 'webhook_url'): Promise<Result<{ url: string }, UrlCheckFailure>> {
    return checkWebhookUrl(url, { production: this.production, param });
  }

  async getEndpoint(accountId: string, livemode = true): Promise<{ url: string | null; secret: SecretStatus; endpoint?: WebhookEndpoint }> {
    const row = await this.store.table(WebhookEndpoints).get(defaultEndpointId(accountId, livemode));
    return { url: row?.url ?? null, secret: await this.secrets.status(accountId, Date.now(), livemode), ...(row ? { endpoint: row } : {}) };
  }

  /**
   * Sets (or with null clears) the mode's default endpoint. Setting one guarantees the mode's
   * signing secret; if none has been shown yet, it is returned here, once.
   */
  async setEndpoint(
    accountId: string,
    url: string | null,
    enabledEvents?: EventType[] | null,
    livemode = true,
  ): Promise<Result<{ url: string | null; secret?: string }, UrlCheckFailure>> {
    const id = defaultEndpointId(accountId, livemode);
    if (url !== null) {
      const checked = await this.checkUrl(url, 'url');
      if (!checked.ok) return checked;
    }
    return this.writeEndpoints(async (tx) => {
      const t = tx.table(WebhookEndpoints);
      const existing = await t.get(id);
      if (existing || url !== null) await this.cache?.changedIn(tx, accountId);
      if (url === null) {
        if (existing) await t.remove(id);
        return { ok: true as const, url: null };
      }
      // Setting the URL again also enables an endpoint a 410 Gone disabled.
      const events = enabledEvents === undefined ? existing?.enabledEvents : (enabledEvents ?? undefined);
      const fields = { url, enabledEvents: events, disabledAt: undefined, disabledReason: undefined, updatedAt: nowIso() };
      if (existing) await t.update(id, fields);
      else await t.insert({ id, ...fields, livemode });
      const secret = await this.secrets.ensureIn(tx, accountId, { reveal: true, livemode });
      return secret ? { ok: true as const, url, secret } : { ok: true as const, url };
    });
  }

  /** Rotates the signing secret of one mode (a test key's or test-mode session's: the test one). */
  rotateSecret(accountId: string, livemode = true) {
    return this.secrets.rotate(accountId, Date.now(), livemode);
  }

  /** Newest first; `starting_after` must be one of the account's deliveries. */
  async listDeliveries(
    accountId: string,
    q: ListDeliveriesQuery,
    livemode = true,
  ): Promise<Result<{ data: DeliveryWithEvent[]; hasMore: boolean }, 'invalid_cursor'>> {
    const table = this.store.table(WebhookDeliveries);
    if (q.starting_after) {
      const cursor = await table.get(q.starting_after);
      if (!cursor || cursor.accountId !== accountId || !inMode(cursor, livemode)) {
        return fail('invalid_cursor', `No such webhook delivery: ${q.starting_after}`, 'starting_after');
      }
    }
    const rows = await table.findMany(
      { accountId, livemode, ...(q.payment_id ? { paymentId: q.payment_id } : {}) },
      { order: 'desc', after: q.starting_after, limit: q.limit + 1 },
    );
    const page = rows.slice(0, q.limit);
    return { ok: true, data: await Promise.all(page.map((d) => this.withEvent(d))), hasMore: rows.length > q.limit };
  }

  async getDelivery(accountId: string, id: string, livemode = true): Promise<DeliveryWithEvent | undefined> {
    const d = await this.store.table(WebhookDeliveries).get(id);
    return d && d.accountId === accountId && inMode(d, livemode) ? this.withEvent(d) : undefined;
  }

  /**
   * Sends the event again now and starts a fresh run of the retry schedule from this
   * moment (so a dead delivery comes back to life). Resolves after that attempt is logged.
   */
  async redeliver(accountId: string, id: string, livemode = true): Promise<Result<DeliveryWithEvent, 'not_found'>> {
    const now = nowIso();
    const reset = await this.store.transaction(async (tx) => {
      const t = tx.table(WebhookDeliveries);
      const d = await t.get(id);
      if (!d || d.accountId !== accountId || !inMode(d, livemode)) return undefined;
      return t.update(
        id,
        { status: 'pending', cycle: d.cycle + 1, cycleStartedAt: now, scheduleIndex: 0, nextAttemptAt: now, deliveredAt: undefined },
        { cycle: d.cycle },
      );
    });
    if (!reset) return fail('not_found', `No such webhook delivery: ${id}`);
    await this.dispatcher.attemptNow(id, reset.cycle);
    const after = await this.getDelivery(accountId, id, livemode);
    return after ? { ok: true, ...after } : fail('not_found', `No such webhook delivery: ${id}`);
  }

  /** One signed sample event to the account's endpoint `id` (`default` or `we_...`), now (src/webhooks/test-event.ts). */
  sendTest(accountId: string, id: string, livemode = true): Promise<Result<TestEventOutcome, 'not_found' | 'no_secret'>> {
    return sendTestEvent({ store: this.store, secrets: this.secrets, guard: this.production }, accountId, id, livemode);
  }

  /** The events of the account's payment and their deliveries (a payment's timeline). */
  async ofPayment(accountId: string, paymentId: string): Promise<{ events: WebhookEvent[]; deliveries: WebhookDelivery[] }> {
    const events = (await this.store.table(WebhookEvents).findMany({ paymentId })).filter((e) => e.accountId === accountId);
    const deliveries = (await this.store.table(WebhookDeliveries).findMany({ paymentId })).filter((d) => d.accountId === accountId);
    return { events, deliveries };
  }

  private async withEvent(delivery: WebhookDelivery): Promise<DeliveryWithEvent> {
    return { delivery, event: await this.store.table(WebhookEvents).get(delivery.eventId) };
  }
}

export interface Webhooks {
  service: WebhooksService;
  outbox: Outbox;
  dispatcher: WebhookDispatcher;
  secrets: WebhookSecretsService;
  /** The accounts' endpoints as the outbox remembers them; every writer of endpoints tells it (`changedIn`). */
  endpoints: EndpointCache;
  /** Resumes pending deliveries; call once the rest of the service is built. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface WebhooksOptions {
  config: Pick<Config, 'DATA_DIR' | 'WEBHOOK_RETRY_SCHEDULE' | 'WEBHOOK_SECRET_OVERLAP' | 'production'>;
  logger: Logger;
  store: Store;
  payments: PaymentsService;
  /** Dispatcher tuning (tests, bench). */
  concurrency?: number;
  /** This instance among several on one database (see WebhookDispatcher). */
  instance?: { id: string; isLive(owner: string | undefined): Promise<boolean> };
  /** Delivery lag, backlog and the oldest pending delivery, for operators (docs/metrics.md). */
  metrics?: Pick<Metrics, 'webhookDelivered' | 'sample'>;
}

/** Builds the capability and registers the outbox as a payments transition listener. */
export async function createWebhooks(opts: WebhooksOptions): Promise<Webhooks> {
  const { config, logger, store, payments } = opts;
  const secrets = new WebhookSecretsService(store, await loadSecretBox(config.DATA_DIR), config.WEBHOOK_SECRET_OVERLAP);
  const endpoints = new EndpointCache(store, {
    id: opts.instance?.id,
    onUnacked: (peers, notice) => logger.warn({ peers, notice }, 'webhook endpoint change: instances did not ack; their cached endpoints had lapsed'),
  });
  const dispatcher = new WebhookDispatcher({
    store,
    endpoints,
    secrets,
    logger,
    schedule: config.WEBHOOK_RETRY_SCHEDULE,
    guard: config.production,
    concurrency: opts.concurrency,
    instance: opts.instance,
    metrics: opts.metrics,
  });
  if (opts.metrics) {
    // Read at scrape time through the status index; the oldest is the first pending in insertion order.
    const deliveries = store.table(WebhookDeliveries);
    opts.metrics.sample('webhookBacklog', () => deliveries.count({ status: 'pending' }));
    opts.metrics.sample('webhookOldestPending', async () => {
      const [oldest] = await deliveries.findMany({ status: 'pending' }, { limit: 1 });
      return oldest ? Math.max(0, (Date.now() - Date.parse(oldest.cycleStartedAt)) / 1000) : 0;
    });
  }
  const outbox = new Outbox({ schedule: config.WEBHOOK_RETRY_SCHEDULE, secrets, onQueued: dispatcher.kick, endpoints });
  payments.onTransition(outbox.onTransition);
  const service = new WebhooksService(store, secrets, dispatcher, config.production, endpoints);
  return {
    service,
    outbox,
    dispatcher,
    secrets,
    endpoints,
    start: async () => {
      await endpoints.start();
      await dispatcher.start();
    },
    stop: async () => {
      await dispatcher.stop();
      await endpoints.stop();
    },
  };
}
