import { Router } from 'express';
import { z } from 'zod';
import {
  CreateEndpointInput,
  EndpointId,
  UpdateEndpointInput,
  type WebhookEndpointsService,
} from '../webhooks/endpoints.js';
import { EVENT_TYPES, type WebhookEndpoint } from '../webhooks/outbox.js';
import type { Core } from '../core/core.js';
import { invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E403, err } from '../http/openapi-common.js';

const Timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

/** A webhook endpoint as the Developers screen and merchants' servers read it. */
export const WebhookEndpointResource = z.object({
  id: z.string().describe('`we_...`; `default` for the default endpoint (PUT /api/webhook-endpoint).'),
  object: z.literal('webhook_endpoint'),
  url: z.string(),
  default: z.boolean().describe('The default endpoint gets the events of payments created without a webhook_url.'),
  enabled_events: z.array(z.enum(EVENT_TYPES)).nullable().describe('Event types sent here; null: all.'),
  description: z.string().nullable(),
  status: z.enum(['enabled', 'disabled']).describe('`disabled` after the receiver answered 410 Gone (or the merchant disabled it): nothing is sent.'),
  disabled_at: Timestamp.nullable(),
  disabled_reason: z.string().nullable(),
  created_at: Timestamp.nullable(),
  updated_at: Timestamp,
  livemode: z.boolean().describe('false for a test-mode object (docs/test-mode.md).'),
});
export type WebhookEndpointResource = z.infer<typeof WebhookEndpointResource>;

export const WebhookEndpointList = z.object({ ok: z.literal(true), object: z.literal('list'), data: z.array(WebhookEndpointResource) });
export const WebhookEndpointCreated = z.object({
  ok: z.literal(true),
  endpoint: WebhookEndpointResource,
  secret: z.string().optional().describe('Present when adding the endpoint created the signing secret: shown in this response only, and never to a test key (the secret signs live events too).'),
});
export const WebhookEndpointOne = z.object({ ok: z.literal(true), endpoint: WebhookEndpointResource });

registerSchema('WebhookEndpointResource', WebhookEndpointResource);
const E401b = err('Not signed in and no valid key (authentication_error).');
const EndpointParams = z.object({ id: EndpointId });
registerRoute({
  method: 'get',
  path: '/api/webhook-endpoints',
  operationId: 'listWebhookEndpoints',
  summary: "List the account's webhook endpoints (the default one first), with their status",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  responses: { 200: { description: 'The endpoints.', schema: WebhookEndpointList }, 401: E401b },
});
registerRoute({
  method: 'post',
  path: '/api/webhook-endpoints',
  operationId: 'addWebhookEndpoint',
  summary: 'Add a webhook endpoint, optionally for some event types only',
  description: `Every event of the account whose type the endpoint subscribes to is sent to it (at most 16 added endpoints).`,
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  body: CreateEndpointInput,
  responses: {
    201: { description: 'Added.', schema: WebhookEndpointCreated },
    400: E400,
    401: E401b,
    403: E403,
    409: err('Too many endpoints.'),
  },
});
registerRoute({
  method: 'get',
  path: '/api/webhook-endpoints/:id',
  operationId: 'getWebhookEndpointById',
  summary: 'Read a webhook endpoint (status `disabled` after a 410 Gone)',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: EndpointParams,
  responses: { 200: { description: 'The endpoint.', schema: WebhookEndpointOne }, 401: E401b, 404: err('No such endpoint.') },
});
registerRoute({
  method: 'patch',
  path: '/api/webhook-endpoints/:id',
  operationId: 'updateWebhookEndpointById',
  summary: 'Change, enable (`disabled:false`) or disable a webhook endpoint',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: EndpointParams,
  body: UpdateEndpointInput,
  responses: {
    200: { description: 'The endpoint.', schema: WebhookEndpointOne },
    400: E400,
    401: E401b,
    403: E403,
    404: err('No such endpoint.'),
  },
});
registerRoute({
  method: 'delete',
  path: '/api/webhook-endpoints/:id',
  operationId: 'deleteWebhookEndpointById',
  summary: 'Delete a webhook endpoint',
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: EndpointParams,
  responses: { 200: { description: '`{ok:true}`.' }, 401: E401b, 403: E403, 404: err('No such endpoint.') },
});

