import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { ApiError, notFound, parseInput } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E401, err } from '../http/openapi-common.js';
import { AnyPutPolicyInput, FlatPolicy, FlatPutPolicyInput, PolicyEventView, PolicyView, PutPolicyInput, SpendPolicy, fromFlat, storedActions } from '../policies/policy-schemas.js';

export const PolicyResponse = z.object({ ok: z.literal(true), policy: PolicyView });
export const PolicyUpdatedResponse = PolicyResponse.extend({ event: PolicyEventView.describe('The `policy.updated` event this change recorded.') });
export const PolicyEventsResponse = z.object({ ok: z.literal(true), data: z.array(PolicyEventView).describe('Newest first.') });

registerSchema('SpendPolicy', SpendPolicy);
registerSchema('PutPolicyInput', PutPolicyInput);
registerSchema('FlatPutPolicyInput', FlatPutPolicyInput);
registerSchema('PutPolicyRequest', AnyPutPolicyInput);
registerSchema('FlatPolicy', FlatPolicy);
registerSchema('PolicyView', PolicyView);
registerSchema('PolicyUpdatedEvent', PolicyEventView);
registerSchema('PolicyResponse', PolicyResponse);
registerSchema('PolicyUpdatedResponse', PolicyUpdatedResponse);
registerSchema('PolicyEvents', PolicyEventsResponse);

const E403policy = err('Only the signed-in person changes a policy: a bearer key is refused, and so is a wrong password or a foreign Origin (permission_error).');
const KeyParams = z.object({ id: z.string() });
const doc = (path: string, keyed: boolean) => {
  const params = keyed ? { params: KeyParams } : {};
  const what = keyed ? "an API key's spend policy (narrows the account's; MCP connections use their key's)" : "the account's spend policy";
  registerRoute({
    method: 'get',
    path,
    operationId: keyed ? 'getKeyPolicy' : 'getPolicy',
    summary: `Read ${what}`,
    description: keyed ? 'A key may read its own policy only (another key id: 404); the signed-in person reads any of their keys.' : undefined,
    tags: ['Policies'],
    auth: 'sessionOrBearer',
    ...params,
    responses: { 200: { description: 'The policy (`{}`: no restriction).', schema: PolicyResponse }, 401: E401, 404: err('No such key for this account.') },
  });
  registerRoute({
    method: 'put',
    path,
    operationId: keyed ? 'putKeyPolicy' : 'putPolicy',
    summary: `Replace ${what}`,
    description:
      'Signed-in session only, with the password re-entered (no session: 401; a bearer key or a wrong password: 403 `permission_error`). Body: DESIGN\'s flat form `{password, per_transaction_usd, daily_usd, weekly_usd, monthly_usd, approval_threshold_usd, allow_recipients, block_recipients, allowed_actions}` (JSON numbers in USD, `null` or omitted = no rule: the PUT replaces the whole policy), or the editor\'s `{password, policy:{...}}`. Answers `{policy}` with the flat fields. Records a `policy.updated` event.',
    tags: ['Policies'],
    auth: 'session',
    ...params,
    body: AnyPutPolicyInput,
    responses: { 200: { description: 'Changed.', schema: PolicyUpdatedResponse }, 400: E400, 401: E401, 403: E403policy, 404: err('No such key for this account.') },
  });
};
doc('/api/policies', false);
doc('/api/keys/:id/policy', true);
registerRoute({
  method: 'get',
  path: '/api/policies/events',
  operationId: 'listPolicyEvents',
  summary: 'The `policy.updated` events of the account (every change of a spend policy)',
  tags: ['Policies'],
  auth: 'sessionOrBearer',
  responses: { 200: { description: 'The events.', schema: PolicyEventsResponse }, 401: E401 },
});

/** Only the person: a signed-in session (a bearer key, even a valid one, is refused). */
const personOnly: RequestHandler = (_req, res, next) => {
  if (auth(res).via !== 'session') throw new ApiError(403, 'permission_error', 'Only the signed-in account holder can change a spend policy; an API key can read its own policy, never change it.');
  next();
};

/** Spend policies (docs/policies.md): read by the person or a key, changed by the person only. */
export function policiesRouter(deps: Core): Router {
  const r = Router();
  const authed = requireSessionOrKey(deps);

  r.get('/policies/events', authed, async (_req, res) => {
    res.json({ ok: true, data: await deps.policies.events(auth(res).accountId) } satisfies z.infer<typeof PolicyEventsResponse>);
  });

  r.get('/policies', authed, async (_req, res) => {
    const got = await deps.policies.get(auth(res).accountId);
    if (!got.ok) throw notFound(got.message);
    res.json({ ok: true, policy: got.policy } satisfies z.infer<typeof PolicyResponse>);
  });

  r.get('/keys/:id/policy', authed, async (req, res) => {
    const a = auth(res);
    const id = String(req.params.id);
    // A key reads its own policy, not its siblings'.
    if (a.via === 'key' && a.keyId !== id) throw notFound(`No such API key: ${id}`);
    const got = await deps.policies.get(a.accountId, id);
    if (!got.ok) throw notFound(got.message);
    res.json({ ok: true, policy: got.policy } satisfies z.infer<typeof PolicyResponse>);
  });

  const put =
    (keyed: boolean): RequestHandler =>
    async (req, res) => {
      const body: unknown = req.body ?? {};
      // `{password, policy:{...}}` is the editor's form; anything else is DESIGN's flat form.
      const nested = typeof body === 'object' && body !== null && 'policy' in body;
      let policy: SpendPolicy;
      let password: string;
      if (nested) {
        const input = parseInput(PutPolicyInput, body);
        const { allowed_actions, ...rest } = input.policy;
        policy = { ...rest, ...(allowed_actions != null ? { allowed_actions: storedActions(allowed_actions) } : allowed_actions === null ? { allowed_actions: null } : {}) };
        password = input.password;
      } else {
        const input = parseInput(FlatPutPolicyInput, body);
        policy = fromFlat(input);
        password = input.password;
      }
      const keyId = keyed ? String(req.params.id) : undefined;
      const done = await deps.policies.put(auth(res).accountId, keyId, policy, password);
      if (!done.ok) {
        if (done.reason === 'not_found') throw notFound(done.message);
        throw new ApiError(403, 'permission_error', done.message, 'password');
      }
      res.json({ ok: true, policy: done.policy, event: done.event } satisfies z.infer<typeof PolicyUpdatedResponse>);
    };
  r.put('/policies', authed, personOnly, put(false));
  r.put('/keys/:id/policy', authed, personOnly, put(true));
  return r;
}
