import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { sameOrigin, sessionToken, type WebDeps } from './deps.js';
import type { Account } from '../accounts/accounts.js';
import type { SignedInAccount } from './layout.js';
import { loginPage, signupPage } from './pages/auth-forms.js';
import { homePage } from './pages/home.js';
import { REDOC_BUNDLE, apiReferencePage, type OpenApiDoc } from './pages/api-reference.js';
import { buildOpenApiDocument } from '../http/openapi.js';
import { dashboardPage } from './pages/dashboard.js';
import { paymentPage, type PaymentPageExtras } from './pages/payment.js';
import { formatUnits } from 'viem';
import { DashboardQuery, paymentDetail, type PaymentDetail } from './dashboard-data.js';
import { developersPage } from './pages/developers.js';
import { errorPage, notFoundPage } from './pages/not-found.js';
import { actionPage } from './pages/action.js';

/** Static files sit next to this module, so the same path works from src/ under tsx. */
export const ASSETS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets');

/** Redoc's self-contained browser bundle, served from our own node_modules (no CDN). */
const REDOC_FILE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

/**
 * The app's CSP plus what Redoc needs on /docs: its search index runs in a Web Worker it builds
 * from a blob: URL. Still no script from anywhere but this origin.
 */
const DOCS_CSP = "default-src 'self';script-src 'self';worker-src 'self' blob:;style-src 'self' 'unsafe-inline';img-src 'self' data:;connect-src 'self';font-src 'self' data:;object-src 'none';base-uri 'self';form-action 'self';frame-ancestors 'none'";

const shown = (a: Account): SignedInAccount => ({ name: a.name, email: a.email });

/** This door's table from a confirm/cancel outcome (its `ok`) to the action page's HTTP status. */
const ACTION_PAGE_STATUS = { ok: 200, failed: 422 } as const;

/** Only our own app paths may be a post-login target (no open redirect). */
export function safeNext(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // A hosted checkout page is a target too: "Sign in to pay from your StablePay wallet".
  if (/^\/pay\/[\w-]{1,64}$/.test(value)) return value;
  // A claim link's page (docs/claims.md): sign in, then claim.
  if (/^\/claim\/[0-9A-Za-z]{32}$/.test(value)) return value;
  return /^\/app(\/[\w\-/]*)?$/.test(value) && !value.startsWith('/app/login') && !value.startsWith('/app/signup')
    ? value
    : undefined;
}

/** Formatted amounts and what can still be refunded, with the currency's own decimals. */
function paymentExtras(deps: WebDeps, d: PaymentDetail): PaymentPageExtras {
  const p = d.payment;
  const paid = deps.fx.parseAmount(p.amount, p.currency);
  const back = deps.fx.parseAmount(p.amount_refunded, p.currency);
  if (!paid.ok || !back.ok) return { amountText: `${p.amount} ${p.currency}`, refundedText: `${p.amount_refunded} ${p.currency}`, decimals: 2 };
  const decimals = paid.info.decimals;
  const left = paid.minor - back.minor;
  const settled = p.status === 'settled';
  const blocked = settled && p.payout_address ? 'This payment settled to an external payout address, for which the service holds no key: refund it from that wallet.' : undefined;
  return {
    amountText: deps.fx.format(paid.minor, p.currency),
    refundedText: deps.fx.format(back.minor, p.currency),
    decimals,
    refundable: settled && !blocked && left > 0n ? formatUnits(left, decimals) : undefined,
    refundBlocked: blocked,
  };
}