export const WebhookTestEventResponse = z.object({
  ok: z.literal(true),
  url: z.string().describe('Where the test event was sent.'),
  event: z.object({ id: z.string().describe('`evt_test_...`'), type: z.enum(EVENT_TYPES) }).describe('The sample event sent (the body has the shape of every event, about a payment `pay_test_...` that does not exist).'),
  succeeded: z.boolean().describe('The receiver answered 2xx.'),
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable().describe('Why it failed: the HTTP status, a timeout, a refused connection.'),
  response_body: z.string().nullable().describe("The start of the receiver's answer."),
});
registerSchema('WebhookTestEventResponse', WebhookTestEventResponse);
registerRoute({
  method: 'post',
  path: '/api/webhook-endpoints/:id/test',
  operationId: 'sendWebhookTestEvent',
  summary: 'Send a test event to one endpoint now',
  description:
    "One signed POST of a sample event (the endpoint's first event type, or `payment.settled`) with the `StablePay-Test-Event: 1` header, signed like every event; answers with the receiver's reply. Nothing is stored, retried or listed in the delivery log. `id` is `default` for the default endpoint.",
  tags: ['Webhooks'],
  auth: 'sessionOrBearer',
  params: z.object({ id: z.union([z.literal('default'), EndpointId]) }),
  responses: { 200: { description: "The receiver's answer (also when it failed).", schema: WebhookTestEventResponse }, 401: E401b, 403: E403, 404: err('No such endpoint.'), 409: err('No signing secret yet.') },
});

export function endpointResource(e: WebhookEndpoint): WebhookEndpointResource {
  return {
    id: e.accountId ? e.id : 'default',
    object: 'webhook_endpoint',
    url: e.url,
    default: !e.accountId,
    enabled_events: e.enabledEvents ?? null,
    description: e.description ?? null,
    status: e.disabledAt ? 'disabled' : 'enabled',
    disabled_at: e.disabledAt ?? null,
    disabled_reason: e.disabledReason ?? null,
    created_at: e.createdAt ?? null,
    updated_at: e.updatedAt,
    livemode: e.livemode !== false,
  };
}

/** Several endpoints per account, each with an optional event-type list (docs/webhooks.md, "Endpoints"). */
export function webhookEndpointsRouter(deps: Core, endpoints: WebhookEndpointsService): Router {
  const r = Router();
  r.use('/webhook-endpoints', requireSessionOrKey(deps));
  const idOf = (raw: unknown) => {
    const id = String(raw);
    if (!EndpointId.safeParse(id).success) throw notFound(`No such webhook endpoint: ${id}`);
    return id;
  };

  r.get('/webhook-endpoints', async (_req, res) => {
    const list = await endpoints.list(auth(res).accountId, auth(res).livemode);
    res.json({ ok: true, object: 'list', data: list.map(endpointResource) } satisfies z.infer<typeof WebhookEndpointList>);
  });

  r.post('/webhook-endpoints', async (req, res) => {
    const input = parseInput(CreateEndpointInput, req.body ?? {});
    const a = auth(res);
    // The mode's own signing secret, shown once if this made it (a test key sees the test one).
    const made = await endpoints.create(a.accountId, input, a.livemode);
    if (!made.ok) throw invalidRequest(made.message, made.param, made.reason === 'too_many' ? 409 : 400);
    const body: z.infer<typeof WebhookEndpointCreated> = {
      ok: true,
      endpoint: endpointResource(made.endpoint),
      ...(made.secret ? { secret: made.secret } : {}),
    };
    res.status(201).json(body);
  });

  r.get('/webhook-endpoints/:id', async (req, res) => {
    const id = idOf(req.params.id);
    const e = await endpoints.get(auth(res).accountId, id, auth(res).livemode);
    if (!e) throw notFound(`No such webhook endpoint: ${id}`);
    res.json({ ok: true, endpoint: endpointResource(e) } satisfies z.infer<typeof WebhookEndpointOne>);
  });

  r.patch('/webhook-endpoints/:id', async (req, res) => {
    const id = idOf(req.params.id);
    const input = parseInput(UpdateEndpointInput, req.body ?? {});
    const done = await endpoints.update(auth(res).accountId, id, input, auth(res).livemode);
    if (!done.ok) {
      if (done.reason === 'not_found') throw notFound(done.message);
      throw invalidRequest(done.message, done.param);
    }
    res.json({ ok: true, endpoint: endpointResource(done.endpoint) } satisfies z.infer<typeof WebhookEndpointOne>);
  });

  r.post('/webhook-endpoints/:id/test', async (req, res) => {
    const id = req.params.id === 'default' ? 'default' : idOf(req.params.id);
    const sent = await deps.webhooks.sendTest(auth(res).accountId, id, auth(res).livemode);
    if (!sent.ok) {
      if (sent.reason === 'not_found') throw notFound(sent.message);
      throw invalidRequest(sent.message, undefined, 409);
    }
    const r = sent.result;
    res.json({
      ok: true,
      url: sent.url,
      event: { id: sent.event.id, type: sent.event.type },
      succeeded: r.ok,
      status_code: r.statusCode ?? null,
      latency_ms: Math.round(r.latencyMs),
      error: r.ok ? null : (r.error ?? (r.statusCode ? `HTTP ${r.statusCode}` : 'no response')),
      response_body: r.responseBody ?? null,
    } satisfies z.infer<typeof WebhookTestEventResponse>);
  });

  r.delete('/webhook-endpoints/:id', async (req, res) => {
    const id = idOf(req.params.id);
    if (!(await endpoints.remove(auth(res).accountId, id, auth(res).livemode))) throw notFound(`No such webhook endpoint: ${id}`);
    res.json({ ok: true });
  });
  return r;
}
