import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { parseInput } from '../http/errors.js';
import { auth, requireKey } from '../http/auth.js';
import { agentTurnsMiddleware } from '../http/rate-limit.js';
import { UNAVAILABLE, turnJson, type TurnOutcome } from '../agent/index.js';

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

/** A pending action's id as the preview answered it. */
export const ActionId = z
  .string({ message: 'confirm_action must be the pending.id a preview answered ("act_...").' })
  .regex(/^act_[0-9A-Za-z]{10,64}$/, 'confirm_action must be the pending.id a preview answered ("act_...").');

/**
 * POST /api/agent/settle (DESIGN.md 10): exactly one of `message` (a turn; `confirm: false`
 * holds a money-moving action for a later confirm instead of acting) or `confirm_action`
 * (runs a held action). Unknown fields are refused, so a misspelt `confirm` never acts.
 */
export const AgentSettleInput = z
  .strictObject({
    message: AgentMessageInput.shape.message.optional(),
    confirm: z.boolean().optional().describe('false: preview. Hold a money-moving action as `pending` instead of acting; default true.'),
    confirm_action: ActionId.optional().describe('The `pending.id` of a preview to execute, exactly as stored, once.'),
  })
  .superRefine((b, ctx) => {
    if ((b.message === undefined) === (b.confirm_action === undefined)) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Send exactly one of message or confirm_action.' });
    } else if (b.confirm_action !== undefined && b.confirm !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['confirm'], message: 'confirm goes with message, not with confirm_action.' });
    }
  });
export type AgentSettleInput = z.infer<typeof AgentSettleInput>;

/**
 * The one table of this door from an agent outcome to an HTTP status (DESIGN.md 6 and 10):
 * done 200, understood but not done 422, model provider down 503; and for
 * `POST /api/agent/settle {confirm_action}` only, why a held action could not run (the chat
 * widget's confirm answers those 422, as it always has).
 */
const AGENT_STATUS = {
  ok: 200,
  failed: 422,
  [UNAVAILABLE]: 503,
  settleConfirm: { not_found: 404, expired: 410, in_progress: 409 } as Readonly<Record<string, number>>,
} as const;

export function agentStatus(o: TurnOutcome, route: 'turn' | 'settle_confirm' = 'turn'): number {
  if (o.ok) return AGENT_STATUS.ok;
  if (o.reason === UNAVAILABLE) return AGENT_STATUS[UNAVAILABLE];
  return (route === 'settle_confirm' && o.reason !== undefined && AGENT_STATUS.settleConfirm[o.reason]) || AGENT_STATUS.failed;
}

/**
 * Agent turns per account (AGENT_RATE_LIMIT), shared by every door that runs turns: the HTTP
 * doors use this middleware, the Telegram bridge takes from the same counter
 * (src/limits/agent-turns.ts). Keyed by the authenticated account, so it must come after the
 * auth middleware.
 */
export function agentRateLimiter(deps: Pick<Core, 'agentTurns'>): RequestHandler {
  return agentTurnsMiddleware(deps.agentTurns, (_req, res) => auth(res).accountId);
}

/**
 * DESIGN.md 6 and 10: POST /api/agent/settle, bearer key, channel "api". `{message}` acts at
 * once; `{message, confirm:false}` answers the action as `pending` with nothing moved;
 * `{confirm_action}` executes that stored action once (a repeat answers the first outcome).
 */
export function agentRouter(deps: Core, limiter: RequestHandler = agentRateLimiter(deps)): Router {
  const r = Router();
  const turn: RequestHandler = async (req, res) => {
    const body = res.locals.settle as AgentSettleInput & { message: string };
    const result = await deps.agent.runTurn({
      accountId: auth(res).accountId,
      message: body.message,
      channel: 'api',
      requestId: String(req.id),
      ...(body.confirm === false ? { preview: true } : {}),
    });
    const held = result.pending;
    if (body.confirm === false && held?.status === 'pending') {
      const { id, expires_at, description } = held;
      res.status(agentStatus(result)).json({ ...turnJson(result), pending: { id, expires_at, description } });
      return;
    }
    res.status(agentStatus(result)).json(turnJson(result));
  };
  r.post(
    '/agent/settle',
    requireKey(deps),
    async (req, res, next) => {
      const body = parseInput(AgentSettleInput, req.body ?? {});
      if (body.confirm_action === undefined) {
        res.locals.settle = body;
        return next();
      }
      // A confirm runs no model and each action runs at most once: it spends no turn budget.
      const result = await deps.agent.confirm(auth(res).accountId, body.confirm_action, { requestId: String(req.id), channel: 'api' });
      res.status(agentStatus(result, 'settle_confirm')).json(turnJson(result));
    },
    limiter,
    turn,
  );
  return r;
}