/** The web app at /app: server-rendered shells whose scripts call the JSON API. */
export function webRouter(deps: WebDeps): Router {
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

  // The API reference for people, from the same registry as /api/openapi.json (built on first
  // request: every router has registered its routes by then; dev-only routes where they are served).
  let reference: OpenApiDoc | undefined;
  r.get(REDOC_BUNDLE, (_req, res) => {
    res.sendFile(REDOC_FILE, { maxAge: '1d', headers: { 'Content-Type': 'text/javascript; charset=utf-8' } });
  });
  r.get('/docs', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    res.set('Content-Security-Policy', DOCS_CSP);
    reference ??= buildOpenApiDocument({ publicUrl: deps.config.PUBLIC_URL, includeDevRoutes: deps.wallets.devTools }) as unknown as OpenApiDoc;
    const account = await signedIn(req).catch(() => undefined);
    html(res, apiReferencePage(account ? shown(account) : undefined, reference));
  });

  r.get('/app/signup', guestPage((req) => signupPage(safeNext(req.query.next))));
  r.get(
    '/app/login',
    guestPage((req) =>
      loginPage(safeNext(req.query.next), req.query.signed_out === '1' ? 'You have been logged out.' : undefined),
    ),
  );
  r.get('/app', async (req, res, next) => {
    const q = DashboardQuery.safeParse(req.query);
    const filters = q.success ? { status: q.data.status, q: q.data.q, from: q.data.from, to: q.data.to } : {};
    const error = q.success ? undefined : `These filters could not be used (${q.error.issues[0]?.path.join('.')}: ${q.error.issues[0]?.message}); showing all payments.`;
    return page((a) => dashboardPage(shown(a), filters, error))(req, res, next);
  });
  r.get('/app/payments/:id', async (req, res, next) => {
    const account = await signedIn(req);
    if (!account) return page(() => '')(req, res, next);
    const detail = await paymentDetail(deps, account.id, String(req.params.id));
    // Another account's payment does not exist for this one.
    if (!detail) return html(res, notFoundPage(shown(account)), 404);
    html(res, paymentPage(shown(account), detail, paymentExtras(deps, detail)));
  });
  r.get('/app/developers', async (req, res, next) => {
    const account = await signedIn(req);
    if (!account) return page(() => '')(req, res, next);
    // The gas our relayer spent settling this merchant's x402 payments (docs/x402.md).
    const usage = await deps.facilitator.usage(account.id, 5);
    html(res, developersPage(shown(account), deps.config.PUBLIC_URL, usage));
  });

  // Pending actions from AI assistants (MCP, docs/mcp.md): only the signed-in owner sees or confirms them.
  const ACTION_ID = /^act_[0-9A-Za-z]{10,64}$/;
  // Under helmet's no-referrer policy Chromium sends `Origin: null` with a form post; same-origin
  // lets our own form carry its origin, which the CSRF check below requires.
  r.use('/app/actions', (_req, res, next) => {
    res.set('Referrer-Policy', 'same-origin');
    next();
  });
  // The secret key an action was asked through, by its label and masked prefix (never the secret).
  const askingKey = async (accountId: string, keyId: string | undefined) =>
    keyId ? (await deps.keys.list(accountId)).find((k) => k.id === keyId) : undefined;
  r.get('/app/actions/:id', async (req, res, next) => {
    const account = await signedIn(req);
    if (!account) return page(() => '')(req, res, next);
    const a = ACTION_ID.test(String(req.params.id)) ? await deps.agent.pendingAction(account.id, String(req.params.id)) : undefined;
    if (!a) return html(res, notFoundPage(shown(account)), 404);
    html(res, actionPage(shown(account), a, undefined, await askingKey(account.id, a.key_id)));
  });
  for (const verb of ['confirm', 'cancel'] as const) {
    r.post(`/app/actions/:id/${verb}`, async (req, res) => {
      const account = await signedIn(req);
      if (!account) return res.redirect(303, `/app/login?next=${encodeURIComponent(`/app/actions/${req.params.id}`)}`);
      if (!sameOrigin(deps, req)) return html(res, notFoundPage(shown(account)), 403);
      const id = String(req.params.id);
      if (!ACTION_ID.test(id)) return html(res, notFoundPage(shown(account)), 404);
      const result = verb === 'confirm' ? await deps.agent.confirm(account.id, id, { requestId: String(req.id), via: 'web' }) : await deps.agent.cancel(account.id, id);
      const a = await deps.agent.pendingAction(account.id, id);
      if (!a) return html(res, notFoundPage(shown(account)), 404);
      html(res, actionPage(shown(account), a, { ok: result.ok, reply: result.reply }, await askingKey(account.id, a.key_id)), ACTION_PAGE_STATUS[result.ok ? 'ok' : 'failed']);
    });
  }

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
