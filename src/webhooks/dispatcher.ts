/**
 * Delivers the outbox. Each pending delivery has one in-process runner; the store is the
 * source of truth (`nextAttemptAt`, `scheduleIndex`), so a restart rebuilds every runner
 * from it and resumes at the persisted time: nothing lost, nothing skipped.
 *
 * p-retry drives each runner's loop (abort on shutdown, retry only on "not delivered
 * yet"); its own backoff is switched off because ours is a fixed, persisted table
 * (WEBHOOK_RETRY_SCHEDULE) measured from the event, which p-retry's exponential formula
 * cannot express. Each loop iteration waits until the stored due time, then attempts.
 */
import { setMaxListeners } from 'node:events';
import pRetry from 'p-retry';
import type { Logger } from 'pino';
import type { Store, Tx } from '../store/index.js';
import { nowIso } from '../lib/ids.js';
import {
  attemptDueAt,
  MAX_ATTEMPTS_KEPT,
  WebhookDeliveries,
  WebhookEndpoints,
  WebhookEvents,
  type DeliveryAttempt,
  type WebhookDelivery,
} from './outbox.js';
import type { WebhookSecretsService } from './secrets.js';
import type { EndpointCache } from './endpoint-cache.js';
import type { Metrics } from '../metrics/metrics-port.js';
import { signatureHeader, standardWebhookHeaders } from './signing.js';
import { SIGNATURE_HEADER } from './verify.js';
import { DELIVERY_TIMEOUT_MS, postWebhook, type SendResult } from './sender.js';

export interface DispatcherOptions {
  store: Store;
  secrets: WebhookSecretsService;
  logger: Logger;
  schedule: readonly number[];
  /** Refuse non-public addresses at connect time (production). */
  guard: boolean;
  timeoutMs?: number;
  /** Requests on the wire at once, across all receivers. */
  concurrency?: number;
  /** Replaceable for tests; node:http by default. */
  send?: typeof postWebhook;
  /**
   * Each retry waits its scheduled step plus up to this fraction of it more, at random, so
   * deliveries failing together (a receiver outage) do not come back in one burst. Default 0.1.
   */
  jitter?: number;
  /** This instance, when several share the database: an attempt another live one has on the wire is left to it. */
  instance?: { id: string; isLive(owner: string | undefined): Promise<boolean> };
  /** Delivery lag, for operators (docs/metrics.md). */
  metrics?: Pick<Metrics, 'webhookDelivered'>;
  /**
   * Told when a 410 disables an endpoint (the outbox remembers endpoints); the attempt's record
   * is then written through its `transaction`, which answers once every instance dropped the
   * endpoint, as an endpoint write through the API does.
   */
  endpoints?: Pick<EndpointCache, 'changedIn' | 'transaction'>;
}

/** Attempt outcome beyond the HTTP result: the endpoint is disabled, so nothing was sent. */
type AttemptResult = SendResult & { endpointDisabled?: boolean };

/** Thrown by a runner step to have p-retry run the loop again. */
class NotDoneYet extends Error {}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** A counting semaphore: bounds concurrent requests without queueing in the store. */
class Gate {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  constructor(private readonly size: number) {}
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((r) => this.queue.push(r));
    else this.active++;
    try {
      return await fn();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active--;
    }
  }
}

export class WebhookDispatcher {
  private readonly runners = new Map<string, Promise<void>>();
  private readonly wakers = new Map<string, () => void>();
  private readonly waiters = new Map<string, Array<{ cycle: number; resolve: () => void }>>();
  private readonly abort = new AbortController();
  private readonly gate: Gate;
  private started = false;
  private stopped = false;

  constructor(private readonly opts: DispatcherOptions) {
    this.gate = new Gate(opts.concurrency ?? 64);
    // Every request on the wire listens for shutdown on this one signal.
    setMaxListeners(0, this.abort.signal);
  }

