import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { AgentErrorBody, parseInput } from '../http/errors.js';
import { auth, requireSession } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E401s } from '../http/openapi-common.js';
import { AgentMessageInput, AgentReply, actionErrors, agentErrors, agentRateLimiter, agentStatus, outcomeUnknown } from './agent.router.js';
import { turnJson } from '../agent/index.js';

export const ChatActionInput = z.object({
  action_id: z
    .string({ message: 'action_id is required.' })
    .regex(/^act_[0-9A-Za-z]{10,64}$/, 'action_id must be an id like "act_...".'),
});
export type ChatActionInput = z.infer<typeof ChatActionInput>;

registerSchema('ChatActionInput', ChatActionInput);
const E403agent = { description: 'Cookie-authenticated call from a foreign Origin: `{ok:false, reply}`.', schema: AgentErrorBody };

registerRoute({
  method: 'post',
  path: '/api/chat',
  operationId: 'chat',
  summary: "The app's chat widget: one agent turn (money moves wait for /chat/confirm)",
  tags: ['Agent'],
  auth: 'session',
  body: AgentMessageInput,
  responses: { 200: { description: 'The reply, possibly with a pending action.', schema: AgentReply }, ...agentErrors, 401: E401s, 403: E403agent },
});

registerRoute({
  method: 'post',
  path: '/api/chat/confirm',
  operationId: 'chatConfirm',
  summary: 'Confirm a pending action: executes exactly the stored arguments',
  tags: ['Agent'],
  auth: 'session',
  body: ChatActionInput,
  responses: { 200: { description: 'Executed.', schema: AgentReply }, ...outcomeUnknown, ...actionErrors, 401: E401s, 403: E403agent },
});

registerRoute({
  method: 'post',
  path: '/api/chat/cancel',
  operationId: 'chatCancel',
  summary: 'Cancel a pending action',
  tags: ['Agent'],
  auth: 'session',
  body: ChatActionInput,
  responses: { 200: { description: 'Cancelled.', schema: AgentReply }, ...actionErrors, 401: E401s, 403: E403agent },
});

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
    // The app's mode (docs/test-mode.md): while it shows test data, the chat acts in test mode and
    // its replies say test money, as a test key's (h16tour: it acted live whatever the app showed).
    const result = await deps.agent.runTurn({ accountId: auth(res).accountId, message, channel: 'chat', requestId: String(req.id), ...(auth(res).livemode ? {} : { livemode: false }) });
    res.status(agentStatus(result)).json(turnJson(result));
  });

  // Confirm/cancel are not agent turns: they call no model, and each pending action runs at most
  // once, so they do not spend the turn budget (a user at the limit can still confirm or cancel).
  r.post('/chat/confirm', async (req, res) => {
    const { action_id } = parseInput(ChatActionInput, req.body ?? {});
    const result = await deps.agent.confirm(auth(res).accountId, action_id, { requestId: String(req.id), via: 'chat' });
    res.status(agentStatus(result)).json(turnJson(result));
  });

  r.post('/chat/cancel', async (req, res) => {
    const { action_id } = parseInput(ChatActionInput, req.body ?? {});
    const result = await deps.agent.cancel(auth(res).accountId, action_id);
    res.status(agentStatus(result)).json(turnJson(result));
  });
  return r;
}
