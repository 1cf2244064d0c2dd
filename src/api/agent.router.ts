import { Router, type Request, type RequestHandler, type Response } from 'express';
import { interruptedAnswer } from './agent-interrupted.js';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { AgentErrorBody, invalidRequest, parseInput } from '../http/errors.js';
import { IdempotencyKeyHeader } from './payments.router.js';
import { registerRoute, registerSchema, type RouteResponse } from '../http/openapi.js';
import { E401 } from '../http/openapi-common.js';
import { auth, requireKey } from '../http/auth.js';
import { agentTurnsMiddleware } from '../http/rate-limit.js';
import { OUTCOME_UNKNOWN, UNAVAILABLE, confirmQuote, turnJson, type TurnOutcome } from '../agent/index.js';
import { QuoteId } from '../quotes/quote-schemas.js';

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
/** An id no action has: what a confirm of the other mode's action is asked about. */
const OTHER_MODE = 'act_of_the_other_mode';

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
    quote_id: QuoteId.optional().describe('A firm quote bound to a recipient (`POST /api/quotes`): sends exactly its figures, once; 410 once expired.'),
  })
  .superRefine((b, ctx) => {
    if ([b.message, b.confirm_action, b.quote_id].filter((v) => v !== undefined).length !== 1) {
      ctx.addIssue({ code: 'custom', path: [], message: 'Send exactly one of message, confirm_action or quote_id.' });
    } else if (b.quote_id !== undefined && b.confirm !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['confirm'], message: 'confirm goes with message, not with quote_id.' });
    } else if (b.confirm_action !== undefined && b.confirm !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['confirm'], message: 'confirm goes with message, not with confirm_action.' });
    }
  });
export type AgentSettleInput = z.infer<typeof AgentSettleInput>;

// ------------------------------------------------------------------ OpenAPI (DESIGN.md 6)
// The agent's answer, shared with the chat widget's routes (chat.router.ts).
registerSchema('AgentError', AgentErrorBody);
registerSchema('AgentMessageInput', AgentMessageInput);
registerSchema('AgentSettleInput', AgentSettleInput);
const ActionResult = z.looseObject({}).describe("The action's result; its fields depend on the action.");
const PendingActionResource = registerSchema(
  'PendingAction',
  z.object({
    id: z.string(),
    expires_at: z.iso.datetime(),
    description: z.string().describe('The described action, to show the user before they confirm.'),
    status: z.string().describe('pending, executing, done, failed, cancelled or expired.'),
    tool: z.string(),
  }),
);
export const AgentReply = registerSchema(
  'AgentReply',
  z
    .object({
      ok: z.boolean(),
      action: z.enum(['transfer', 'bill', 'market', 'payment', 'balance', 'quote', 'activity', 'info', 'none']).optional(),
      reply: z.string().describe('Human-readable; always show it to the user.'),
      reason: z
        .string()
        .optional()
        .describe('Why a 422 was not done (e.g. `not_grounded`: an argument of the action is not in the user\'s own words), or why a 200 `none` moved nothing (the gate: negation, question, past_tense, reversed_direction, conditional, scheduled, cancellation, reported_speech, statement; `quoted_only`).'),
      pending_action: PendingActionResource.optional().describe('Present when the turn concerns an action awaiting confirmation.'),
      replaced_action: PendingActionResource.optional().describe('A held action a typed correction ("make it 3k") cancelled and replaced with `pending_action`: its buttons do nothing now.'),
      already: z.boolean().optional().describe('True when a confirm repeats one already carried out.'),
      transfer: ActionResult.optional(),
      bill: ActionResult.optional(),
      market: ActionResult.optional(),
      payment: ActionResult.optional(),
      balance: ActionResult.optional(),
      quote: ActionResult.optional().describe('quote_transfer: what the recipient would get, rate and fee; nothing moved.'),
      activity: ActionResult.optional().describe("list_activity: the caller's recent transfers, bills, stakes and payment links."),
      info: ActionResult.optional(),
    })
    .describe('`action` names what happened; the field of the same name carries its result.'),
);
/** Confirm and cancel call no model and spend no rate-limit budget: only these apply to them. */
export const actionErrors: Record<number, RouteResponse> = {
  400: { description: 'Bad body: `{ok:false, reply}`.', schema: AgentErrorBody },
  413: { description: 'Body over 100 kB: `{ok:false, reply}`.', schema: AgentErrorBody },
  422: { description: 'Understood but not done: `{ok:false, action, reply}`.', schema: AgentReply },
};
/** Agent turns: a model runs, so the rate limit and the provider can refuse too. */
export const agentErrors: Record<number, RouteResponse> = {
  ...actionErrors,
  429: {
    description: 'Rate-limited (`{ok:false, reply}`), or the key is paused by the spend policies\' circuit breaker (`reason:"policy_breaker"`); see Retry-After.',
    schema: AgentReply,
    headers: { 'Retry-After': 'Seconds to wait.' },
  },
  503: {
    description:
      'The model provider failed after retries, or the database could not be reached before anything was done (`Retry-After`): nothing was sent; retry.',
    schema: AgentErrorBody,
    headers: { 'Retry-After': 'Seconds to wait (database unavailable).' },
  },
};
/** Every door that can run a money-moving action: its outcome may be unknown for a while. */
export const outcomeUnknown: Record<number, RouteResponse> = {
  202: {
    description:
      'The database failed after a money-moving action began: whether it went through is being confirmed (`reason:"outcome_unknown"`). Do NOT send the same message again; check the activity. ' +
      'On `/agent/settle`, also a retry whose `Idempotency-Key`\'s first request was cut off mid-turn (its process stopped, or it ran past 10 minutes): `reason:"interrupted"`, with the transfer or bill it recorded, never run again.',
    schema: AgentReply,
  },
};
const AgentPending = registerSchema(
  'AgentPending',
  z
    .object({
      id: z.string().describe('Send it back as `confirm_action` to execute the action.'),
      expires_at: z.string().describe('ISO 8601 UTC; after it the action can no longer be confirmed (410).'),
      description: z.string().describe('The exact action: amounts in both currencies, rate, fee, recipient. Show it to your user.'),
    })
    .describe('A money-moving action held by `confirm: false`; nothing has moved.'),
);
const AgentPreviewReply = registerSchema('AgentPreviewReply', AgentReply.extend({ pending: AgentPending.optional() }));