  /**
   * Records attempts a previous process left on the wire, then resumes every pending delivery.
   * Later rescans are the scheduler's `webhooks:rescan` job (src/core/build.ts).
   */
  async start(): Promise<void> {
    this.started = true;
    await this.rescan();
  }

  /** Stops every runner; an attempt on the wire is cut and logged as interrupted. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    for (const w of this.wakers.values()) w();
    await Promise.allSettled([...this.runners.values()]);
    for (const list of this.waiters.values()) for (const w of list) w.resolve();
    this.waiters.clear();
  }

  /** A new delivery was queued (called inside its transaction, so act only after it commits). */
  readonly kick = (deliveryId: string): void => {
    setImmediate(() => this.ensureRunner(deliveryId));
  };

  /** Makes a pending delivery due now (after a redelivery request); resolves once that attempt is logged. */
  async attemptNow(deliveryId: string, cycle: number, maxWaitMs = (this.opts.timeoutMs ?? DELIVERY_TIMEOUT_MS) + 5_000): Promise<void> {
    if (this.stopped) return;
    const done = new Promise<void>((resolve) => {
      const waiter = { cycle, resolve };
      const list = this.waiters.get(deliveryId) ?? [];
      list.push(waiter);
      this.waiters.set(deliveryId, list);
      setTimeout(() => {
        const rest = (this.waiters.get(deliveryId) ?? []).filter((w) => w !== waiter);
        if (rest.length) this.waiters.set(deliveryId, rest);
        else this.waiters.delete(deliveryId);
        resolve();
      }, maxWaitMs).unref();
    });
    this.ensureRunner(deliveryId);
    this.wakers.get(deliveryId)?.();
    await done;
  }

  /** Picks up pending deliveries without a runner here (another instance stopped, a lost wake-up). */
  async rescan(): Promise<void> {
    if (this.stopped) return;
    const pending = await this.opts.store.table(WebhookDeliveries).findMany({ status: 'pending' });
    for (const d of pending) {
      if (this.runners.has(d.id)) continue;
      if (d.inFlight) {
        if (await this.sentElsewhere(d)) continue;
        await this.recordInterrupted(d.id, d.inFlight.startedAt);
      }
      this.ensureRunner(d.id);
    }
  }

  /** Whether another live instance has this delivery's attempt on the wire (then it is theirs). */
  private async sentElsewhere(d: WebhookDelivery): Promise<boolean> {
    const { instance } = this.opts;
    const owner = d.inFlight?.owner;
    return !!instance && owner !== undefined && owner !== instance.id && (await instance.isLive(owner));
  }

  private async recordInterrupted(id: string, startedAt: string): Promise<void> {
    await this.opts.store.transaction(async (tx) => {
      const t = tx.table(WebhookDeliveries);
      const d = await t.get(id);
      // Only the marker seen: a newer claim (another instance's) is not a leftover.
      if (!d?.inFlight || d.inFlight.startedAt !== startedAt) return;
      const attempt: DeliveryAttempt = {
        at: d.inFlight.startedAt,
        trigger: d.scheduleIndex === 0 && d.cycle > 0 ? 'manual' : 'schedule',
        succeeded: false,
        latencyMs: 0,
        interrupted: true,
        error: 'interrupted: the service stopped during this attempt; it will be retried',
      };
      await t.update(id, { inFlight: undefined, attempts: [...d.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT) });
    });
  }

  private ensureRunner(id: string): void {
    if (this.stopped || !this.started || this.runners.has(id)) return;
    const run = pRetry(() => this.step(id), {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 0,
      maxTimeout: 0,
      factor: 1,
      signal: this.abort.signal,
      unref: true,
      shouldRetry: ({ error }) => error instanceof NotDoneYet && !this.stopped,
    })
      .catch((err) => {
        if (!this.stopped) this.opts.logger.error({ err, delivery: id }, 'webhook runner failed; the rescan resumes it');
      })
      .finally(() => this.runners.delete(id));
    this.runners.set(id, run);
  }

