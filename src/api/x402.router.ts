import { Router, type Response } from 'express';
import type { Core } from '../core/core.js';
import { auth, requireKey } from '../http/auth.js';
import { FacilitatorRequest } from '../x402/schemas.js';
import { X402Reason } from '../x402/reasons.js';

/** A body that is not a facilitator request: the reason names the part at fault. */
function badRequest(body: unknown): { reason: X402Reason; message: string } | { req: FacilitatorRequest } {
  const r = FacilitatorRequest.safeParse(body ?? {});
  if (r.success) return { req: r.data };
  const issue = r.error.issues[0]!;
  const where = issue.path.map(String).join('.') || 'body';
  const reason = issue.path[0] === 'paymentRequirements' ? X402Reason.invalidPaymentRequirements : X402Reason.invalidPayload;
  return { reason, message: `${where}: ${issue.message}` };
}

function noStore(res: Response): void {
  res.set('Cache-Control', 'no-store');
}

/**
 * x402 v2 facilitator (docs/x402.md): the merchant's secret key authenticates every call; a
 * well-formed request is answered 200 with the verdict, a malformed one 400 in the same shape.
 */
export function x402Router(deps: Core): Router {
  const r = Router();
  r.use('/x402', requireKey(deps));

  r.get('/x402/supported', (_req, res) => {
    res.json(deps.facilitator.supported());
  });

  r.post('/x402/verify', async (req, res) => {
    noStore(res);
    const parsed = badRequest(req.body);
    if (!('req' in parsed)) {
      res.status(400).json({ isValid: false, invalidReason: parsed.reason, invalidMessage: parsed.message });
      return;
    }
    res.json(await deps.facilitator.verify(parsed.req));
  });

  r.post('/x402/settle', async (req, res) => {
    noStore(res);
    const parsed = badRequest(req.body);
    if (!('req' in parsed)) {
      res.status(400).json({ success: false, errorReason: parsed.reason, errorMessage: parsed.message, transaction: '', network: deps.facilitator.network });
      return;
    }
    res.json(await deps.facilitator.settle(auth(res).accountId, parsed.req));
  });

  r.get('/x402/usage', async (_req, res) => {
    noStore(res);
    res.json(await deps.facilitator.usage(auth(res).accountId));
  });
  return r;
}
