import { z } from 'zod';
import { Metadata, PaymentStatus } from '../payments/schemas.js';
import { RefundResource } from '../refunds/schemas.js';

export const EVENT_TYPES = [
  'payment.settled',
  'payment.expired',
  'payment.failed',
  // DESIGN.md 10: additive event kinds.
  'payment.canceled',
  'payment.refunded',
  'refund.succeeded',
  'refund.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be a valid http(s) URL' }).max(2048);

/** PUT /api/webhook-endpoint: the account's default endpoint; null clears it. */
export const SetEndpointInput = z
  .object({
    url: HttpUrl.nullable(),
    enabled_events: z
      .array(z.enum(EVENT_TYPES, { error: `event types must be among ${EVENT_TYPES.join(', ')}` }))
      .min(1, 'enabled_events must list at least one event type (null for all)')
      .nullable()
      .optional()
      .describe('Event types sent to this endpoint; null: all; omitted: unchanged.'),
  })
  .strict();
export type SetEndpointInput = z.infer<typeof SetEndpointInput>;

/** GET /api/webhook-deliveries */
export const ListDeliveriesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(10),
    starting_after: z.string().min(1).max(100).optional(),
    payment_id: z.string().min(1).max(100).optional(),
  })
  .strict();
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuery>;

export const DeliveryId = z.string().regex(/^whd_[0-9A-Za-z]{10,64}$/, 'not a webhook delivery id');

/**
 * The JSON body merchants receive (interface 6): built by `eventPayload`, stored as text
 * with the event, and documented in OpenAPI from this same schema.
 */
export const WebhookEventPayload = z.object({
  id: z.string().describe('Event id: evt_...'),
  type: z.enum(EVENT_TYPES),
  created: z.number().int().describe('Unix seconds of the state change.'),
  data: z.object({
    id: z.string(),
    reference: z.string().describe('"" for payments created without one.'),
    amount: z.number(),
    currency: z.string(),
    status: PaymentStatus,
    metadata: Metadata,
    tx_hash: z.string().optional(),
    failure_reason: z.string().optional(),
    amount_refunded: z.number().optional().describe('Present once a refund succeeded: the total refunded, in `currency`.'),
    refund: RefundResource.optional().describe('`refund.*` and `payment.refunded` events: the refund concerned.'),
  }),
});
export type WebhookEventPayload = z.infer<typeof WebhookEventPayload>;
