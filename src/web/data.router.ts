import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { Account } from '../accounts/accounts.js';
import { sessionAccount, type WebDeps } from './deps.js';
import { DashboardQuery, listPayments, paymentDetail, paymentsCsv, summary } from './dashboard-data.js';

/** The developer error body (DESIGN.md 4), written here so this door needs nothing from the API door. */
function sendError(res: Response, status: number, type: string, message: string, param?: string): void {
  res.status(status).json({ error: param ? { type, message, param } : { type, message } });
}

function parseQuery<S extends z.ZodType>(schema: S, req: Request, res: Response): z.output<S> | undefined {
  const r = schema.safeParse(req.query);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const param = issue.path.map(String).join('.') || undefined;
  sendError(res, 400, 'invalid_request_error', param ? `${param}: ${issue.message}` : issue.message, param);
  return undefined;
}

/**
 * JSON the dashboard reads (mounted under /api): session cookie only, always the signed-in
 * account's own payments; another account's payment does not exist (404).
 */
export function dashboardDataRouter(deps: WebDeps): Router {
  const r = Router();
  const account = (res: Response) => res.locals.webAccount as Account;

  const session: RequestHandler = async (req, res, next) => {
    const a = await sessionAccount(deps, req);
    if (!a) return sendError(res, 401, 'authentication_error', 'Sign in required.');
    res.locals.webAccount = a;
    res.set('Cache-Control', 'no-store');
    next();
  };

  r.get('/app/dashboard/payments', session, async (req, res) => {
    const q = parseQuery(DashboardQuery, req, res);
    if (!q) return;
    const listed = await listPayments(deps, account(res).id, q);
    if (!listed.ok) return sendError(res, 400, 'invalid_request_error', listed.message, listed.param);
    res.json({ object: 'list', data: listed.data, has_more: listed.has_more, total_count: listed.total_count });
  });

  r.get('/app/dashboard/payments.csv', session, async (req, res) => {
    const q = parseQuery(DashboardQuery, req, res);
    if (!q) return;
    const stamp = new Date().toISOString().slice(0, 10);
    res.type('text/csv; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="payments-${stamp}.csv"`);
    res.send(await paymentsCsv(deps, account(res).id, q));
  });

  r.get('/app/dashboard/summary', session, async (req, res) => {
    const q = parseQuery(DashboardQuery, req, res);
    if (!q) return;
    res.json(await summary(deps, account(res).id, q));
  });

  r.get('/app/dashboard/payments/:id', session, async (req, res) => {
    const id = String(req.params.id);
    const detail = await paymentDetail(deps, account(res).id, id);
    if (!detail) return sendError(res, 404, 'invalid_request_error', `No such payment: ${id}`, 'id');
    res.json(detail);
  });
  return r;
}
