/**
 * What the web app door needs from the composition root. Declared here (not taken from the
 * API door's AppDeps) so that src/web imports no other door; the root passes its AppDeps,
 * which has all of these.
 */
import type { Request } from 'express';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Store } from '../store/index.js';
import type { Account, AccountsService } from '../accounts/accounts.js';
import type { PaymentsService } from '../payments/payments.js';
import type { ChainService } from '../chain/chain.js';
import type { FxService } from '../fx/rates.js';

export interface WebDeps {
  config: Config;
  logger: Logger;
  store: Store;
  fx: FxService;
  chain: ChainService;
  accounts: AccountsService;
  payments: PaymentsService;
}

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
