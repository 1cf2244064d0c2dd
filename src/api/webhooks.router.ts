import { Router } from 'express';
import { z } from 'zod';
import { DeliveryId, ListDeliveriesQuery, SetEndpointInput, WebhookEventPayload } from '../webhooks/webhook-schemas.js';
import { EVENT_TYPES } from '../webhooks/outbox.js';
import type { DeliveryWithEvent, WebhooksService } from '../webhooks/webhooks.js';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E401, E403, E404, err } from '../http/openapi-common.js';

const Timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

/** POST /api/webhook-secret */
export const WebhookSecretResponse = z.object({
  ok: z.literal(true),
  secret: z.string().describe('The new signing secret (whsec_...). Shown in this response only.'),
  previous_expires_at: Timestamp.optional().describe('Present after a rotation: the old secret keeps signing until then.'),
});
export type WebhookSecretResponse = z.infer<typeof WebhookSecretResponse>;

/** GET /api/webhook-endpoint */
export const WebhookEndpointResponse = z.object({
  ok: z.literal(true),
  url: z.string().nullable().describe('The default endpoint; null when none is set.'),
  secret_configured: z.boolean(),
  secret_created_at: Timestamp.nullable(),
  previous_secret_expires_at: Timestamp.nullable().describe('Set while a rotated-out secret still signs.'),
  status: z.enum(['enabled', 'disabled']).optional().describe('`disabled` after the receiver answered 410 Gone; PUT the URL again to enable it.'),
  disabled_at: Timestamp.nullable().optional(),
  disabled_reason: z.string().nullable().optional(),
  enabled_events: z.array(z.enum(EVENT_TYPES)).nullable().optional().describe('Event types sent here; null: all.'),
});
export type WebhookEndpointResponse = z.infer<typeof WebhookEndpointResponse>;

/** PUT /api/webhook-endpoint */
export const WebhookEndpointSetResponse = z.object({
  ok: z.literal(true),
  url: z.string().nullable().describe('The endpoint now set; null when cleared.'),
  secret: z
    .string()
    .optional()
    .describe('Present when setting the endpoint created the signing secret: shown in this response only.'),
});
export type WebhookEndpointSetResponse = z.infer<typeof WebhookEndpointSetResponse>;

export const WebhookDeliveryAttempt = z.object({
  at: Timestamp.describe('When the request started.'),
  trigger: z.enum(['schedule', 'manual']).describe('`schedule`: the retry schedule; `manual`: a redelivery request.'),
  succeeded: z.boolean(),
  status_code: z.number().int().nullable().describe('HTTP status of the response; null when none came back.'),
  latency_ms: z.number(),
  error: z.string().nullable(),
  response_body: z.string().nullable().describe('First 1 kB of the response body.'),
});
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttempt>;

/** A delivery with its attempt log, as the Developers screen and merchants' servers read it. */
export const WebhookDeliveryResource = z.object({
  id: z.string().describe('Delivery id: whd_...'),
  object: z.literal('webhook_delivery'),
  event_id: z.string(),
  event_type: z.enum(EVENT_TYPES),
  payment_id: z.string(),
  url: z.string(),
  status: z.enum(['pending', 'delivered', 'dead']),
  created_at: Timestamp,
  next_attempt_at: Timestamp.nullable().describe('When the next attempt is due (pending only).'),
  delivered_at: Timestamp.nullable(),
  attempt_count: z.number().int(),
  attempts: z.array(WebhookDeliveryAttempt).describe('Oldest first.'),
  event: WebhookEventPayload.nullable().describe('The event as sent on every attempt.'),
  livemode: z.boolean().describe('false for a test-mode object (docs/test-mode.md).'),
});
export type WebhookDeliveryResource = z.infer<typeof WebhookDeliveryResource>;

/** GET /api/webhook-deliveries */
export const WebhookDeliveryListResponse = z.object({
  ok: z.literal(true),
  object: z.literal('list'),
  data: z.array(WebhookDeliveryResource).describe('Newest first.'),
  has_more: z.boolean().describe('More deliveries follow; pass the last id as `starting_after`.'),
});
export type WebhookDeliveryListResponse = z.infer<typeof WebhookDeliveryListResponse>;