registerRoute({
  method: 'post',
  path: '/api/agent/settle',
  operationId: 'agentSettle',
  summary: 'Run one agent turn from a plain-language message, or confirm a previewed action',
  description: [
    'Send exactly one of `message` and `confirm_action`.',
    '',
    '- `{message}`: the turn acts at once (it may move money: show your user what will happen first).',
    '- `{message, confirm: false}`: preview. A money-moving action (transfer, bill, stake, resolve, cancel) is held as `pending` ' +
      '`{id, expires_at, description}` and nothing moves; show `description` to your user. Messages that move no money ' +
      '(balance, lists, payment links, markets created) are answered at once, without `pending`.',
    '- Grounding: a money-moving action acts only when every argument is in your user\'s own words (quoted or forwarded text ' +
      'does not count); otherwise 422 `reason: "not_grounded"` and nothing is held. An argument the assistant inferred by a ' +
      'named rule (the account\'s currency, the network from a phone prefix) is held as `pending` even without `confirm: false`.',
    '- `{confirm_action: "<pending.id>"}`: executes exactly the stored action, once. Repeats (also concurrent ones) answer the ' +
      'first outcome with `already: true` and never move money again. Unknown ids, another account\'s ids and actions held by ' +
      'the chat widget or Telegram answer 404; an expired action 410. A confirm spends no rate-limit budget.',
    '- `{quote_id: "qt_..."}`: executes a firm quote bound to a recipient (`POST /api/quotes`) at exactly its figures, once; ' +
      'an expired quote answers 410 `reason:"quote_expired"` with a new quote offered in `reply`; another account\'s quote 404.',
  ].join('\n'),
  tags: ['Agent'],
  auth: 'bearer',
  body: AgentSettleInput,
  headers: {
    'Idempotency-Key': {
      description: 'Makes a retry safe: the same key and body answer the first answer (`Idempotent-Replayed: true`), never a second turn; another body is a 409.',
      schema: IdempotencyKeyHeader,
    },
  },
  responses: {
    200: {
      description: 'Done, previewed (`pending`), or the first outcome of a confirmed action.',
      schema: AgentPreviewReply,
      headers: { 'Idempotent-Replayed': 'true when this answer replays an earlier request with the same Idempotency-Key.' },
    },
    ...outcomeUnknown,
    ...agentErrors,
    401: E401,
    404: { description: '`confirm_action`: no such pending action for this key: `{ok:false, action, reply, reason:"not_found"}`.', schema: AgentReply },
    409: {
      description:
        '`confirm_action`: the action is being carried out by another request: `reason:"in_progress"`; or an `Idempotency-Key` used with another body (`reason:"idempotency_conflict"`) or whose first request is still running (`reason:"in_progress"`).',
      schema: AgentReply,
    },
    410: { description: '`confirm_action`: the action expired before it was confirmed; nothing moved: `reason:"expired"`.', schema: AgentReply },
    403: { description: '`confirm_action`: the action is over a spend policy\'s approval threshold; only the signed-in person can confirm it: `reason:"approval_required"`.', schema: AgentReply },
  },
});

/**
 * The one table of this door from an agent outcome to an HTTP status (DESIGN.md 6 and 10):
 * done 200, understood but not done 422, model provider down 503, outcome being confirmed 202; and for
 * `POST /api/agent/settle {confirm_action}` only, why a held action could not run (the chat
 * widget's confirm answers those 422, as it always has).
 */
const AGENT_STATUS = {
  ok: 200,
  failed: 422,
  [UNAVAILABLE]: 503,
  /** The database failed once a money-moving action had begun: accepted, outcome being confirmed, never "retry". */
  [OUTCOME_UNKNOWN]: 202,
  settleConfirm: { not_found: 404, expired: 410, in_progress: 409, approval_required: 403, quote_expired: 410, quote_not_found: 404 } as Readonly<Record<string, number>>,
  /** The spend policies' circuit breaker paused the key (with Retry-After). */
  policy_breaker: 429,
} as const;

