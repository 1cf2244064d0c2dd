import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { AppDeps } from '../api/deps.js';
import { sessionToken } from '../api/auth.js';
import type { Account } from '../accounts/accounts.js';
import type { SignedInAccount } from './layout.js';
import { loginPage, signupPage } from './pages/auth.js';
import { homePage } from './pages/home.js';
import { dashboardPage } from './pages/dashboard.js';
import { developersPage } from './pages/developers.js';
import { errorPage, notFoundPage } from './pages/not-found.js';

/** Static files sit next to this module, so the same path works from src/ under tsx. */
export const ASSETS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

const shown = (a: Account): SignedInAccount => ({ name: a.name, email: a.email });

/** Only our own app paths may be a post-login target (no open redirect). */
export function safeNext(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // A hosted checkout page is a target too: "Sign in to pay from your StablePay wallet".
  if (/^\/pay\/[\w-]{1,64}$/.test(value)) return value;
  return /^\/app(\/[\w\-/]*)?$/.test(value) && !value.startsWith('/app/login') && !value.startsWith('/app/signup')
    ? value
    : undefined;
}

/** The web app at /app: server-rendered shells whose scripts call the JSON API. */
export function webRouter(deps: AppDeps): Router {
  const r = Router();

  async function signedIn(req: Request): Promise<Account | undefined> {
    const token = sessionToken(req);
    return token ? deps.accounts.accountForSession(token) : undefined;
  }

  // No build step and no hashed names: browsers revalidate (ETag), so a deploy is seen at once.
  r.use('/app/assets', express.static(ASSETS_DIR, { index: false, maxAge: 0, fallthrough: false }));

  r.use('/app', (_req, res, next) => {
    // Pages carry personal data: never cache them.
    res.set('Cache-Control', 'no-store');
    next();
  });

  const html = (res: Response, body: string, status = 200) => res.status(status).type('html').send(body);

  /** Signed-in pages: visitors without a session go to the login page and come back after. */
  const page =
    (render: (account: Account) => string): RequestHandler =>
    async (req, res) => {
      const account = await signedIn(req);
      if (!account) {
        const next = safeNext(req.originalUrl.split('?')[0]);
        res.redirect(303, next && next !== '/app' && next !== '/app/' ? `/app/login?next=${encodeURIComponent(next)}` : '/app/login');
        return;
      }
      html(res, render(account));
    };

  /** Sign-up and log-in pages: someone already signed in goes straight to the app. */
  const guestPage =
    (render: (req: Request) => string): RequestHandler =>
    async (req, res) => {
      if (await signedIn(req)) {
        res.redirect(303, safeNext(req.query.next) ?? '/app');
        return;
      }
      html(res, render(req));
    };

  // The service's front door: where the app and the API docs are.
  r.get('/', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    const account = await signedIn(req).catch(() => undefined);
    html(res, homePage(account ? shown(account) : undefined, deps.config.PUBLIC_URL));
  });

  r.get('/app/signup', guestPage(() => signupPage()));
  r.get(
    '/app/login',
    guestPage((req) =>
      loginPage(safeNext(req.query.next), req.query.signed_out === '1' ? 'You have been logged out.' : undefined),
    ),
  );
  r.get('/app', page((a) => dashboardPage(shown(a))));
  r.get('/app/developers', page((a) => developersPage(shown(a), deps.config.PUBLIC_URL)));

  // Anything else under /app is a page that does not exist: an HTML 404, not the API's JSON.
  r.use('/app', async (req, res) => {
    const account = await signedIn(req).catch(() => undefined);
    html(res, notFoundPage(account ? shown(account) : undefined), 404);
  });

  const pageError: ErrorRequestHandler = (err, req, res, next) => {
    if (res.headersSent) return next(err);
    // express.static answers a missing asset with a 404 error: keep that a plain 404.
    if ((err as { status?: number }).status === 404) return html(res, notFoundPage(undefined), 404);
    req.log?.error({ err }, 'page failed');
    html(res, errorPage(), 500);
  };
  r.use('/app', pageError);
  return r;
}