/** POST /api/webhook-deliveries/:id/redeliver */
export const WebhookRedeliverResponse = z.object({ ok: z.literal(true), delivery: WebhookDeliveryResource });

registerSchema('SetEndpointInput', SetEndpointInput);
registerSchema('WebhookSecret', WebhookSecretResponse);
registerSchema('WebhookEndpoint', WebhookEndpointResponse);
registerSchema('WebhookEndpointSet', WebhookEndpointSetResponse);
registerSchema('WebhookDeliveryAttempt', WebhookDeliveryAttempt);
registerSchema('WebhookDelivery', WebhookDeliveryResource);
registerSchema('WebhookDeliveryList', WebhookDeliveryListResponse);
registerSchema('WebhookRedelivered', WebhookRedeliverResponse);

// DESIGN.md 7
registerRoute({
  method: 'post',
  path: '/api/webhook-secret',
  operationId: 'rotateWebhookSecret',
  summary: "Create or rotate the webhook signing secret (whsec_...) of the caller's mode; the old one stays valid for the overlap",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  responses: {
    200: {
      description: 'The new secret, shown in this response only; after a rotation, also when the old one stops signing.',
      schema: WebhookSecretResponse,
    },
    401: E401,
    403: err('A cookie-authenticated change from a foreign `Origin`: permission_error.'),
  },
});

registerRoute({
  method: 'get',
  path: '/api/webhook-endpoint',
  operationId: 'getWebhookEndpoint',
  summary: "The account's default webhook endpoint and secret status",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  responses: {
    200: { description: 'The default endpoint (null when none) and the status of the signing secret.', schema: WebhookEndpointResponse },
    401: E401,
  },
});

registerRoute({
  method: 'put',
  path: '/api/webhook-endpoint',
  operationId: 'setWebhookEndpoint',
  summary: "Set (or clear with null) the account's default webhook endpoint",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  body: SetEndpointInput,
  responses: {
    200: {
      description: 'The endpoint now set (null when cleared), with the signing secret if setting it created one.',
      schema: WebhookEndpointSetResponse,
    },
    400: E400,
    401: E401,
    403: E403,
  },
});

registerRoute({
  method: 'get',
  path: '/api/webhook-deliveries',
  operationId: 'listWebhookDeliveries',
  summary: 'Webhook deliveries with every attempt, newest first',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  query: ListDeliveriesQuery,
  responses: { 200: { description: 'A page of deliveries, newest first.', schema: WebhookDeliveryListResponse }, 400: E400, 401: E401 },
});

registerRoute({
  method: 'get',
  path: '/api/webhook-deliveries/:id',
  operationId: 'getWebhookDelivery',
  summary: 'One webhook delivery with its attempts and event',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: z.object({ id: DeliveryId }),
  responses: { 200: { description: 'The delivery.', schema: WebhookDeliveryResource }, 401: E401, 404: E404 },
});

registerRoute({
  method: 'post',
  path: '/api/webhook-deliveries/:id/redeliver',
  operationId: 'redeliverWebhook',
  summary: 'Send a delivery again (for example a dead one)',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: z.object({ id: DeliveryId }),
  responses: {
    200: { description: 'The delivery after the new attempt, which is already in its log.', schema: WebhookRedeliverResponse },
    401: E401,
    403: E403,
    404: E404,
  },
});
export type WebhookRedeliverResponse = z.infer<typeof WebhookRedeliverResponse>;

