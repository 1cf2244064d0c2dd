/**
 * The events API (DESIGN.md 10): the webhook events an account's payments produced, read back
 * for reconciliation. The bodies are the stored webhook bodies byte for byte (the outbox keeps
 * every event, with or without an endpoint), so a merchant whose receiver was down reads
 * exactly what it missed. Events are kept at least 30 days; nothing deletes them today.
 */
import { z } from 'zod';
import { PageLimit } from '../lib/paging.js';
import type { Store } from '../store/index.js';
import { fail, type Result } from '../lib/results.js';
import { inMode } from '../lib/livemode.js';
import { EVENT_TYPES, WebhookEvents, type WebhookEvent } from '../webhooks/outbox.js';
import type { WebhookEventPayload } from '../webhooks/webhook-schemas.js';

/** How long events are guaranteed to stay readable (docs/events.md). */
export const EVENT_RETENTION_DAYS = 30;

const UnixSeconds = (name: string) =>
  z.coerce
    .number({ error: `${name} must be a unix timestamp in seconds` })
    .int(`${name} must be a unix timestamp in seconds`)
    .min(0, `${name} must be a unix timestamp in seconds`)
    .max(99_999_999_999, `${name} must be a unix timestamp in seconds`);

export const ListEventsQuery = z
  .object({
    limit: PageLimit,
    starting_after: z.string().min(1).max(100).optional().describe('An event id: the page starts after it (older events).'),
    type: z.enum(EVENT_TYPES, { error: `type must be one of ${EVENT_TYPES.join(', ')}` }).optional(),
    created_gte: UnixSeconds('created_gte').optional().describe('Only events created at or after this unix time (seconds).'),
    created_lte: UnixSeconds('created_lte').optional().describe('Only events created at or before this unix time (seconds).'),
    payment: z.string().min(1).max(100).optional().describe("Only this payment's events (a payment id)."),
  })
  .strict();
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const EventId = z.string().regex(/^evt_[0-9A-Za-z]{10,64}$/, 'not an event id');

export type EventsFailure = 'invalid_cursor' | 'invalid_range';

export class EventsService {
  constructor(private readonly store: Store) {}

  /** Newest first, scoped to the account; the cursor must be one of the account's events. */
  async list(
    accountId: string,
    q: ListEventsQuery,
    livemode = true,
  ): Promise<Result<{ data: WebhookEventPayload[]; hasMore: boolean }, EventsFailure>> {
    if (q.created_gte !== undefined && q.created_lte !== undefined && q.created_gte > q.created_lte) {
      return fail('invalid_range', 'created_gte must not be after created_lte.', 'created_gte');
    }
    const table = this.store.table(WebhookEvents);
    if (q.starting_after) {
      const cursor = await table.get(q.starting_after);
      if (!cursor || cursor.accountId !== accountId || !inMode(cursor, livemode)) {
        return fail('invalid_cursor', `No such event: ${q.starting_after}`, 'starting_after');
      }
    }
    const where = { accountId, livemode, ...(q.type ? { type: q.type } : {}), ...(q.payment ? { paymentId: q.payment } : {}) };
    const ranged = q.created_gte !== undefined || q.created_lte !== undefined;
    const rows = await table.findMany(where, { order: 'desc', after: q.starting_after, limit: ranged ? undefined : q.limit + 1 });
    const inRange = ranged ? rows.filter((e) => within(e, q)) : rows;
    return { ok: true, data: inRange.slice(0, q.limit).map(body), hasMore: inRange.length > q.limit };
  }

  async get(accountId: string, id: string, livemode = true): Promise<WebhookEventPayload | undefined> {
    const e = await this.store.table(WebhookEvents).get(id);
    return e && e.accountId === accountId && inMode(e, livemode) ? body(e) : undefined;
  }
}

function within(e: WebhookEvent, q: ListEventsQuery): boolean {
  const created = Math.floor(Date.parse(e.createdAt) / 1000);
  return (q.created_gte === undefined || created >= q.created_gte) && (q.created_lte === undefined || created <= q.created_lte);
}

/** The exact body the webhook carries. */
const body = (e: WebhookEvent): WebhookEventPayload => JSON.parse(e.body) as WebhookEventPayload;
