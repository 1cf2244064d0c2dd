/**
 * The webhook outbox. A payment status change and the event it causes are written in the
 * same store transaction (PaymentsService.onTransition), so there is never a state change
 * without its event nor an event without its state change. The dispatcher delivers from
 * these tables; `nextAttemptAt` is persisted so a restart resumes every pending delivery.
 */
import { defineTable, insertUnread, type ReadTable, type Tx } from '../store/index.js';
import { newId } from '../lib/ids.js';
import type { Payment } from '../payments/payments.js';
import type { PaymentStatus } from '../payments/payment-schemas.js';
import type { WebhookSecretsService } from './secrets.js';
import type { EventType, PaymentEventPayload, PaymentEventType, PolicyEventData, PolicyEventPayload, TransferEventData, TransferEventType } from './webhook-schemas.js';

/** The event kinds, defined with the payload schemas (./webhook-schemas.ts). */
export { EVENT_TYPES, type EventType } from './webhook-schemas.js';

const TYPE_FOR_STATUS: Partial<Record<PaymentStatus, PaymentEventType>> = {
  settled: 'payment.settled',
  expired: 'payment.expired',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
  authorized: 'payment.authorized',
  captured: 'payment.captured',
  voided: 'payment.voided',
  // `refunded` is recorded by the refunds module itself, with the refund in `data`.
};

/** The JSON body merchants receive (interface 6, DESIGN.md 7). */
export type { WebhookEventPayload } from './webhook-schemas.js';

export interface WebhookEvent {
  readonly id: string;
  accountId: string;
  /** The subject: a payment (`pay_...`), or a claim (`clm_...`) for `transfer.*` events. */
  paymentId: string;
  type: EventType;
  createdAt: string;
  /** The exact JSON sent on every attempt (stored as text so every retry is byte-identical). */
  body: string;
  /** false for test-mode events (docs/test-mode.md); migration 0015 made older rows live. */
  livemode?: boolean;
}

// (accountId, livemode): the events list of one mode, as for payments.
// No `accountId` alone: the events list names the mode too (migration 0019 drops that index).
export const WebhookEvents = defineTable<WebhookEvent>({ name: 'webhook_events', indexes: ['paymentId', ['accountId', 'livemode']] });

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface DeliveryAttempt {
  /** When the request started (ISO). */
  at: string;
  /** `schedule`: by the retry schedule, `manual` from a redelivery request. */
  trigger: 'schedule' | 'manual';
  succeeded: boolean;
  statusCode?: number;
  latencyMs: number;
  error?: string;
  /** First 1 kB of the response body. */
  responseBody?: string;
  /** Interrupted by a stop or crash: outcome unknown, does not use up a scheduled attempt. */
  interrupted?: boolean;
}

export interface WebhookDelivery {
  readonly id: string;
  accountId: string;
  paymentId: string;
  eventId: string;
  eventType: EventType;
  url: string;
  /** The endpoint the URL came from (absent for a payment's own `webhook_url`): a 410 disables it. */
  endpointId?: string;
  status: DeliveryStatus;
  createdAt: string;
  /** Bumped by each redelivery request, which starts a new run of the schedule. */
  cycle: number;
  /** Base of the current run of the schedule: the event's time, or the redelivery request's. */
  cycleStartedAt: string;
  /** Index in the retry schedule of the next attempt. */
  scheduleIndex: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt?: string;
  /** Set while an attempt is on the wire; found set at start-up, it was interrupted. */
  /** An attempt on the wire; `owner` is the instance sending it (several may share one database). */
  inFlight?: { startedAt: string; cycle: number; owner?: string };
  deliveredAt?: string;
  attempts: DeliveryAttempt[];
  /** The event's mode (docs/test-mode.md). */
  livemode?: boolean;
}

export const WebhookDeliveries = defineTable<WebhookDelivery>({
  name: 'webhook_deliveries',
  indexes: ['accountId', 'paymentId', 'status', 'eventId'],
});

/**
 * An account's webhook endpoints (docs/webhooks.md, "Endpoints"). The default endpoint
 * (`PUT /api/webhook-endpoint`) has the account id as its id and gets the events of payments
 * created without a `webhook_url`; endpoints added with `POST /api/webhook-endpoints` have a
 * `we_` id and `accountId`, and get every event of the account whose type they subscribe to.
 */
export interface WebhookEndpoint {
  /** The account id (default endpoint) or `we_...`. */
  readonly id: string;
  /** Set on `we_` endpoints. */
  accountId?: string;
  url: string;
  /** Event types sent here; absent means all. */
  enabledEvents?: EventType[];
  description?: string;
  /** Set when the receiver answered 410 Gone: nothing is sent until it is enabled again. */
  disabledAt?: string;
  disabledReason?: string;
  createdAt?: string;
  updatedAt: string;
  /** false: a test-mode endpoint, which gets test-mode events only (docs/test-mode.md). */
  livemode?: boolean;
}
export const WebhookEndpoints = defineTable<WebhookEndpoint>({ name: 'webhook_endpoints', indexes: ['accountId'] });

