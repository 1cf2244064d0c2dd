import { Router } from 'express';
import { z } from 'zod';
import { EventId, ListEventsQuery, type EventsService } from '../events/events.js';
import { WebhookEventPayload } from '../webhooks/schemas.js';
import type { Core } from '../core/core.js';
import { invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey } from '../http/auth.js';

export const EventList = z.object({
  object: z.literal('list'),
  data: z.array(WebhookEventPayload).describe('Newest first; each exactly the body its webhook carries.'),
  has_more: z.boolean().describe('More events follow; pass the last id as `starting_after`.'),
});
export type EventList = z.infer<typeof EventList>;

/** `GET /api/v1/events`, `GET /api/v1/events/:id` (bearer): reconciliation from the event log (docs/events.md). */
export function eventsRouter(deps: Core, events: EventsService): Router {
  const r = Router();
  r.get('/v1/events', requireKey(deps), async (req, res) => {
    const q = parseInput(ListEventsQuery, req.query);
    const listed = await events.list(auth(res).accountId, q);
    if (!listed.ok) throw invalidRequest(listed.message, listed.param);
    res.set('Cache-Control', 'no-store');
    res.json({ object: 'list', data: listed.data, has_more: listed.hasMore } satisfies EventList);
  });

  r.get('/v1/events/:id', requireKey(deps), async (req, res) => {
    const id = String(req.params.id);
    const event = EventId.safeParse(id).success ? await events.get(auth(res).accountId, id) : undefined;
    if (!event) throw notFound(`No such event: ${id}`);
    res.set('Cache-Control', 'no-store');
    res.json(event);
  });
  return r;
}
