import { Router } from 'express';
import { DeliveryId, ListDeliveriesQuery, SetEndpointInput } from '../webhooks/schemas.js';
import type { DeliveryWithEvent, WebhooksService } from '../webhooks/webhooks.js';
import type { AppDeps } from './deps.js';
import { invalidRequest, notFound, parseInput } from './errors.js';
import { auth, requireSessionOrKey } from './auth.js';

/** A delivery with its attempt log, as the Developers screen and merchants' servers read it. */
export function deliveryResource({ delivery: d, event }: DeliveryWithEvent) {
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
    attempts: d.attempts.map((a) => ({
      at: a.at,
      trigger: a.trigger,
      succeeded: a.succeeded,
      status_code: a.statusCode ?? null,
      latency_ms: a.latencyMs,
      error: a.error ?? null,
      response_body: a.responseBody ?? null,
    })),
    event: event ? (JSON.parse(event.body) as unknown) : null,
  };
}

/** DESIGN.md 7: signing secret, default endpoint, delivery log and redelivery. Session or bearer. */
export function webhooksRouter(deps: AppDeps, webhooks: WebhooksService): Router {
  const r = Router();
  r.use(['/webhook-secret', '/webhook-endpoint', '/webhook-deliveries'], requireSessionOrKey(deps));

  r.post('/webhook-secret', async (_req, res) => {
    const { secret, previousExpiresAt } = await webhooks.rotateSecret(auth(res).accountId);
    res.json({ ok: true, secret, ...(previousExpiresAt ? { previous_expires_at: previousExpiresAt } : {}) });
  });

  r.get('/webhook-endpoint', async (_req, res) => {
    const { url, secret } = await webhooks.getEndpoint(auth(res).accountId);
    res.json({
      ok: true,
      url,
      secret_configured: secret.configured,
      secret_created_at: secret.createdAt ?? null,
      previous_secret_expires_at: secret.previousExpiresAt ?? null,
    });
  });

  r.put('/webhook-endpoint', async (req, res) => {
    const input = parseInput(SetEndpointInput, req.body ?? {});
    const set = await webhooks.setEndpoint(auth(res).accountId, input.url);
    if (!set.ok) throw invalidRequest(set.message, set.param);
    res.json({ ok: true, url: set.url, ...(set.secret ? { secret: set.secret } : {}) });
  });

  r.get('/webhook-deliveries', async (req, res) => {
    const q = parseInput(ListDeliveriesQuery, req.query);
    const listed = await webhooks.listDeliveries(auth(res).accountId, q);
    if (!listed.ok) throw invalidRequest(listed.message, listed.param);
    res.json({ ok: true, object: 'list', data: listed.data.map(deliveryResource), has_more: listed.hasMore });
  });

  r.get('/webhook-deliveries/:id', async (req, res) => {
    const id = String(req.params.id);
    const found = DeliveryId.safeParse(id).success ? await webhooks.getDelivery(auth(res).accountId, id) : undefined;
    if (!found) throw notFound(`No such webhook delivery: ${id}`);
    res.json(deliveryResource(found));
  });

  r.post('/webhook-deliveries/:id/redeliver', async (req, res) => {
    const id = String(req.params.id);
    const done = DeliveryId.safeParse(id).success ? await webhooks.redeliver(auth(res).accountId, id) : undefined;
    if (!done?.ok) throw notFound(`No such webhook delivery: ${id}`);
    res.json({ ok: true, delivery: deliveryResource(done) });
  });
  return r;
}