/** Presents a stored delivery (and its event) as `WebhookDeliveryResource`. */
export function deliveryResource({ delivery: d, event }: DeliveryWithEvent): WebhookDeliveryResource {
  return {
    id: d.id,
    object: 'webhook_delivery',
    event_id: d.eventId,
    event_type: d.eventType,
    payment_id: d.paymentId,
    url: d.url,
    status: d.status,
    created_at: d.createdAt,
    next_attempt_at: d.status === 'pending' ? (d.nextAttemptAt ?? null) : null,
    delivered_at: d.deliveredAt ?? null,
    attempt_count: d.attempts.length,
    attempts: d.attempts.map(
      (a): WebhookDeliveryAttempt => ({
        at: a.at,
        trigger: a.trigger,
        succeeded: a.succeeded,
        status_code: a.statusCode ?? null,
        latency_ms: a.latencyMs,
        error: a.error ?? null,
        response_body: a.responseBody ?? null,
      }),
    ),
    event: event ? (JSON.parse(event.body) as WebhookEventPayload) : null,
    livemode: d.livemode !== false,
  };
}

/** DESIGN.md 7: signing secret, default endpoint, delivery log and redelivery. Session or bearer. */
export function webhooksRouter(deps: Core, webhooks: WebhooksService): Router {
  const r = Router();
  r.use(['/webhook-secret', '/webhook-endpoint', '/webhook-deliveries'], requireSessionOrKey(deps));

  r.post('/webhook-secret', async (_req, res) => {
    const a = auth(res);
    // Each mode has its own secret (docs/test-mode.md): a test key (or the app in test mode)
    // rotates, and so learns, the test secret only, which signs nothing live.
    const { secret, previousExpiresAt } = await webhooks.rotateSecret(a.accountId, a.livemode);
    const body: WebhookSecretResponse = { ok: true, secret, ...(previousExpiresAt ? { previous_expires_at: previousExpiresAt } : {}) };
    res.json(body);
  });

  r.get('/webhook-endpoint', async (_req, res) => {
    const { url, secret, endpoint } = await webhooks.getEndpoint(auth(res).accountId, auth(res).livemode);
    const body: WebhookEndpointResponse = {
      ok: true,
      url,
      secret_configured: secret.configured,
      secret_created_at: secret.createdAt ?? null,
      previous_secret_expires_at: secret.previousExpiresAt ?? null,
      status: endpoint?.disabledAt ? 'disabled' : 'enabled',
      disabled_at: endpoint?.disabledAt ?? null,
      disabled_reason: endpoint?.disabledReason ?? null,
      enabled_events: endpoint?.enabledEvents ?? null,
    };
    res.json(body);
  });

  r.put('/webhook-endpoint', async (req, res) => {
    const input = parseInput(SetEndpointInput, req.body ?? {});
    const a = auth(res);
    // The mode's own secret, shown once if no response has shown it (a test key sees the test one).
    const set = await webhooks.setEndpoint(a.accountId, input.url, input.enabled_events, a.livemode);
    if (!set.ok) throw invalidRequest(set.message, set.param);
    const body: WebhookEndpointSetResponse = { ok: true, url: set.url, ...(set.secret ? { secret: set.secret } : {}) };
    res.json(body);
  });

  r.get('/webhook-deliveries', async (req, res) => {
    const q = parseInput(ListDeliveriesQuery, req.query);
    const listed = await webhooks.listDeliveries(auth(res).accountId, q, auth(res).livemode);
    if (!listed.ok) throw invalidRequest(listed.message, listed.param);
    const body: WebhookDeliveryListResponse = { ok: true, object: 'list', data: listed.data.map(deliveryResource), has_more: listed.hasMore };
    res.json(body);
  });

  r.get('/webhook-deliveries/:id', async (req, res) => {
    const id = String(req.params.id);
    const found = DeliveryId.safeParse(id).success ? await webhooks.getDelivery(auth(res).accountId, id, auth(res).livemode) : undefined;
    if (!found) throw notFound(`No such webhook delivery: ${id}`);
    res.json(deliveryResource(found));
  });

  r.post('/webhook-deliveries/:id/redeliver', async (req, res) => {
    const id = String(req.params.id);
    const done = DeliveryId.safeParse(id).success ? await webhooks.redeliver(auth(res).accountId, id, auth(res).livemode) : undefined;
    if (!done?.ok) throw notFound(`No such webhook delivery: ${id}`);
    const body: WebhookRedeliverResponse = { ok: true, delivery: deliveryResource(done) };
    res.json(body);
  });
  return r;
}
