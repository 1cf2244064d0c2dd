import { Router } from 'express';
import { rateLimit } from 'express-rate-limit';
import { z } from 'zod';
import { LoginInput, PublicAccount, SignupInput, publicAccount } from '../accounts/accounts.js';
import { WalletSummary } from '../wallet/balance.js';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, parseInput, sendError, unauthenticated } from '../http/errors.js';
import { auth, checkOrigin, clearSessionCookie, requireSessionOrKey, sessionToken, setSessionCookie } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E401s, E403, E429, err } from '../http/openapi-common.js';

/** Signup, login and `GET /me` answer with the account (`/me` adds extras such as the wallet). */
export const AccountResponse = z.object({ ok: z.literal(true), account: PublicAccount });
/** `/me` adds the custodial wallet where the service has a chain. */
export const MeResponse = z.object({ ok: z.literal(true), account: PublicAccount.extend({ wallet: WalletSummary.optional() }) });
export const OkResponse = z.object({ ok: z.literal(true) });

registerSchema('Account', PublicAccount);
registerSchema('SignupInput', SignupInput);
registerSchema('LoginInput', LoginInput);
registerSchema('AccountResponse', AccountResponse);
registerSchema('Ok', OkResponse);

const SetCookie = { 'Set-Cookie': 'sp_session: httpOnly, SameSite=Lax, Secure on https.' };

registerRoute({
  method: 'post',
  path: '/api/auth/signup',
  operationId: 'signup',
  summary: 'Create a merchant account and sign in (sets the session cookie)',
  tags: ['Accounts'],
  auth: 'none',
  body: SignupInput,
  responses: {
    201: { description: 'Created and signed in.', schema: AccountResponse, headers: SetCookie },
    400: E400,
    403: E403,
    409: err('An account with this email already exists.'),
    429: E429,
  },
});

registerRoute({
  method: 'post',
  path: '/api/auth/login',
  operationId: 'login',
  summary: 'Sign in (sets the session cookie)',
  tags: ['Accounts'],
  auth: 'none',
  body: LoginInput,
  responses: {
    200: { description: 'Signed in.', schema: AccountResponse, headers: SetCookie },
    400: E400,
    401: err('Incorrect email or password.'),
    403: E403,
    429: E429,
  },
});

registerRoute({
  method: 'post',
  path: '/api/auth/logout',
  operationId: 'logout',
  summary: 'End the session and clear the cookie',
  tags: ['Accounts'],
  auth: 'none',
  responses: { 200: { description: 'Signed out.', schema: OkResponse }, 403: E403 },
});

registerRoute({
  method: 'get',
  path: '/api/me',
  operationId: 'me',
  summary: 'The account of the session or of the secret key (with its custodial wallet)',
  tags: ['Accounts'],
  auth: 'sessionOrBearer',
  responses: { 200: { description: 'The account.', schema: MeResponse }, 401: err('Not signed in and no valid key (authentication_error).') },
});

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

  // Read-only, so a secret key may read its own account too (issue 27: the README said so).
  r.get('/me', requireSessionOrKey(deps), async (_req, res) => {
    const account = await deps.accounts.get(auth(res).accountId);
    if (!account) throw unauthenticated('Sign in required.');
    // The wallet's balance in the caller's mode: a test key (or the app's test switch) sees its test money.
    res.json({ ok: true, account: { ...publicAccount(account), ...(await deps.present.account(account, auth(res).livemode)) } });
  });

  return r;
}
