import { Router, type Request, type Response } from 'express';
import { CreateRefundInput, ListRefundsQuery, RefundId, type RefundList } from '../refunds/schemas.js';
import { RefundReason, refundResource, type RefundsService } from '../refunds/refunds.js';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey, requireSession } from '../http/auth.js';
import { IdempotencyKeyHeader } from './payments.router.js';

/**
 * Refunds (docs/refunds.md): `POST/GET /api/v1/payments/:id/refunds`, `GET /api/v1/refunds/:id`
 * with a bearer key, and the dashboard's `/api/app/payments/:id/refunds` with the session cookie.
 */
export function refundsRouter(deps: Core, refunds: RefundsService): Router {
  const r = Router();

  const create = async (req: Request, res: Response) => {
    const key = req.get('Idempotency-Key');
    if (key !== undefined && !IdempotencyKeyHeader.safeParse(key).success) {
      throw invalidRequest('Idempotency-Key must be 1-255 printable ASCII characters.', 'Idempotency-Key');
    }
    const input = parseInput(CreateRefundInput, req.body ?? {});
    const made = await refunds.create(auth(res).accountId, String(req.params.id), input, key);
    if (!made.ok) {
      if (made.reason === RefundReason.notFound) throw notFound(made.message);
      if (made.reason === RefundReason.chainUnavailable) throw new ApiError(503, 'api_error', made.message);
      throw invalidRequest(made.message, made.param, made.reason === RefundReason.idempotencyConflict ? 409 : 400);
    }
    if (made.replayed) res.set('Idempotent-Replayed', 'true');
    res.status(201).json(refundResource(made.refund));
  };

  const list = async (req: Request, res: Response) => {
    const q = parseInput(ListRefundsQuery, req.query);
    const listed = await refunds.list(auth(res).accountId, String(req.params.id), q);
    if (!listed.ok) {
      if (listed.reason === 'not_found') throw notFound(listed.message);
      throw invalidRequest(listed.message, listed.param);
    }
    res.set('Cache-Control', 'no-store');
    res.json({ object: 'list', data: listed.data.map(refundResource), has_more: listed.hasMore } satisfies RefundList);
  };

  r.post('/v1/payments/:id/refunds', requireKey(deps), create);
  r.get('/v1/payments/:id/refunds', requireKey(deps), list);
  r.post('/app/payments/:id/refunds', requireSession(deps), create);
  r.get('/app/payments/:id/refunds', requireSession(deps), list);

  r.get('/v1/refunds/:id', requireKey(deps), async (req, res) => {
    const id = String(req.params.id);
    const found = RefundId.safeParse(id).success ? await refunds.get(auth(res).accountId, id) : undefined;
    if (!found) throw notFound(`No such refund: ${id}`);
    res.set('Cache-Control', 'no-store');
    res.json(refundResource(found));
  });
  return r;
}
