import { Router } from 'express';
import { z } from 'zod';
import { CreateKeyInput, CreatedKey, ListedKey } from '../keys/keys.js';
import type { Core } from '../core/core.js';
import { invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E401, E403, err } from '../http/openapi-common.js';

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
    403: E403,
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
    403: E403,
    404: err("No such live key for this account (another account's key is a 404 too)."),
  },
});

/** Interface 4.4, 4.5; revocation per DESIGN.md 4. Session cookie or bearer key. */
export function keysRouter(deps: Core): Router {
  const r = Router();
  r.use('/keys', requireSessionOrKey(deps));

  r.get('/keys', async (_req, res) => {
    res.json({ ok: true, keys: await deps.keys.list(auth(res).accountId) } satisfies z.infer<typeof KeyListResponse>);
  });

  r.post('/keys', async (req, res) => {
    const input = parseInput(CreateKeyInput, req.body ?? {});
    const key = await deps.keys.create(auth(res).accountId, input);
    const body = { ok: true, key } as const;
    res.status(201).json(body satisfies z.infer<typeof KeyCreatedResponse>);
  });

  r.delete('/keys/:id', async (req, res) => {
    const revoked = await deps.keys.revoke(auth(res).accountId, String(req.params.id));
    if (!revoked.ok) throw notFound(revoked.message);
    res.json({ ok: true, id: revoked.id, revoked: true } satisfies z.infer<typeof KeyRevokedResponse>);
  });
  return r;
}
