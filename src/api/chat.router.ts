import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { parseInput } from '../http/errors.js';
import { auth, requireSession } from '../http/auth.js';
import { AgentMessageInput, agentRateLimiter, agentStatus } from './agent.router.js';
import { turnJson } from '../agent/index.js';

export const ChatActionInput = z.object({
  action_id: z
    .string({ message: 'action_id is required.' })
    .regex(/^act_[0-9A-Za-z]{10,64}$/, 'action_id must be an id like "act_...".'),
});
export type ChatActionInput = z.infer<typeof ChatActionInput>;

/**
 * The in-app chat widget's agent turns (DESIGN.md 4, 6): session cookie only (same-origin
 * POSTs), channel "chat", so money-moving calls wait for /chat/confirm. Turns share the
 * per-account AGENT_RATE_LIMIT with /api/agent/settle.
 */
export function chatRouter(deps: Core, limiter: RequestHandler = agentRateLimiter(deps)): Router {
  const r = Router();
  r.use('/chat', requireSession(deps));

  r.post('/chat', limiter, async (req, res) => {
    const { message } = parseInput(AgentMessageInput, req.body ?? {});
    const result = await deps.agent.runTurn({ accountId: auth(res).accountId, message, channel: 'chat', requestId: String(req.id) });
    res.status(agentStatus(result)).json(turnJson(result));
  });

  // Confirm/cancel are not agent turns: they call no model, and each pending action runs at most
  // once, so they do not spend the turn budget (a user at the limit can still confirm or cancel).
  r.post('/chat/confirm', async (req, res) => {
    const { action_id } = parseInput(ChatActionInput, req.body ?? {});
    const result = await deps.agent.confirm(auth(res).accountId, action_id, { requestId: String(req.id) });
    res.status(agentStatus(result)).json(turnJson(result));
  });

  r.post('/chat/cancel', async (req, res) => {
    const { action_id } = parseInput(ChatActionInput, req.body ?? {});
    const result = await deps.agent.cancel(auth(res).accountId, action_id);
    res.status(agentStatus(result)).json(turnJson(result));
  });
  return r;
}
