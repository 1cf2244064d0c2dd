/**
 * GET /api/agent/actions and GET /api/agent/actions/:id (docs/test-mode.md): the account's agent
 * actions (held, confirmed, cancelled) of the caller's mode, newest first. A test key lists test
 * actions only and a live key live ones; an action of the other mode is a 404.
 */
import { Router } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import type { PendingAction } from '../agent/index.js';
import { AgentErrorBody, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E401 } from '../http/openapi-common.js';
import { PageLimit } from '../lib/paging.js';

export const AgentActionResource = registerSchema(
  'AgentAction',
  z.object({
    id: z.string().describe('act_...'),
    object: z.literal('agent_action'),
    tool: z.string().describe('The tool the action runs (transfer, pay_bill, …).'),
    description: z.string(),
    status: z.enum(['pending', 'executing', 'done', 'cancelled', 'expired']),
    channel: z.string().describe('The door it was asked through: api, mcp, chat, telegram.'),
    key_id: z.string().nullable().describe('The API key that asked, if any.'),
    created_at: z.string(),
    expires_at: z.string(),
    confirmed_via: z.string().nullable(),
    confirmed_at: z.string().nullable(),
    livemode: z.boolean().describe('false for actions asked through a test key (docs/test-mode.md).'),
  }),
);
const AgentActionList = registerSchema(
  'AgentActionList',
  z.object({ object: z.literal('list'), data: z.array(AgentActionResource), has_more: z.boolean() }),
);
const ListActionsQuery = z
  .object({ limit: PageLimit, starting_after: z.string().min(1).max(100).optional().describe('An action id: the page starts after it (older actions).') })
  .strict();

registerRoute({
  method: 'get',
  path: '/api/agent/actions',
  operationId: 'listAgentActions',
  summary: "The account's agent actions of the key's mode (a session: the app's mode), newest first",
  tags: ['Agent'],
  auth: 'sessionOrBearer',
  query: ListActionsQuery,
  responses: {
    200: { description: 'A page of actions.', schema: AgentActionList },
    400: { description: 'A bad query or cursor: `{ok:false, reply}` (the agent routes\' error body).', schema: AgentErrorBody },
    401: E401,
  },
});
registerRoute({
  method: 'get',
  path: '/api/agent/actions/:id',
  operationId: 'getAgentAction',
  summary: 'One agent action of the caller’s mode',
  tags: ['Agent'],
  auth: 'sessionOrBearer',
  params: z.object({ id: z.string() }),
  responses: {
    200: { description: 'The action.', schema: AgentActionResource },
    401: E401,
    404: { description: "No such action for this account and mode (another account's or mode's is a 404 too): `{ok:false, reply}`.", schema: AgentErrorBody },
  },
});

function actionResource(a: PendingAction): z.infer<typeof AgentActionResource> {
  return {
    id: a.id,
    object: 'agent_action',
    tool: a.call.name,
    description: a.description,
    status: a.status,
    channel: a.channel,
    key_id: a.keyId ?? null,
    created_at: a.createdAt,
    expires_at: a.expiresAt,
    confirmed_via: a.confirmedVia ?? null,
    confirmed_at: a.confirmedAt ?? null,
    livemode: a.livemode !== false,
  };
}

export function agentActionsRouter(deps: Core): Router {
  const r = Router();
  r.get('/agent/actions', requireSessionOrKey(deps), async (req, res) => {
    const q = parseInput(ListActionsQuery, req.query);
    const { accountId, livemode } = auth(res);
    if (q.starting_after && !(await deps.agentActions.getInMode(accountId, q.starting_after, livemode))) {
      throw invalidRequest(`No such action: ${q.starting_after}`, 'starting_after');
    }
    const rows = await deps.agentActions.list(accountId, livemode, { limit: q.limit + 1, ...(q.starting_after ? { after: q.starting_after } : {}) });
    res.json({ object: 'list', data: rows.slice(0, q.limit).map(actionResource), has_more: rows.length > q.limit } satisfies z.infer<typeof AgentActionList>);
  });
  r.get('/agent/actions/:id', requireSessionOrKey(deps), async (req, res) => {
    const id = String(req.params.id);
    const row = await deps.agentActions.getInMode(auth(res).accountId, id, auth(res).livemode);
    if (!row) throw notFound(`No such action: ${id}`);
    res.json(actionResource(row));
  });
  return r;
}
