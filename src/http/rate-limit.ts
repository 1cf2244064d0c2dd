import type { Request, RequestHandler, Response } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import { AgentRateLimit, tooManyTurnsReply } from '../limits/agent-turns.js';

/** One middleware per limiter: express-rate-limit refuses a store shared by two of its instances. */
const built = new WeakMap<AgentRateLimit, RequestHandler>();

/**
 * The express middleware of AGENT_RATE_LIMIT for the HTTP doors (after authentication;
 * `accountOf` names the account), counting on the limiter's own counter, which the Telegram
 * bridge takes from too: one count whatever the door. Built once per limiter and reused.
 * A 429 answers `{ok:false, reply}` with Retry-After and the draft-8 RateLimit headers.
 */
export function agentTurnsMiddleware(limit: AgentRateLimit, accountOf: (req: Request, res: Response) => string): RequestHandler {
  let http = built.get(limit);
  if (!http) {
    http = rateLimit({
      windowMs: limit.windowMs,
      limit: limit.limit,
      store: limit.store as unknown as Options['store'],
      standardHeaders: 'draft-8',
      legacyHeaders: false,
      identifier: 'agent',
      keyGenerator: (req, res) => AgentRateLimit.key(accountOf(req, res)),
      handler: (_req, res) => {
        const retryAfter = Number(res.getHeader('Retry-After'));
        res.status(429).json({ ok: false, reply: tooManyTurnsReply(retryAfter > 0 ? retryAfter : undefined) });
      },
    });
    built.set(limit, http);
  }
  return http;
}