/**
 * The default endpoint's row id: the account id in live mode (as always), `<account>:test` in
 * test mode, so each mode has its own default endpoint.
 */
export const defaultEndpointId = (accountId: string, livemode = true): string => (livemode ? accountId : `${accountId}:test`);

/** True when the endpoint is enabled and subscribes to `type`. */
export function endpointWants(e: WebhookEndpoint, type: EventType): boolean {
  return e.disabledAt === undefined && (e.enabledEvents === undefined || e.enabledEvents.includes(type));
}

/** Attempt log entries kept per delivery (redeliveries can add more without bound). */
export const MAX_ATTEMPTS_KEPT = 100;

export function eventTypeFor(status: PaymentStatus): PaymentEventType | undefined {
  return TYPE_FOR_STATUS[status];
}

/** Fields beyond the payment's own, e.g. the refund of a `refund.*` or `payment.refunded` event. */
export type EventExtra = Pick<PaymentEventPayload['data'], 'refund'>;

export function eventPayload(id: string, type: PaymentEventType, payment: Payment, createdMs: number, extra: EventExtra = {}): PaymentEventPayload {
  const data: PaymentEventPayload['data'] = {
    id: payment.id,
    // Interface 6 types the reference as a string; payments created without one send "".
    reference: payment.reference ?? '',
    amount: Number(payment.amount),
    currency: payment.currency,
    status: payment.status,
    metadata: payment.metadata ?? {},
  };
  if (payment.txHash) data.tx_hash = payment.txHash;
  if (payment.failureReason) data.failure_reason = payment.failureReason;
  if (payment.amountRefunded !== undefined) data.amount_refunded = Number(payment.amountRefunded);
  if (extra.refund) data.refund = extra.refund;
  return { id, type, created: Math.floor(createdMs / 1000), livemode: payment.livemode !== false, data };
}

/**
 * When attempt `index` of a run is due. Planned at `cycleStart + schedule[0] + ... +
 * schedule[index]`; if the previous attempt ran late (the service was down), at least
 * `schedule[index]` after it, so a backlog is retried with the intended spacing rather
 * than in a burst. Undefined when the schedule is used up.
 */
export function attemptDueAt(
  schedule: readonly number[],
  cycleStartMs: number,
  index: number,
  previousAttemptMs?: number,
): number | undefined {
  if (index >= schedule.length) return undefined;
  let planned = cycleStartMs;
  for (let i = 0; i <= index; i++) planned += schedule[i]!;
  return previousAttemptMs === undefined ? planned : Math.max(planned, previousAttemptMs + schedule[index]!);
}

export interface OutboxOptions {
  schedule: readonly number[];
  secrets: WebhookSecretsService;
  /** Told about each new delivery once its transaction has committed. */
  onQueued?: (deliveryId: string) => void;
  /** The accounts' endpoints, remembered (endpoint-cache.ts); without it every event reads them. */
  endpoints?: { of(tx: Tx, accountId: string, livemode: boolean): Promise<AccountEndpoints> };
}

/** An account's endpoints in one mode. */
export interface AccountEndpoints {
  /** The default endpoint (`PUT /api/webhook-endpoint`), if set. */
  main?: WebhookEndpoint;
  /** Endpoints added with `POST /api/webhook-endpoints`, in creation order. */
  added: WebhookEndpoint[];
}

/** The account's endpoints in one mode, read through `source` (a transaction, or the store's committed rows). */
export async function readEndpoints(source: { table(def: typeof WebhookEndpoints): ReadTable<WebhookEndpoint> }, accountId: string, livemode: boolean): Promise<AccountEndpoints> {
  const t = source.table(WebhookEndpoints);
  // Asked together: one round trip inside a PostgreSQL transaction (every settle's event reads
  // these while the endpoint cache is cold; a commit group waits on each of its round trips).
  const [main, added] = await Promise.all([t.get(defaultEndpointId(accountId, livemode)), t.findMany({ accountId, livemode })]);
  return main ? { main, added } : { added };
}

export class Outbox {
  constructor(private readonly opts: OutboxOptions) {}

  /** A PaymentsService transition listener: runs inside the status-change transaction. */
  readonly onTransition = async (tx: Tx, before: Payment, after: Payment): Promise<void> => {
    if (before.status === after.status) return;
    const type = eventTypeFor(after.status);
    if (!type) return;
    await this.record(tx, type, after);
  };

  /** Stores the event and, when the payment or its account has an endpoint, its delivery. */
  async record(
    tx: Tx,
    type: PaymentEventType,
    payment: Payment,
    nowMs = Date.now(),
    extra: EventExtra = {},
  ): Promise<{ event: WebhookEvent; delivery?: WebhookDelivery }> {
    const id = newId('evt');
    const livemode = payment.livemode !== false;
    return this.insert(tx, { id, accountId: payment.accountId, subjectId: payment.id, type, nowMs, body: eventPayload(id, type, payment, nowMs, extra), webhookUrl: payment.webhookUrl, livemode, fresh: true });
  }

