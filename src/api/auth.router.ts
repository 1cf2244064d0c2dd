import { Router } from 'express';
import { rateLimit } from 'express-rate-limit';
import { z } from 'zod';
import { LoginInput, PublicAccount, SignupInput, publicAccount } from '../accounts/accounts.js';
import { WalletSummary } from '../wallet/balance.js';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, parseInput, sendError, unauthenticated } from '../http/errors.js';
import { auth, checkOrigin, clearSessionCookie, requireSession, sessionToken, setSessionCookie } from '../http/auth.js';

/** Signup, login and `GET /me` answer with the account (`/me` adds extras such as the wallet). */
export const AccountResponse = z.object({ ok: z.literal(true), account: PublicAccount });
/** `/me` adds the custodial wallet where the service has a chain. */
export const MeResponse = z.object({ ok: z.literal(true), account: PublicAccount.extend({ wallet: WalletSummary.optional() }) });
export const OkResponse = z.object({ ok: z.literal(true) });

export function authRouter(deps: Core): Router {
  const r = Router();
  // Slows password guessing; generous enough for people who mistype.
  const limiter = rateLimit({
    windowMs: 60_000,
    limit: deps.config.NODE_ENV === 'test' ? 1000 : 20,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    handler: (_req, res) => sendError(res, new ApiError(429, 'rate_limit_error', 'Too many attempts. Try again in a minute.')),
  });

  r.post('/auth/signup', limiter, async (req, res) => {
    checkOrigin(deps, req);
    const input = parseInput(SignupInput, req.body);
    const created = await deps.accounts.signup(input);
    if (!created.ok) throw invalidRequest(created.message, created.param, 409);
    const s = await deps.accounts.createSession(created.account.id);
    setSessionCookie(deps, res, s.token, s.expiresAt);
    res.status(201).json({ ok: true, account: publicAccount(created.account) });
  });

  r.post('/auth/login', limiter, async (req, res) => {
    checkOrigin(deps, req);
    const input = parseInput(LoginInput, req.body);
    const found = await deps.accounts.authenticate(input);
    if (!found.ok) throw unauthenticated(found.message);
    const s = await deps.accounts.createSession(found.account.id);
    setSessionCookie(deps, res, s.token, s.expiresAt);
    res.json({ ok: true, account: publicAccount(found.account) });
  });

  r.post('/auth/logout', async (req, res) => {
    checkOrigin(deps, req);
    const token = sessionToken(req);
    if (token) await deps.accounts.endSession(token);
    clearSessionCookie(deps, res);
    res.json({ ok: true });
  });

  r.get('/me', requireSession(deps), async (_req, res) => {
    const account = await deps.accounts.get(auth(res).accountId);
    if (!account) throw unauthenticated('Sign in required.');
    res.json({ ok: true, account: { ...publicAccount(account), ...(await deps.present.account(account)) } });
  });

  return r;
}
