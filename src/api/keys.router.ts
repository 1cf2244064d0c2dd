import { Router } from 'express';
import { z } from 'zod';
import { CreateKeyInput, CreatedKey, ListedKey } from '../keys/keys.js';
import type { Core } from '../core/core.js';
import { notFound, parseInput } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';

export const KeyListResponse = z.object({ ok: z.literal(true), keys: z.array(ListedKey).describe('Live keys, newest first.') });
export const KeyCreatedResponse = z.object({ ok: z.literal(true), key: CreatedKey });
export const KeyRevokedResponse = z.object({ ok: z.literal(true), id: z.string(), revoked: z.literal(true) });

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
    const body = { ok: true, key: { id: key.id, label: key.label, secret: key.secret, prefix: key.prefix, createdAt: key.createdAt } } as const;
    res.status(201).json(body satisfies z.infer<typeof KeyCreatedResponse>);
  });

  r.delete('/keys/:id', async (req, res) => {
    const revoked = await deps.keys.revoke(auth(res).accountId, String(req.params.id));
    if (!revoked.ok) throw notFound(revoked.message);
    res.json({ ok: true, id: revoked.id, revoked: true } satisfies z.infer<typeof KeyRevokedResponse>);
  });
  return r;
}
