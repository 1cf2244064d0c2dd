import { Router } from 'express';
import { z } from 'zod';
import { CreateKeyInput, CreatedKey, ListedKey } from '../keys/keys.js';
import type { Core } from '../core/core.js';
import { ApiError, notFound, parseInput } from '../http/errors.js';
import { auth, requireSessionOrKey, type AuthContext } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E401, err } from '../http/openapi-common.js';

export const KeyListResponse = z.object({ ok: z.literal(true), keys: z.array(ListedKey).describe('Live keys, newest first.') });
export const KeyCreatedResponse = z.object({ ok: z.literal(true), key: CreatedKey });
export const KeyRevokedResponse = z.object({ ok: z.literal(true), id: z.string(), revoked: z.literal(true) });

registerSchema('ApiKey', ListedKey);
registerSchema('CreatedApiKey', CreatedKey);
registerSchema('CreateKeyInput', CreateKeyInput);
registerSchema('KeyList', KeyListResponse);
registerSchema('KeyCreated', KeyCreatedResponse);
registerSchema('KeyRevoked', KeyRevokedResponse);

registerRoute({
  method: 'get',
  path: '/api/keys',
  operationId: 'listKeys',
  summary: "List the account's live API keys (never a secret)",
  tags: ['Keys'],
  auth: 'sessionOrBearer',
  responses: { 200: { description: 'The keys.', schema: KeyListResponse }, 401: E401 },
});

registerRoute({
  method: 'post',
  path: '/api/keys',
  operationId: 'createKey',
  summary: 'Create an API key (`mode`: live, the default, or test); the secret is returned once, in this response only',
  tags: ['Keys'],
  auth: 'sessionOrBearer',
  body: CreateKeyInput,
  responses: {
    201: { description: 'Created.', schema: KeyCreatedResponse },
    400: E400,
    401: E401,
    403: err('A cookie-authenticated change from a foreign `Origin`; or, with a bearer key, a test key asking for a live key (`param: "mode"`), a key with a spend policy of its own, or a key the circuit breaker paused (a key makes no key wider than itself; its mode is the default `mode`): permission_error.'),
    409: err('`mode:"test"` on a deployment whose only chain is a real network (`param: "mode"`): test keys are not available there (docs/test-mode.md).'),
  },
});

registerRoute({
  method: 'delete',
  path: '/api/keys/:id',
  operationId: 'revokeKey',
  summary: 'Revoke an API key (effective on the next request)',
  tags: ['Keys'],
  auth: 'sessionOrBearer',
  params: z.object({ id: z.string() }),
  responses: {
    200: { description: 'Revoked.', schema: KeyRevokedResponse },
    401: E401,
    403: err('A cookie-authenticated change from a foreign `Origin`, a test key revoking a live key, or a key with a spend policy of its own revoking another key: permission_error.'),
    404: err("No such live key for this account (another account's key is a 404 too)."),
  },
});

const permission = (message: string, param?: string) => new ApiError(403, 'permission_error', message, param);

/**
 * A key makes no key wider than itself (h15tour): a key made with a key would otherwise carry no
 * key policy and be of any mode, so a key held to 1 USD a payment (docs/policies.md: "a key's
 * policy can only narrow") or a test key (a sandbox's, docs/test-mode.md) escaped by minting a
 * live key with none. A test key makes test keys (its default); a key with a spend policy of its
 * own makes none. The signed-in person makes any key on the Developers screen.
 */
async function keyMayMakeKey(deps: Core, a: AuthContext, mode: 'live' | 'test'): Promise<void> {
  if (!a.livemode && mode === 'live') {
    throw permission('A test key can create test keys only. Create live keys signed in to the app (Developers screen) or with a live key.', 'mode');
  }
  const own = a.keyId ? await deps.policies.get(a.accountId, a.keyId) : undefined;
  if (own?.ok && restricts(own.policy.policy)) {
    throw permission("This key has a spend policy of its own, which a key it made would not have, so it cannot create keys. Create keys signed in to the app (Developers screen).");
  }
  // A key the breaker paused would mint a fresh key that is not paused: a retry loop's way around it.
  const paused = a.keyId ? await deps.policies.keyPausedFor(a.keyId) : undefined;
  if (paused !== undefined) {
    throw permission(`This key is paused by the circuit breaker (too many refused or failed payments in a short time) for ${paused} more seconds, and cannot create keys meanwhile. Check what your integration is retrying; the account holder can still create keys in the app.`);
  }
}

/** Whether a stored policy holds any rule: `{}` and fields that are all null hold none. */
function restricts(policy: object): boolean {
  return Object.values(policy).some((v) => v !== null && v !== undefined && (typeof v !== 'object' || Array.isArray(v) || restricts(v)));
}

/** Interface 4.4, 4.5; revocation per DESIGN.md 4. Session cookie or bearer key. */
export function keysRouter(deps: Core): Router {
  const r = Router();
  r.use('/keys', requireSessionOrKey(deps));

  r.get('/keys', async (_req, res) => {
    res.json({ ok: true, keys: await deps.keys.list(auth(res).accountId) } satisfies z.infer<typeof KeyListResponse>);
  });

  r.post('/keys', async (req, res) => {
    const input = parseInput(CreateKeyInput, req.body ?? {});
    const a = auth(res);
    // No `mode` asked: live (the interface's sk_live_), or a test key's own mode.
    const asked = (req.body as { mode?: unknown } | undefined)?.mode !== undefined;
    const mode = asked ? input.mode : a.via === 'key' && !a.livemode ? 'test' : 'live';
    if (a.via === 'key') await keyMayMakeKey(deps, a, mode);
    const key = await deps.keys.create(a.accountId, { ...input, mode });
    const body = { ok: true, key } as const;
    res.status(201).json(body satisfies z.infer<typeof KeyCreatedResponse>);
  });

  r.delete('/keys/:id', async (req, res) => {
    const a = auth(res);
    const id = String(req.params.id);
    // A sandbox's key takes no live key down (h15tour): test keys revoke test keys only.
    if (a.via === 'key' && !a.livemode && (await deps.keys.owns(a.accountId, id)) && (await deps.keys.livemodeOf(id))) {
      throw permission('A test key can revoke test keys only. Revoke live keys signed in to the app (Developers screen) or with a live key.');
    }
    // Nor does a key held by a spend policy of its own take down the account's other keys (an
    // unrestricted one among them); it may revoke itself. Another account's key stays a 404.
    if (a.via === 'key' && a.keyId && id !== a.keyId && (await deps.keys.owns(a.accountId, id))) {
      const own = await deps.policies.get(a.accountId, a.keyId);
      if (own.ok && restricts(own.policy.policy)) {
        throw permission('This key has a spend policy of its own, so it can revoke only itself. Revoke other keys signed in to the app (Developers screen) or with an unrestricted key.');
      }
    }
    const revoked = await deps.keys.revoke(a.accountId, id);
    if (!revoked.ok) throw notFound(revoked.message);
    res.json({ ok: true, id: revoked.id, revoked: true } satisfies z.infer<typeof KeyRevokedResponse>);
  });
  return r;
}