export function agentStatus(o: TurnOutcome, route: 'turn' | 'settle_confirm' = 'turn'): number {
  if (o.ok) return AGENT_STATUS.ok;
  if (o.reason === UNAVAILABLE) return AGENT_STATUS[UNAVAILABLE];
  if (o.reason === OUTCOME_UNKNOWN) return AGENT_STATUS[OUTCOME_UNKNOWN];
  if (o.reason === 'policy_breaker') return AGENT_STATUS.policy_breaker;
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
 * `Idempotency-Key` on POST /api/agent/settle (the rule of `POST /v1/payments`, docs/api-decisions.md):
 * the same key (per account and mode) with the same body answers the first answer with
 * `Idempotent-Replayed: true`, whatever the turn did, so a client's retry of a timed-out
 * "send 100 KES to @amina" never sends twice; another body is a 409 `idempotency_conflict`; a retry
 * while the first still runs a 409 `in_progress`; once its process is gone or the lease passed, a 202
 * `interrupted` with what the store holds of it (./agent-interrupted.ts). An answer that did nothing and says retry (429, 503)
 * frees the key. False when this request has been answered here.
 */
async function replayOrClaim(deps: Core, req: Request, res: Response, body: AgentSettleInput): Promise<boolean> {
  const key = req.get('Idempotency-Key');
  if (key === undefined) return true;
  if (!IdempotencyKeyHeader.safeParse(key).success) throw invalidRequest('Idempotency-Key must be 1-255 printable ASCII characters.', 'Idempotency-Key');
  const scope = { accountId: auth(res).accountId, livemode: auth(res).livemode !== false };
  const claim = await deps.requestReplays.claim('agent_settle', scope, key, body, String(req.id));
  switch (claim.kind) {
    case 'replay':
      res.setHeader('Idempotent-Replayed', 'true');
      res.status(claim.status).json(claim.body);
      return false;
    case 'conflict':
      res.status(409).json({ ok: false, action: 'none', reason: 'idempotency_conflict', reply: 'This Idempotency-Key was already used with a different request; nothing was done. Use a new key for a new request.' });
      return false;
    case 'interrupted': {
      // Its process died mid-turn, or it outran the lease: never a second turn; what the store holds of it.
      const answer = interruptedAnswer(claim.records, claim.since);
      res.status(answer.status).json(answer.body);
      return false;
    }
    case 'running':
      res.status(409).json({ ok: false, action: 'none', reason: 'in_progress', reply: 'A request with this Idempotency-Key is still being carried out; nothing was done twice. Retry shortly to get its answer.' });
      return false;
  }
  const send = res.json.bind(res);
  res.json = (answer: unknown) => {
    const done = res.statusCode === 429 || res.statusCode === 503 ? deps.requestReplays.release(claim.id) : deps.requestReplays.finish(claim.id, res.statusCode, answer);
    void done
      .catch((err: unknown) => deps.logger.warn({ err }, 'could not record the answer of an Idempotency-Key'))
      .finally(() => send(answer));
    return res;
  };
  return true;
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
      ...(auth(res).keyId ? { keyId: auth(res).keyId, livemode: auth(res).livemode } : {}),
    });
    // Held by a preview, or by the core because an argument was inferred (docs/agent.md, Grounding).
    if (result.retryAfterSeconds) res.setHeader('Retry-After', String(result.retryAfterSeconds));
    const held = result.pending;
    if (held?.status === 'pending') {
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
      // A retry with the same Idempotency-Key answers the first answer, never a second turn (docs/agent.md).
      if (!(await replayOrClaim(deps, req, res, body))) return;
      if (body.quote_id !== undefined) {
        // Like a confirm: the caller saw the quote's figures; no model runs.
        const result = await confirmQuote({ agent: deps.agent, quotes: deps.quotes }, { accountId: auth(res).accountId, quoteId: body.quote_id, livemode: auth(res).livemode, requestId: String(req.id), ...(auth(res).keyId ? { keyId: auth(res).keyId } : {}) });
        res.status(agentStatus(result, 'settle_confirm')).json(turnJson(result));
        return;
      }
      if (body.confirm_action === undefined) {
        res.locals.settle = body;
        return next();
      }
      // A confirm runs no model and each action runs at most once: it spends no turn budget.
      // An action of the other mode does not exist for this key (docs/test-mode.md): the agent
      // is asked about an id nobody has, so the answer is exactly its "no such action".
      const own = await deps.agentActions.getInMode(auth(res).accountId, body.confirm_action, auth(res).livemode);
      const result = await deps.agent.confirm(auth(res).accountId, own ? body.confirm_action : OTHER_MODE, { requestId: String(req.id), channel: 'api' });
      if (result.retryAfterSeconds) res.setHeader('Retry-After', String(result.retryAfterSeconds));
      res.status(agentStatus(result, 'settle_confirm')).json(turnJson(result));
    },
    limiter,
    turn,
  );
  return r;
}
