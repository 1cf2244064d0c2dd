import { Router, type Request, type RequestHandler, type Response } from 'express';
import { z } from 'zod';
import type { Account } from '../accounts/accounts.js';
import { sessionAccount, type WebDeps } from './deps.js';
import { DashboardQuery, listPayments, paymentDetail, paymentsCsv, summary } from './dashboard-data.js';
import { sessionLivemode } from '../http/auth.js';
import { registerRoute } from '../http/openapi.js';
import { E401app, E404payment, err } from '../http/openapi-common.js';
import { PaymentId, PaymentStatus } from '../payments/payment-schemas.js';
import { DashboardFields } from '../payments/search.js';

// ------------------------------------------- OpenAPI: the dashboard's JSON (issue 15 item 5)
const Decimal = z.string().describe('Decimal text');
const FilterQuery = DashboardFields.omit({ limit: true, starting_after: true });
const PeriodQuery = DashboardFields.pick({ from: true, to: true });

const ListItem = z.object({
  id: z.string(),
  status: PaymentStatus,
  amount: Decimal,
  currency: z.string(),
  stablecoin_amount: Decimal,
  amount_refunded: Decimal,
  stablecoin_refunded: Decimal,
  reference: z.string().nullable(),
  description: z.string().nullable(),
  created_at: z.string(),
  settled_at: z.string().nullable(),
  checkout_url: z.string(),
  capture_method: z.literal('manual').optional().describe('Only on manual-capture (x402 auth-capture) payments, with the four fields below.'),
  amount_capturable: Decimal.optional().describe('Stablecoin held in escrow, capturable now.'),
  amount_captured: Decimal.optional().describe('Stablecoin captured to the merchant so far.'),
  amount_voided: Decimal.optional().describe('Stablecoin released back to the payer.'),
  capture_before: z.string().nullable().optional().describe('When an uncaptured hold is voided automatically.'),
});

registerRoute({
  method: 'get',
  path: '/api/app/dashboard/payments',
  operationId: 'appSearchPayments',
  summary: "Search the signed-in account's payments (dashboard)",
  description:
    '`status`, `q` (part of a reference, any case, or a payment id or id prefix), `from`/`to` (UTC days, inclusive, on the creation time); blank values mean not set. Newest first; `total_count` counts every match.',
  tags: ['Dashboard'],
  auth: 'session',
  query: DashboardFields,
  responses: {
    200: { description: 'A page of matches.', schema: z.object({ object: z.literal('list'), data: z.array(ListItem), has_more: z.boolean(), total_count: z.number().int() }) },
    400: err('A bad filter or cursor (`error.param` names it).'),
    401: E401app,
  },
});

registerRoute({
  method: 'get',
  path: '/api/app/dashboard/payments.csv',
  operationId: 'appExportPayments',
  summary: 'Export every payment matching the filter as CSV (dashboard)',
  description:
    'RFC 4180 CSV, `Content-Disposition: attachment`. Columns: id, created_at, status, amount, currency, stablecoin_amount, amount_refunded, stablecoin_refunded, reference, description, payer, tx_hash, settled_at, metadata (JSON). Text starting with = + - @ is prefixed with a quote so spreadsheets do not run it.',
  tags: ['Dashboard'],
  auth: 'session',
  query: FilterQuery,
  responses: {
    200: { description: 'text/csv' },
    400: err('A bad filter (`error.param` names it).'),
    401: E401app,
  },
});

registerRoute({
  method: 'get',
  path: '/api/app/dashboard/summary',
  operationId: 'appPaymentTotals',
  summary: 'Totals for a period: settled, refunded, net, per day (dashboard)',
  description: 'In the stablecoin (USDC), by settlement day (UTC). Default period: the last 30 days; at most 366.',
  tags: ['Dashboard'],
  auth: 'session',
  query: PeriodQuery,
  responses: {
    200: {
      description: 'The totals.',
      schema: z.object({
        from: z.string(),
        to: z.string(),
        currency: z.literal('USDC'),
        settled_count: z.number().int(),
        settled: Decimal,
        refunded: Decimal,
        net: Decimal,
        days: z.array(z.object({ day: z.string(), settled: Decimal, refunded: Decimal, count: z.number().int() })),
      }),
    },
    400: err('A bad date (`error.param` names it).'),
    401: E401app,
  },
});

registerRoute({
  method: 'get',
  path: '/api/app/dashboard/payments/:id',
  operationId: 'appPaymentDetail',
  summary: 'One payment with its timeline, events and deliveries (dashboard)',
  tags: ['Dashboard'],
  auth: 'session',
  params: z.object({ id: PaymentId }),
  responses: {
    200: {
      description: '`{payment, network, refunds, timeline, events:[{id, type, created_at, deliveries:[{id, url, status, attempts}]}]}`.',
      schema: z.object({
        payment: ListItem.extend({ metadata: z.record(z.string(), z.unknown()), payer: z.string().nullable(), tx_hash: z.string().nullable(), tx_url: z.string().nullable() }).passthrough(),
        network: z.object({ chain_id: z.number().int(), name: z.string(), explorer_url: z.string().nullable() }),
        refunds: z.array(
          z.object({
            id: z.string(),
            status: z.string(),
            amount: Decimal,
            currency: z.string(),
            stablecoin_amount: Decimal,
            reason: z.string().nullable(),
            to: z.string(),
            tx_hash: z.string().nullable(),
            tx_url: z.string().nullable(),
            failure_reason: z.string().nullable(),
            created_at: z.string(),
            succeeded_at: z.string().nullable(),
          }),
        ),
        timeline: z.array(z.object({ at: z.string(), kind: z.string(), title: z.string() }).passthrough()),
        events: z.array(z.object({ id: z.string(), type: z.string(), created_at: z.string(), deliveries: z.array(z.object({}).passthrough()) })),
      }),
    },
    401: E401app,
    404: E404payment,
  },
});

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
    const listed = await listPayments(deps, account(res).id, q, sessionLivemode(req));
    if (!listed.ok) return sendError(res, 400, 'invalid_request_error', listed.message, listed.param);
    res.json({ object: 'list', data: listed.data, has_more: listed.has_more, total_count: listed.total_count });
  });

  r.get('/app/dashboard/payments.csv', session, async (req, res) => {
    const q = parseQuery(DashboardQuery, req, res);
    if (!q) return;
    const stamp = new Date().toISOString().slice(0, 10);
    res.type('text/csv; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="payments-${stamp}.csv"`);
    res.send(await paymentsCsv(deps, account(res).id, q, sessionLivemode(req)));
  });

  r.get('/app/dashboard/summary', session, async (req, res) => {
    const q = parseQuery(DashboardQuery, req, res);
    if (!q) return;
    res.json(await summary(deps, account(res).id, q, sessionLivemode(req)));
  });

  r.get('/app/dashboard/payments/:id', session, async (req, res) => {
    const id = String(req.params.id);
    const detail = await paymentDetail(deps, account(res).id, id, sessionLivemode(req));
    if (!detail) return sendError(res, 404, 'invalid_request_error', `No such payment: ${id}`, 'id');
    res.json(detail);
  });
  return r;
}
