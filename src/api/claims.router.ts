import { Router } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { mask, returnedFields } from '../claims/claims.js';
import { CLAIM_EVENT_TYPES, type Claim } from '../claims/claim-record.js';
import { invalidRequest, notFound } from '../http/errors.js';
import { auth, requireSessionOrKey } from '../http/auth.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E401, err } from '../http/openapi-common.js';
import { inMode } from '../lib/livemode.js';
import { usdcDecimal } from '../lib/money.js';

const ClaimId = z.string().regex(/^clm_[0-9A-Za-z]{10,64}$/, 'must be a claim id ("clm_...").');
export const ClaimResource = registerSchema(
  'Claim',
  z
    .object({
      id: z.string(),
      object: z.literal('claim'),
      role: z.enum(['sender', 'recipient']).describe("The caller's side of it."),
      status: z.enum(['funding', 'open', 'claiming', 'claimed', 'returning', 'canceled', 'expired', 'failed']),
      recipient: z.string().describe('The phone or email it was sent to, masked.'),
      amount: z.string(),
      currency: z.string(),
      stablecoin_amount: z.string(),
      fee: z.string().describe('USDC; our fee: it goes to our fee wallet when the claim is claimed, and is kept when it is canceled or expires.'),
      total_debit: z.string(),
      returned_amount: z
        .string()
        .nullable()
        .describe('Canceled or expired (or `returning`): USDC back in the sender\'s wallet, the amount (our fee is kept); null otherwise.'),
      fee_kept: z.string().nullable().describe('Canceled or expired (or `returning`): the fee kept, in USDC; null otherwise.'),
      events: z.array(z.object({ type: z.enum(CLAIM_EVENT_TYPES), at: z.string(), tx_hash: z.string().nullable() })),
      expires_at: z.string(),
      created_at: z.string(),
    })
    .describe('A claim link (the link itself is shown once, to the sender, when it is made).'),
);
const ClaimList = z.object({ object: z.literal('list'), data: z.array(ClaimResource) });

function claimResource(c: Claim, accountId: string): z.infer<typeof ClaimResource> {
  return {
    id: c.id,
    object: 'claim',
    role: c.senderAccountId === accountId ? 'sender' : 'recipient',
    status: c.status,
    recipient: mask(c),
    amount: c.sourceAmount,
    currency: c.sourceCurrency,
    stablecoin_amount: usdcDecimal(c.amount),
    fee: usdcDecimal(c.fee),
    total_debit: usdcDecimal(c.total),
    ...(c.returnReason ? returnedFields(c) : { returned_amount: null, fee_kept: null }),
    events: c.events.map((e) => ({ type: e.type, at: e.at, tx_hash: e.txHash ?? null })),
    expires_at: c.expiresAt,
    created_at: c.createdAt,
  };
}

registerRoute({
  method: 'get',
  path: '/api/claims',
  operationId: 'listClaims',
  summary: 'Claim links the account sent or received, newest first',
  tags: ['Claims'],
  auth: 'bearer',
  responses: { 200: { description: 'The claims.', schema: ClaimList }, 401: E401 },
});
registerRoute({
  method: 'post',
  path: '/api/claims/:id/cancel',
  operationId: 'cancelClaim',
  summary: 'Cancel an unclaimed claim link: the amount goes back to the sender; our fee is kept',
  tags: ['Claims'],
  auth: 'bearer',
  params: z.object({ id: ClaimId }),
  responses: {
    200: { description: 'The claim, `canceled` (or `returning` while the chain confirms); a cancel of a canceled claim answers it again.', schema: ClaimResource },
    400: err('Already claimed, or expired.'),
    401: E401,
    404: err("No such claim sent by this account (another account's is a 404 too)."),
  },
});

/** Claim links (docs/claims.md): list and cancel, bearer key or session cookie, the caller's own only. */
export function claimsRouter(deps: Core): Router {
  const r = Router();
  r.get('/claims', requireSessionOrKey(deps), async (_req, res) => {
    const { accountId: me, livemode } = auth(res);
    res.set('Cache-Control', 'no-store');
    // The caller's mode only (docs/test-mode.md): a test key never lists live claim links, nor the reverse.
    res.json({ object: 'list', data: (await deps.claims.history(me, undefined, livemode)).map((c) => claimResource(c, me)) });
  });
  r.post('/claims/:id/cancel', requireSessionOrKey(deps), async (req, res) => {
    const me = auth(res).accountId;
    const id = String(req.params.id);
    if (!ClaimId.safeParse(id).success) throw notFound(`No such claim: ${id}.`);
    // The other mode's claim is an unknown id, exactly like another account's.
    const found = await deps.claims.get(id);
    if (found && !inMode(found, auth(res).livemode)) throw notFound(`No such claim: ${id}.`);
    const done = await deps.claims.cancel(me, id);
    if (!done.ok) {
      if (done.reason === 'claim_not_found') throw notFound(done.message);
      throw invalidRequest(done.message);
    }
    res.json(claimResource(done.claim, me));
  });
  return r;
}