  /**
   * A transfer step's event (a claim's, docs/claims.md) for one account: called by the claims
   * module inside the transaction that records the step, so a re-run step that loses its
   * compare-and-set records nothing. Goes to the account's default and added endpoints.
   */
  async recordTransfer(tx: Tx, type: TransferEventType, accountId: string, data: TransferEventData, nowMs = Date.now(), livemode = true): Promise<{ event: WebhookEvent; delivery?: WebhookDelivery }> {
    const id = newId('evt');
    return this.insert(tx, { id, accountId, subjectId: data.id, type, nowMs, body: { id, type, created: Math.floor(nowMs / 1000), livemode, data }, livemode, fresh: true });
  }

  /**
   * `policy.updated` (docs/policies.md): called by the policies service inside the transaction
   * that changes the policy, with the id its own record has. The subject is the account (or key).
   */
  async recordPolicy(tx: Tx, e: { id: string; accountId: string; subjectId: string; data: PolicyEventData; nowMs: number; livemode: boolean }): Promise<{ event: WebhookEvent; delivery?: WebhookDelivery }> {
    const type = 'policy.updated' as const;
    const body: PolicyEventPayload = { id: e.id, type, created: Math.floor(e.nowMs / 1000), livemode: e.livemode, data: e.data };
    return this.insert(tx, { id: e.id, accountId: e.accountId, subjectId: e.subjectId, type, nowMs: e.nowMs, body, livemode: e.livemode });
  }

  private async insert(
    tx: Tx,
    /** The id was made here (newId): no row can hold it, so the insert need not be waited for. */
    e: { id: string; accountId: string; subjectId: string; type: EventType; nowMs: number; body: object; webhookUrl?: string; livemode: boolean; fresh?: boolean },
  ): Promise<{ event: WebhookEvent; delivery?: WebhookDelivery }> {
    const { id, type, nowMs, livemode } = e;
    const created = new Date(nowMs).toISOString();
    const row: WebhookEvent = { id, accountId: e.accountId, paymentId: e.subjectId, type, createdAt: created, body: JSON.stringify(e.body), livemode };
    // A fresh id: on PostgreSQL the event rides with the transaction's next statement or its
    // COMMIT (a settle's `settled` commit: one round trip fewer; issue 23, tenth round).
    const events = tx.table(WebhookEvents);
    const event = e.fresh ? await insertUnread(events, row) : await events.insert(row);
    const targets = await this.targets(tx, type, e.accountId, livemode, e.webhookUrl);
    if (targets.length === 0) return { event };
    // Every account with an endpoint has a signing secret per mode; one made here is revealed by rotating.
    await this.opts.secrets.ensureIn(tx, e.accountId, { livemode });
    let first: WebhookDelivery | undefined;
    for (const target of targets) {
      const delivery = await tx.table(WebhookDeliveries).insert({
        id: newId('whd'),
        accountId: e.accountId,
        paymentId: e.subjectId,
        eventId: id,
        eventType: type,
        url: target.url,
        ...(target.endpointId ? { endpointId: target.endpointId } : {}),
        status: 'pending',
        createdAt: created,
        cycle: 0,
        cycleStartedAt: created,
        scheduleIndex: 0,
        nextAttemptAt: new Date(attemptDueAt(this.opts.schedule, nowMs, 0)!).toISOString(),
        attempts: [],
        livemode,
      });
      first ??= delivery;
      // Wake the dispatcher only once the delivery is committed.
      const queued = this.opts.onQueued;
      if (queued) tx.afterCommit(() => queued(delivery.id));
    }
    return { event, delivery: first };
  }

  /**
   * Where an event goes: the payment's own `webhook_url`, else the default endpoint; plus every
   * added endpoint that subscribes to the type. Disabled endpoints get nothing; a URL gets one copy.
   * Only endpoints of the event's mode (docs/test-mode.md).
   */
  private async targets(tx: Tx, type: EventType, accountId: string, livemode: boolean, webhookUrl?: string): Promise<Array<{ url: string; endpointId?: string }>> {
    const { main, added } = this.opts.endpoints ? await this.opts.endpoints.of(tx, accountId, livemode) : await readEndpoints(tx, accountId, livemode);
    const out: Array<{ url: string; endpointId?: string }> = [];
    if (webhookUrl) out.push({ url: webhookUrl });
    else if (main && endpointWants(main, type)) out.push({ url: main.url, endpointId: main.id });
    for (const e of added) {
      if (endpointWants(e, type) && !out.some((t) => t.url === e.url)) out.push({ url: e.url, endpointId: e.id });
    }
    return out;
  }
}
