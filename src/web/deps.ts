/** What the web app door takes from the core (src/core/core.ts). */
import type { Request } from 'express';
import type { Account } from '../accounts/accounts.js';
import type { Core } from '../core/core.js';

/** Pending actions from AI assistants (MCP) are confirmed on /app/actions/:id (the agent). */
/** The x402 facilitator's gas usage is shown on the Developers screen. */
export type WebDeps = Pick<Core, 'config' | 'logger' | 'fx' | 'accounts' | 'payments' | 'agent' | 'refunds' | 'webhooks' | 'wallets' | 'facilitator' | 'keys'>;

/** The session cookie the auth routes set (httpOnly, SameSite=Lax; DESIGN.md 4). */
export const SESSION_COOKIE = 'sp_session';

export function sessionToken(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0 || part.slice(0, i).trim() !== SESSION_COOKIE) continue;
    try {
      return decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The signed-in account, or undefined (no cookie, unknown or expired session). */
export async function sessionAccount(deps: Pick<WebDeps, 'accounts'>, req: Request): Promise<Account | undefined> {
  const token = sessionToken(req);
  return token ? deps.accounts.accountForSession(token) : undefined;
}

/**
 * CSRF check for the app's own form posts: the Origin must be ours (PUBLIC_URL, or the host the
 * request came to), and a request without one must not be cross-site.
 */
export function sameOrigin(deps: Pick<WebDeps, 'config'>, req: Request): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const host = req.headers.host ? `${req.protocol}://${req.headers.host}` : undefined;
    return origin === new URL(deps.config.PUBLIC_URL).origin || origin === host;
  }
  return req.headers['sec-fetch-site'] !== 'cross-site';
}