  /** One loop turn: returns when the delivery needs nothing more, throws NotDoneYet otherwise. */
  private async step(id: string): Promise<void> {
    const d = await this.opts.store.table(WebhookDeliveries).get(id);
    if (!d || d.status !== 'pending' || this.stopped) return;
    // This runner is the only one for the delivery in this process, so a marker it did not
    // set is a leftover, unless another live instance is sending it: then it is theirs.
    if (d.inFlight) {
      if (await this.sentElsewhere(d)) return;
      await this.recordInterrupted(id, d.inFlight.startedAt);
      throw new NotDoneYet();
    }
    const wait = Date.parse(d.nextAttemptAt ?? '') - Date.now();
    if (wait > 0) {
      await this.sleep(id, Math.min(wait, MAX_TIMER_MS));
      throw new NotDoneYet();
    }
    await this.attempt(d);
    throw new NotDoneYet(); // re-read: delivered and dead end the loop on the next turn
  }

  private sleep(id: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.wakers.delete(id);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.wakers.set(id, wake);
    });
  }

  private async attempt(seen: WebhookDelivery): Promise<void> {
    const { store, schedule } = this.opts;
    const id = seen.id;
    const startedMs = Date.now();
    // Claiming the attempt in a transaction also orders it after the transaction that
    // queued the delivery and makes that one durable before anything is sent. The
    // claim fails if a redelivery or another attempt changed the row meanwhile.
    const claimed = await store.transaction(async (tx) => {
      const t = tx.table(WebhookDeliveries);
      const d = await t.get(id);
      if (!d || d.status !== 'pending' || d.inFlight || d.cycle !== seen.cycle || d.scheduleIndex !== seen.scheduleIndex) {
        return undefined;
      }
      const owner = this.opts.instance?.id;
      return t.update(id, { inFlight: { startedAt: new Date(startedMs).toISOString(), cycle: d.cycle, ...(owner ? { owner } : {}) } });
    });
    if (!claimed) return;

    let result: AttemptResult;
    try {
      result = await this.send(claimed);
    } catch (err) {
      result = { ok: false, latencyMs: Date.now() - startedMs, error: `internal error: ${(err as Error).message}`.slice(0, 300) };
    }

    const attempt: DeliveryAttempt = {
      at: new Date(startedMs).toISOString(),
      trigger: claimed.scheduleIndex === 0 && claimed.cycle > 0 ? 'manual' : 'schedule',
      succeeded: result.ok,
      latencyMs: result.latencyMs,
      ...(result.statusCode !== undefined ? { statusCode: result.statusCode } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      ...(result.responseBody !== undefined ? { responseBody: result.responseBody } : {}),
      ...(result.aborted ? { interrupted: true } : {}),
    };
    // Through the endpoint cache's transaction: a 410 that disables an endpoint answers (resolves
    // a redelivery's waiters) only once no instance may still queue events for it. It waits only
    // when the attempt published such a change; every other outcome commits as before.
    const { endpoints } = this.opts;
    const record = endpoints ? endpoints.transaction.bind(endpoints) : store.transaction.bind(store);
    await record(async (tx) => {
      const t = tx.table(WebhookDeliveries);
      const d = await t.get(id);
      if (!d) return;
      const patch: Partial<WebhookDelivery> = {
        inFlight: undefined,
        attempts: [...d.attempts, attempt].slice(-MAX_ATTEMPTS_KEPT),
      };
      if (result.ok) {
        Object.assign(patch, { status: 'delivered', deliveredAt: nowIso(), nextAttemptAt: undefined });
      } else if (result.statusCode === 410 || result.endpointDisabled) {
        // 410 Gone: the receiver says this URL is gone for good. Stop retrying and disable the
        // endpoint it came from, which the endpoint's API representation then shows.
        Object.assign(patch, { status: 'dead', nextAttemptAt: undefined });
        if (result.statusCode === 410 && d.endpointId && (await disableEndpoint(tx, d.endpointId, startedMs))) {
          await this.opts.endpoints?.changedIn(tx, d.accountId);
        }
      } else if (!result.aborted && d.status === 'pending' && d.cycle === claimed.cycle) {
        // An interrupted attempt keeps its slot; a redelivery meanwhile has reset the schedule.
        const planned = attemptDueAt(schedule, Date.parse(d.cycleStartedAt), d.scheduleIndex + 1, startedMs);
        if (planned === undefined) Object.assign(patch, { status: 'dead', nextAttemptAt: undefined });
        else {
          const step = schedule[d.scheduleIndex + 1]!;
          let next = planned + Math.floor(Math.random() * (this.opts.jitter ?? 0.1) * step);
          // 429/503 with Retry-After: not before the receiver asked (the schedule slot is used up).
          if (result.retryAfterMs !== undefined) next = Math.max(next, Date.now() + result.retryAfterMs);
          Object.assign(patch, { scheduleIndex: d.scheduleIndex + 1, nextAttemptAt: new Date(next).toISOString() });
        }
      }
      await t.update(id, patch);
    });
    if (result.ok) this.opts.metrics?.webhookDelivered((Date.now() - Date.parse(claimed.cycleStartedAt)) / 1000);
    this.resolveWaiters(id, claimed.cycle);
    if (!result.ok && !result.aborted) {
      this.opts.logger.debug({ delivery: id, statusCode: result.statusCode, error: result.error }, 'webhook attempt failed');
    }
  }

  private async send(d: WebhookDelivery): Promise<AttemptResult> {
    const event = await this.opts.store.table(WebhookEvents).get(d.eventId);
    if (!event) return { ok: false, latencyMs: 0, error: 'internal error: event missing' };
    const endpoint = d.endpointId ? await this.opts.store.table(WebhookEndpoints).get(d.endpointId) : undefined;
    if (endpoint?.disabledAt) {
      return { ok: false, latencyMs: 0, endpointDisabled: true, error: `not sent: the endpoint is disabled (${endpoint.disabledReason ?? 'disabled'})` };
    }
    const send = this.opts.send ?? postWebhook;
    return this.gate.run(async () => {
      if (this.stopped) return { ok: false, aborted: true, latencyMs: 0, error: 'interrupted: service stopping' };
      // Signed when it goes out, with the secrets valid at that moment.
      const now = Date.now();
      // Signed with the secret of the event's mode (a test event never with the live secret).
      const secrets = await this.opts.secrets.signingSecrets(d.accountId, now, event.livemode !== false);
      if (secrets.length === 0) return { ok: false, latencyMs: 0, error: 'internal error: no signing secret' };
      return send(d.url, event.body, {
        headers: { [SIGNATURE_HEADER]: signatureHeader(event.body, secrets, now), ...standardWebhookHeaders(event.id, event.body, secrets, now) },
        guard: this.opts.guard,
        timeoutMs: this.opts.timeoutMs ?? DELIVERY_TIMEOUT_MS,
        signal: this.abort.signal,
      });
    });
  }

  private resolveWaiters(id: string, cycle: number): void {
    const list = this.waiters.get(id);
    if (!list) return;
    const rest = list.filter((w) => {
      if (w.cycle > cycle) return true;
      w.resolve();
      return false;
    });
    if (rest.length) this.waiters.set(id, rest);
    else this.waiters.delete(id);
  }
}

/** Marks an endpoint disabled after a 410 Gone (inside the attempt's transaction). */
async function disableEndpoint(tx: Tx, endpointId: string, atMs: number): Promise<boolean> {
  const endpoints = tx.table(WebhookEndpoints);
  const e = await endpoints.get(endpointId);
  if (!e || e.disabledAt) return false;
  const at = new Date(atMs).toISOString();
  await endpoints.update(endpointId, {
    disabledAt: at,
    disabledReason: `The endpoint answered 410 Gone at ${at}; enable it again once it accepts events.`,
    updatedAt: nowIso(),
  });
  return true;
}
