import type { Request, Response, NextFunction, RequestHandler } from 'express';
import type { Core } from '../core/core.js';
import { ApiError, unauthenticated } from './errors.js';

export const SESSION_COOKIE = 'sp_session';

/** Who the request acts for; set by the auth middleware. */
export interface AuthContext {
  accountId: string;
  via: 'key' | 'session';
  keyId?: string;
  /**
   * The mode the request sees and makes objects in (docs/test-mode.md): a key's own mode; for a
   * session, the app's mode switch (cookie `sp_mode=test`, or the `StablePay-Mode` header).
   */
  livemode: boolean;
}

/** The app's mode switch (the Developers screen sets it); anything but `test` is live. */
export const MODE_COOKIE = 'sp_mode';

export function sessionLivemode(req: Request): boolean {
  const header = req.headers['stablepay-mode'];
  const chosen = typeof header === 'string' && header !== '' ? header : parseCookies(req.headers.cookie)[MODE_COOKIE];
  return chosen?.trim().toLowerCase() !== 'test';
}

export function auth(res: Response): AuthContext {
  const a = res.locals.auth as AuthContext | undefined;
  if (!a) throw unauthenticated('Authentication required.');
  return a;
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const k = part.slice(0, i).trim();
    try {
      out[k] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      /* ignore undecodable cookie */
    }
  }
  return out;
}

export function sessionToken(req: Request): string | undefined {
  return parseCookies(req.headers.cookie)[SESSION_COOKIE];
}

function bearer(req: Request): { present: boolean; secret?: string } {
  const h = req.headers.authorization;
  if (h === undefined || h.trim() === '') return { present: false };
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return { present: true, secret: m?.[1] };
}

async function fromKey(deps: Core, req: Request, res: Response): Promise<boolean> {
  const b = bearer(req);
  if (!b.present) return false;
  const key = b.secret ? await deps.keys.verify(b.secret) : undefined;
  if (!key) {
    throw unauthenticated(
      b.secret
        ? `Invalid API key provided: ${/^sk_(live|test)_/.test(b.secret) ? b.secret.slice(0, 8) + '…' + b.secret.slice(-4) : '(malformed)'}. It may have been revoked.`
        : 'Malformed Authorization header. Use "Authorization: Bearer sk_live_...".',
    );
  }
  res.locals.auth = { accountId: key.accountId, via: 'key', keyId: key.id, livemode: key.livemode !== false } satisfies AuthContext;
  return true;
}

const NO_KEY = 'No API key provided. Send your secret key as "Authorization: Bearer sk_live_...".';

/** Developer endpoints: a live secret key is required. */
export function requireKey(deps: Core): RequestHandler {
  return async (req, res, next) => {
    if (!(await fromKey(deps, req, res))) throw unauthenticated(NO_KEY);
    next();
  };
}

/**
 * App endpoints usable from the Developers screen (cookie) or a server (bearer). A cookie
 * alone on a state change must come from our own origin (CSRF).
 */
export function requireSessionOrKey(deps: Core, opts: { keyAllowed?: boolean } = {}): RequestHandler {
  const keyAllowed = opts.keyAllowed ?? true;
  return async (req, res, next) => {
    if (keyAllowed && (await fromKey(deps, req, res))) return next();
    const token = sessionToken(req);
    const account = token ? await deps.accounts.accountForSession(token) : undefined;
    if (!account) throw unauthenticated(keyAllowed ? NO_KEY : 'Sign in required.');
    checkOrigin(deps, req);
    res.locals.auth = { accountId: account.id, via: 'session', livemode: sessionLivemode(req) } satisfies AuthContext;
    next();
  };
}

export const requireSession = (deps: Core) => requireSessionOrKey(deps, { keyAllowed: false });

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Rejects cookie-authenticated state changes whose Origin is not ours. */
export function checkOrigin(deps: Core, req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.origin;
  const ours = new URL(deps.config.PUBLIC_URL).origin;
  const host = req.headers.host ? `${req.protocol}://${req.headers.host}` : undefined;
  if (origin !== undefined && origin !== ours && origin !== host) {
    throw new ApiError(403, 'permission_error', 'Cross-origin request refused.');
  }
  const site = req.headers['sec-fetch-site'];
  if (origin === undefined && site === 'cross-site') {
    throw new ApiError(403, 'permission_error', 'Cross-origin request refused.');
  }
}

export function setSessionCookie(deps: Core, res: Response, token: string, expiresAt: string): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.config.PUBLIC_URL.startsWith('https:'),
    path: '/',
    expires: new Date(expiresAt),
  });
}

export function clearSessionCookie(deps: Core, res: Response): void {
  res.clearCookie(SESSION_COOKIE, {
    httpOnly: true,
    sameSite: 'lax',
    secure: deps.config.PUBLIC_URL.startsWith('https:'),
    path: '/',
  });
}

export type { NextFunction };
