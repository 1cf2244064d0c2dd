import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { AppDeps } from './deps.js';
import { parseInput } from './errors.js';
import { auth, requireKey } from './auth.js';
import { AgentRateLimit } from '../agent/rate-limit.js';

/** Interface 4.6 / 8: the message is 1-500 characters, passed verbatim. */
export const AgentMessageInput = z.object({
  message: z
    .string({ message: 'message is required: send {"message": "..."} with 1-500 characters.' })
    .refine((s) => s.trim().length > 0, 'message must not be empty.')
    // Characters, not UTF-16 units: an emoji counts once.
    .refine((s) => [...s].length <= 500, 'message must be at most 500 characters.')
    // The refines above are code; tell the OpenAPI document the same limit (interface 8).
    .meta({ minLength: 1, maxLength: 500 }),
});
export type AgentMessageInput = z.infer<typeof AgentMessageInput>;

/**
 * Agent turns per account (AGENT_RATE_LIMIT), shared by every door that runs turns: the HTTP
 * doors use this middleware, the Telegram bridge takes from the same store
 * (src/agent/rate-limit.ts). Keyed by the authenticated account, so it must come after the
 * auth middleware. Without `deps.agentRateLimit` (a router built on its own) it gets its own.
 */
export function agentRateLimiter(deps: Pick<AppDeps, 'config' | 'agentRateLimit'>): RequestHandler {
  const shared = deps.agentRateLimit ?? new AgentRateLimit(deps.config.AGENT_RATE_LIMIT);
  return shared.middleware((_req, res) => auth(res).accountId);
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
