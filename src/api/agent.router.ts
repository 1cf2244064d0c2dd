import { Router, type RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { z } from 'zod';
import type { AppDeps } from './deps.js';
import { parseInput } from './errors.js';
import { auth, requireKey } from './auth.js';

/** Interface 4.6 / 8: the message is 1-500 characters, passed verbatim. */
export const AgentMessageInput = z.object({
  message: z
    .string({ message: 'message is required: send {"message": "..."} with 1-500 characters.' })
    .refine((s) => s.trim().length > 0, 'message must not be empty.')
    // Characters, not UTF-16 units: an emoji counts once.
    .refine((s) => [...s].length <= 500, 'message must be at most 500 characters.'),
});
export type AgentMessageInput = z.infer<typeof AgentMessageInput>;

/**
 * Agent turns per account (AGENT_RATE_LIMIT), shared by every door that runs turns. Keyed by
 * the authenticated account, so it must come after the auth middleware.
 */
export function agentRateLimiter(deps: Pick<AppDeps, 'config'>): RequestHandler {
  const { limit, windowMs } = deps.config.AGENT_RATE_LIMIT;
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: 'agent',
    keyGenerator: (_req, res) => `acct:${auth(res).accountId}`,
    handler: (_req, res) => {
      const retryAfter = res.getHeader('Retry-After');
      res.status(429).json({
        ok: false,
        reply: `Too many messages. Please wait${retryAfter ? ` ${retryAfter} seconds` : ' a moment'} and try again.`,
      });
    },
  });
}

/** DESIGN.md 6: POST /api/agent/settle, bearer key, acts at once (channel "api"). */
export function agentRouter(deps: AppDeps, limiter: RequestHandler = agentRateLimiter(deps)): Router {
  const r = Router();
  r.post('/agent/settle', requireKey(deps), limiter, async (req, res) => {
    const { message } = parseInput(AgentMessageInput, req.body ?? {});
    const result = await deps.agent.runTurn({
      accountId: auth(res).accountId,
      message,
      channel: 'api',
      requestId: String(req.id),
    });
    res.status(result.status).json(result.body);
  });
  return r;
}
