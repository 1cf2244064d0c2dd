import { Router } from 'express';
import { z } from 'zod';
import { EventId, ListEventsQuery, type EventsService } from '../events/events.js';
import { WebhookEventPayload } from '../webhooks/webhook-schemas.js';
import type { Core } from '../core/core.js';
import { invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey } from '../http/auth.js';
import { registerRoute } from '../http/openapi.js';
import { E400, E401, err } from '../http/openapi-common.js';

export const EventList = z.object({
  object: z.literal('list'),
  data: z.array(WebhookEventPayload).describe('Newest first; each exactly the body its webhook carries.'),
  has_more: z.boolean().describe('More events follow; pass the last id as `starting_after`.'),
});
export type EventList = z.infer<typeof EventList>;

registerRoute({
  method: 'get',
  path: '/api/v1/events',
  operationId: 'listEvents',
  summary: "List the account's events, newest first (the webhook bodies, kept at least 30 days)",
  description:
    'Every event a payment produced, whether or not a webhook endpoint was set, as the exact JSON its webhook carries. ' +
    'Page with `limit` and `starting_after` (the last id of the previous page); filter by `type`, `payment` and ' +
    '`created_gte` / `created_lte` (unix seconds, inclusive). A receiver that was down pages through what it missed.',
  tags: ['Events'],
  auth: 'bearer',
  query: ListEventsQuery,
  responses: {
    200: { description: 'A page of events.', schema: EventList },
    400: E400,
    401: E401,
  },
});

registerRoute({
  method: 'get',
  path: '/api/v1/events/:id',
  operationId: 'getEvent',
  summary: 'Read one event (the exact webhook body)',
  tags: ['Events'],
  auth: 'bearer',
  params: z.object({ id: EventId }),
  responses: {
    200: { description: 'The event.', schema: WebhookEventPayload },
    401: E401,
    404: err("No such event (another account's event is a 404 too)."),
  },
});

/** `GET /api/v1/events`, `GET /api/v1/events/:id` (bearer): reconciliation from the event log (docs/events.md). */
export function eventsRouter(deps: Core, events: EventsService): Router {
  const r = Router();
  r.get('/v1/events', requireKey(deps), async (req, res) => {
    const q = parseInput(ListEventsQuery, req.query);
    const listed = await events.list(auth(res).accountId, q, auth(res).livemode);
    if (!listed.ok) throw invalidRequest(listed.message, listed.param);
    res.set('Cache-Control', 'no-store');
    res.json({ object: 'list', data: listed.data, has_more: listed.hasMore } satisfies EventList);
  });

  r.get('/v1/events/:id', requireKey(deps), async (req, res) => {
    const id = String(req.params.id);
    const event = EventId.safeParse(id).success ? await events.get(auth(res).accountId, id, auth(res).livemode) : undefined;
    if (!event) throw notFound(`No such event: ${id}`);
    res.set('Cache-Control', 'no-store');
    res.json(event);
  });
  return r;
}
