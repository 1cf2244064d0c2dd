/**
 * MPP (the Machine Payments Protocol, `Payment` HTTP authentication) beside x402 on a session's
 * x402_url, built with `mppx/server`'s EVM `charge` method for our stablecoin and chain: the 402
 * carries `WWW-Authenticate: Payment ...` beside `PAYMENT-REQUIRED`, and a request with
 * `Authorization: Payment <credential>` is verified by our x402 facilitator and settled by the
 * session's settlement core (the one the x402 path and the hosted page use: one settle per
 * payment, `payment.settled`, tx hash), answered 200 with `Payment-Receipt`. The mppx
 * authorization nonce is the challenge hash, so a retried credential is the same authorization:
 * settled once, answered with the same transaction.
 */
import { randomBytes } from 'node:crypto';
import type { Request as ExpressRequest } from 'express';
import { formatUnits, isAddressEqual, type Address, type Hex } from 'viem';
import { Mppx } from 'mppx/server';
import { charge } from 'mppx/evm/server';
import type { Core } from '../core/core.js';
import type { Payment } from '../payments/payments.js';
import { networkOf } from '../x402/exact-evm.js';
import { X402Reason } from '../x402/x402-reasons.js';
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '../x402/x402-schemas.js';
import { X402Refusal } from '../checkout-sessions/methods/x402.js';

/** The token's decimals (USDC-style, 6): `amount` in an MPP challenge is in display units. */
const DECIMALS = 6;

const processKey = randomBytes(32).toString('base64');

export interface MppTerms {
  payment: Payment;
  payTo: Address;
  /** Seconds the authorization may run: the x402 window of the same session. */
  windowSeconds: number;
  description: string;
}

/** Is this request an MPP one (`Authorization: Payment ...`)? */
export function isMppRequest(req: ExpressRequest): boolean {
  return /^Payment\s/i.test(req.get('authorization') ?? '');
}

/** A Fetch Request for mppx from an Express one (GET: headers only). */
function fetchRequest(req: ExpressRequest, publicUrl: string): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
  return new Request(`${publicUrl}${req.originalUrl}`, { method: req.method, headers });
}

/**
 * The mppx handler of one session. Its facilitator is ours: `verify` is the x402 facilitator's
 * own check (signature, nonce, balance, simulation), except that the authorization already
 * settling or settled for this session is valid (a retry); `settle` is the settlement core.
 */
function handlerFor(deps: Core, t: MppTerms) {
  const p = t.payment;
  const port = deps.forMode(p.livemode !== false).x402Port;
  const settled = async (auth: { from: string; nonce: string }): Promise<Payment | undefined> => {
    const now = await deps.payments.get(p.id);
    const same = now?.payer && isAddressEqual(now.payer as Address, auth.from as Address) && now.authNonce?.toLowerCase() === auth.nonce.toLowerCase();
    return same && (now.status === 'settled' || now.status === 'processing') ? now : undefined;
  };
  const facilitator = {
    async verify(paymentPayload: unknown, paymentRequirements: unknown): Promise<VerifyResponse> {
      const auth = (paymentPayload as { payload: { authorization: { from: string; nonce: string } } }).payload.authorization;
      if (await settled(auth)) return { isValid: true, payer: auth.from };
      return deps.forMode(p.livemode !== false).facilitator.verify(p.accountId, { x402Version: 2, paymentPayload: paymentPayload as never, paymentRequirements: paymentRequirements as PaymentRequirements });
    },
    async settle(paymentPayload: unknown): Promise<SettleResponse> {
      const network = networkOf(port);
      // The x402 adapter (src/checkout-sessions/methods/x402.ts): mppx verified it through our facilitator above.
      const result = await deps.checkoutSessions.pay(p.id, { method: 'x402', payload: paymentPayload as PaymentPayload, checkedBy: 'mpp' });
      if (!result.ok) {
        const errorReason = result.reason === X402Refusal.paymentRequired ? result.message : result.reason;
        return { success: false, errorReason, ...(errorReason === result.message ? {} : { errorMessage: result.message }), transaction: '', network };
      }
      const done = result.payment.status === 'settled';
      return {
        success: done,
        ...(done ? {} : { errorReason: X402Reason.settlementPending, errorMessage: 'Sent; the receipt is not in yet: send the same credential again.' }),
        payer: result.payment.payer ?? '',
        transaction: (result.txHash as Hex | undefined) ?? '',
        network,
      };
    },
  };
  const mppx = Mppx.create({
    methods: [
      charge({
        currency: port.tokenAddress,
        chainId: port.chainId,
        decimals: DECIMALS,
        recipient: t.payTo,
        authorization: { name: port.eip712Domain.name, version: port.eip712Domain.version },
        x402: { facilitator: facilitator as never, maxTimeoutSeconds: t.windowSeconds },
      }),
    ],
    secretKey: deps.config.MPP_SECRET_KEY ?? processKey,
    realm: new URL(deps.config.PUBLIC_URL).host,
  });
  return mppx.charge({
    amount: formatUnits(BigInt(p.stablecoinAmount), DECIMALS),
    description: t.description.slice(0, 300),
    externalId: p.id,
    // Pinned into the challenge (opaque): a credential for another session, even one with the same
    // amount and recipient, does not match this route.
    scope: `payment:${p.id}`,
    expires: new Date(Date.now() + t.windowSeconds * 1000).toISOString(),
  });
}

/** The `WWW-Authenticate: Payment ...` challenge of a session (to go beside PAYMENT-REQUIRED). */
export async function mppChallenge(deps: Core, req: ExpressRequest, t: MppTerms): Promise<string | undefined> {
  const r = await handlerFor(deps, t)(fetchRequest(req, deps.config.PUBLIC_URL));
  return r.status === 402 ? (r.challenge.headers.get('www-authenticate') ?? undefined) : undefined;
}

export interface MppAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * Handles `Authorization: Payment`: 402 with a fresh challenge (and mppx's problem body) when
 * the credential does not pay; 200 with `Payment-Receipt` and `ok` once settled.
 */
export async function mppPay(deps: Core, req: ExpressRequest, t: MppTerms): Promise<MppAnswer> {
  const r = await handlerFor(deps, t)(fetchRequest(req, deps.config.PUBLIC_URL));
  if (r.status === 402) {
    const res = r.challenge;
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* keep text */
    }
    const headers: Record<string, string> = {};
    for (const h of ['www-authenticate', 'content-type']) {
      const v = res.headers.get(h);
      if (v) headers[h] = v;
    }
    return { status: 402, headers, body };
  }
  const now = await deps.payments.get(t.payment.id);
  const body = { ok: true, id: t.payment.id, status: now?.status ?? 'settled', tx_hash: now?.txHash ?? null };
  const res = r.withReceipt(Response.json(body));
  const headers: Record<string, string> = {};
  const receipt = res.headers.get('payment-receipt');
  if (receipt) headers['Payment-Receipt'] = receipt;
  return { status: 200, headers, body };
}
