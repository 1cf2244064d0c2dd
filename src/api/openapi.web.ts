import { z } from 'zod';
import { registerRoute } from '../http/openapi.js';
import { DeveloperErrorBody } from '../http/errors.js';
import { PaymentId, PaymentStatus } from '../payments/schemas.js';
import { DashboardFields } from '../payments/search.js';

/**
 * Issue 15 items 5 and 6: the session-only JSON the dashboard reads (src/web/data.router.ts)
 * and the checkout's "pay from your app wallet" (src/checkout/app-wallet.router.ts).
 */

const err = (description: string) => ({ description, schema: DeveloperErrorBody });
const E401s = err('Not signed in (authentication_error). A bearer key is not accepted: these routes are for the app.');
const Params = z.object({ id: PaymentId });
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
    401: E401s,
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
    401: E401s,
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
    401: E401s,
  },
});

registerRoute({
  method: 'get',
  path: '/api/app/dashboard/payments/:id',
  operationId: 'appPaymentDetail',
  summary: 'One payment with its timeline, events and deliveries (dashboard)',
  tags: ['Dashboard'],
  auth: 'session',
  params: Params,
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
    401: E401s,
    404: err("No such payment (another account's payment is a 404 too)."),
  },
});

const CheckoutFailure = z.object({ ok: z.literal(false), error: z.string(), reason: z.string() });
registerRoute({
  method: 'post',
  path: '/api/checkout/:id/app-wallet-pay',
  operationId: 'checkoutPayFromAppWallet',
  summary: "Pay the checkout session from the signed-in customer's app wallet",
  description:
    "The service signs the payment's EIP-3009 authorization with the customer's custodial key and settles it like `/api/checkout/{id}/settle` (same nonce: a payment settles at most once). Session cookie only, same origin. A wallet hold and the daily limit are taken first.",
  tags: ['Checkout'],
  auth: 'session',
  params: Params,
  responses: {
    200: { description: 'Settled: `{ok:true, payment, txHash, redirect}`.' },
    202: { description: 'Sent, not yet confirmed: `{ok:true, payment, txHash}`; read `GET /api/checkout/{id}` for the outcome.' },
    401: E401s,
    402: { description: 'The app wallet holds too little (reason `insufficient_balance`); nothing moved.', schema: CheckoutFailure },
    403: { description: 'Cookie-authenticated request from a foreign Origin.', schema: z.object({ ok: z.literal(false), error: z.string() }) },
    404: { description: 'No such payment.', schema: CheckoutFailure },
    409: { description: 'Already settled, processing, canceled or failed; or the payment settles to this very wallet (`own_payment`).', schema: CheckoutFailure },
    410: { description: 'The checkout session expired.', schema: CheckoutFailure },
    422: { description: 'Over the daily limit (`over_limit`), or the transaction would revert or reverted.', schema: CheckoutFailure },
    503: { description: 'The chain is unavailable.', schema: CheckoutFailure },
  },
});
