import { Router } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { ApiError, invalidRequest, notFound, parseInput } from '../http/errors.js';
import { auth, requireKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, E401, err } from '../http/openapi-common.js';
import { QuoteReason, quoteResource } from '../quotes/quotes.js';
import { CreateQuoteInput, QuoteId, QuoteResource } from '../quotes/quote-schemas.js';

registerSchema('Quote', QuoteResource);
registerSchema('CreateQuoteInput', CreateQuoteInput);
registerRoute({
  method: 'post',
  path: '/api/quotes',
  operationId: 'createQuote',
  summary: 'Get a firm quote for a transfer: the rate, what the recipient receives and the fee, locked until expires_at',
  description:
    'With `recipient` the quote is bound to them (their currency); a phone or email with no account is quoted as the ' +
    'claim-link send it would be (into USDC, `recipient` masked). Without it, bound to `to_currency`. Execute it with ' +
    '`POST /api/agent/settle {"quote_id": "qt_..."}` (a quote bound to a recipient) or pass `quote_id` to the agent\'s ' +
    '`send_transfer` tool: the transfer then moves exactly these figures, whatever the rates do meanwhile. After ' +
    '`expires_at` (QUOTE_TTL, 60 s by default) it is refused (`quote_expired`) and a new quote is offered. Moves no money.',
  tags: ['Quotes'],
  auth: 'bearer',
  body: CreateQuoteInput,
  responses: {
    201: { description: 'The quote.', schema: QuoteResource },
    400: err('Bad field, unsupported currency, unknown or invalid recipient, or an amount too small to send.'),
    401: E401,
    503: err('The live rate provider could not be reached (api_error); nothing was quoted.'),
  },
});
registerRoute({
  method: 'get',
  path: '/api/quotes/:id',
  operationId: 'getQuote',
  summary: 'Read a quote (status open, used or expired)',
  tags: ['Quotes'],
  auth: 'bearer',
  params: z.object({ id: QuoteId }),
  responses: { 200: { description: 'The quote.', schema: QuoteResource }, 400: E400, 401: E401, 404: err("No such quote (another account's quote, or one made with a key of the other mode, is a 404 too).") },
});

/** Firm quotes (docs/quotes.md): `POST /api/quotes`, `GET /api/quotes/:id`, bearer key, the key's account only. */
export function quotesRouter(deps: Core): Router {
  const r = Router();
  r.post('/quotes', requireKey(deps), async (req, res) => {
    const input = parseInput(CreateQuoteInput, req.body ?? {});
    // Priced against the wallet on the key's mode's chain (docs/test-mode.md).
    const made = await deps.forMode(auth(res).livemode).quotes.create(auth(res).accountId, input, { livemode: auth(res).livemode });
    if (!made.ok) {
      if (made.reason === QuoteReason.ratesUnavailable) throw new ApiError(503, 'api_error', made.message);
      throw invalidRequest(made.message, made.param);
    }
    res.set('Cache-Control', 'no-store');
    res.status(201).json(quoteResource(made.quote));
  });
  r.get('/quotes/:id', requireKey(deps), async (req, res) => {
    const id = String(req.params.id);
    const found = QuoteId.safeParse(id).success ? await deps.quotes.get(auth(res).accountId, id, auth(res).livemode) : undefined;
    if (!found) throw notFound(`No such quote: ${id}.`);
    res.set('Cache-Control', 'no-store');
    res.json(quoteResource(found));
  });
  return r;
}
