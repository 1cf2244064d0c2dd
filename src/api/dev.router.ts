import { Router } from 'express';
import { parseUnits, zeroAddress } from 'viem';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { ApiError, parseInput, useErrorShape } from '../http/errors.js';
import { EvmAddress } from '../wallet/wallets.js';
import { sendSettleResult } from '../http/settle-answer.js';
import { registerRoute, registerSchema } from '../http/openapi.js';
import { E400, err, settleResponses } from '../http/openapi-common.js';
import { PaymentId } from '../payments/payment-schemas.js';

export const FAUCET_MAX = 1_000_000;

// Money is entered as a number or a decimal string everywhere (the payments API takes numbers);
// both end up as one exact decimal string before any arithmetic, so no float reaches parseUnits.
const FaucetAmount = z
  .union([z.number(), z.string()], { message: 'amount must be a number or a decimal string like "100"' })
  .transform((v) => (typeof v === 'number' ? String(v) : v))
  .pipe(
    z
      .string()
      .regex(/^\d{1,7}(\.\d{1,6})?$/, { message: 'amount must be a number or a decimal string like "100", with at most 6 decimals', abort: true })
      .refine((s) => /[1-9]/.test(s), { message: 'amount must be greater than zero', abort: true })
      .refine((s) => parseUnits(s, 6) <= parseUnits(String(FAUCET_MAX), 6), `amount must be at most ${FAUCET_MAX.toLocaleString('en-US')}`),
  );

export const FaucetInput = z
  .object({
    // The token refuses mints to the zero address: say so here, not as a chain error.
    address: EvmAddress.refine((a) => a !== zeroAddress, 'address must not be the zero address'),
    amount: FaucetAmount,
  })
  .strict();
export type FaucetInput = z.infer<typeof FaucetInput>;

registerSchema('FaucetInput', FaucetInput);

// Documented only when the document is built for a deployment that serves them (devOnly).
registerRoute({
  method: 'post',
  path: '/api/dev/faucet',
  operationId: 'devFaucet',
  summary: 'Mint test stablecoin and gas money on the embedded chain (not in production)',
  tags: ['Development'],
  auth: 'none',
  body: FaucetInput,
  devOnly: true,
  responses: {
    200: { description: '`{ok:true, address, amount, amount_base_units, mint_tx_hash, gas_tx_hash}`.' },
    400: E400,
    503: err('The chain refused.'),
  },
});

registerRoute({
  method: 'post',
  path: '/api/dev/test-wallet-pay/:id',
  operationId: 'devTestWalletPay',
  summary: "The checkout page's \"Pay with a test wallet\" (not in production)",
  tags: ['Development'],
  auth: 'none',
  params: z.object({ id: PaymentId }),
  devOnly: true,
  responses: settleResponses,
});

/**
 * True when the dev-only routes exist: never in production, only when test mode's chain is
 * embedded (the embedded chain alone, or the anvil started for test mode beside a real network).
 */
export function devRoutesEnabled(deps: Pick<Core, 'forMode'>): boolean {
  return deps.forMode(false).wallets.devTools;
}

/**
 * Dev-only routes (not mounted in production, so they 404 there): the stablecoin faucet and
 * the checkout page's "Pay with a test wallet".
 */
export function devRouter(deps: Core): Router {
  const r = Router();

  r.post('/dev/faucet', async (req, res) => {
    const input = parseInput(FaucetInput, req.body);
    // Test money only: on test mode's chain (the same chain as live when it is the embedded one).
    const wallets = deps.forMode(false).wallets;
    const amount = parseUnits(input.amount, wallets.decimals);
    const funded = await wallets.faucet(input.address, amount);
    if (!funded.ok) throw new ApiError(503, 'api_error', funded.message);
    res.json({
      ok: true,
      address: input.address,
      amount: input.amount,
      amount_base_units: amount.toString(),
      mint_tx_hash: funded.mintTxHash,
      gas_tx_hash: funded.gasTxHash ?? null,
    });
  });

  // Called by the checkout page: answers in the checkout shape, like /checkout/:id/settle.
  r.use('/dev/test-wallet-pay', useErrorShape('checkout'));
  r.post('/dev/test-wallet-pay/:id', async (req, res) => {
    const id = String(req.params.id);
    res.locals.paymentId = id;
    await sendSettleResult(deps, res, await deps.checkoutSessions.pay(id, { method: 'test-wallet' }));
  });
  return r;
}
