import { z } from 'zod';
import { Metadata, PaymentStatus } from '../payments/payment-schemas.js';
import { RefundResource } from '../refunds/refund-schemas.js';
import { PolicyEventView } from '../policies/policy-schemas.js';

const Livemode = z.boolean().describe('false for test-mode events (made with an `sk_test_` key; docs/test-mode.md).');

/** Events about a payment (the body's `data` is the payment). */
export const PAYMENT_EVENT_TYPES = [
  'payment.settled',
  'payment.expired',
  'payment.failed',
  // DESIGN.md 10: additive event kinds.
  'payment.canceled',
  'payment.refunded',
  'refund.succeeded',
  'refund.failed',
  // Manual capture (x402 auth-capture, docs/x402.md).
  'payment.authorized',
  'payment.captured',
  'payment.voided',
] as const;
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];
/** Events about a transfer by claim link (docs/claims.md; `data` is the claim). */
export const TRANSFER_EVENT_TYPES = ['transfer.claim_created', 'transfer.claimed', 'transfer.claim_canceled', 'transfer.claim_expired'] as const;
export type TransferEventType = (typeof TRANSFER_EVENT_TYPES)[number];
/** A spend policy changed (docs/policies.md; `data` is the policy before and after). */
export const POLICY_EVENT_TYPES = ['policy.updated'] as const;
export const EVENT_TYPES = [...PAYMENT_EVENT_TYPES, ...TRANSFER_EVENT_TYPES, ...POLICY_EVENT_TYPES] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const isTransferEvent = (t: EventType): t is TransferEventType => (TRANSFER_EVENT_TYPES as readonly string[]).includes(t);

const HttpUrl = z.url({ protocol: /^https?$/, message: 'must be a valid http(s) URL' }).max(2048, 'must be at most 2048 characters');

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
export const PaymentEventPayload = z.object({
  id: z.string().describe('Event id: evt_...'),
  type: z.enum(PAYMENT_EVENT_TYPES),
  created: z.number().int().describe('Unix seconds of the state change.'),
  livemode: Livemode,
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
export type PaymentEventPayload = z.infer<typeof PaymentEventPayload>;

/** `data` of a `transfer.*` event: the claim (docs/claims.md, "Events and webhooks"). */
export const TransferEventData = z.object({
  id: z.string().describe('The claim: clm_...'),
  object: z.literal('transfer'),
  type: z.literal('claim'),
  role: z.enum(['sender', 'recipient']).describe("Whose event this is: the account that sent the claim, or the one that claimed it."),
  status: z.enum(['open', 'claimed', 'canceled', 'expired']),
  amount: z.string().describe('What the recipient gets, in USDC (decimal string).'),
  fee: z.string().describe('The fee in USDC (kept on cancel and expiry, as on a claim).'),
  currency: z.literal('USDC'),
  source_amount: z.string().describe("The amount as the sender typed it, in `source_currency`."),
  source_currency: z.string(),
  recipient: z.string().describe('The phone or email sent to, masked.'),
  sender_account: z.string(),
  expires_at: z.string().describe('When an unclaimed claim goes back to the sender (ISO 8601).'),
  tx_hash: z.string().optional().describe("The step's on-chain transaction."),
  returned_amount: z.string().optional().describe('`transfer.claim_canceled` / `transfer.claim_expired`: USDC back in the sender\'s wallet (the amount).'),
  fee_kept: z.string().optional().describe('`transfer.claim_canceled` / `transfer.claim_expired`: the fee kept, in USDC.'),
});
export type TransferEventData = z.infer<typeof TransferEventData>;

export const TransferEventPayload = z.object({
  id: z.string().describe('Event id: evt_...'),
  type: z.enum(TRANSFER_EVENT_TYPES),
  created: z.number().int().describe('Unix seconds of the step.'),
  livemode: Livemode,
  data: TransferEventData,
});
export type TransferEventPayload = z.infer<typeof TransferEventPayload>;

/** `data` of `policy.updated`: which policy (the account's or one key's), after and before. */
export const PolicyEventData = PolicyEventView.shape.data;
export type PolicyEventData = z.infer<typeof PolicyEventData>;

export const PolicyEventPayload = z.object({
  id: z.string().describe('Event id: evt_... (the same id as in GET /api/policies/events).'),
  type: z.enum(POLICY_EVENT_TYPES),
  created: z.number().int().describe('Unix seconds of the change.'),
  livemode: Livemode.describe("The account's policy: true; a key's policy: the key's mode."),
  data: PolicyEventData,
});
export type PolicyEventPayload = z.infer<typeof PolicyEventPayload>;

/** Any event body: a payment's, a transfer's or a policy's (tell them apart by `type`). */
export const WebhookEventPayload = z.union([PaymentEventPayload, TransferEventPayload, PolicyEventPayload]);
export type WebhookEventPayload = z.infer<typeof WebhookEventPayload>;
