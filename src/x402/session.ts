/**
 * x402 for hosted payment sessions: the payment requirements of one session (its exact amount,
 * its pay_to, an authorization window that closes no later than the session) and the header
 * codecs of the x402 v2 HTTP transport (`PAYMENT-REQUIRED`, `PAYMENT-SIGNATURE`, `PAYMENT-RESPONSE`:
 * base64 of the JSON message).
 */
import type { Address } from 'viem';
import { EXACT_SCHEME, X402_VERSION, networkOf, type ExactEvmPort } from './exact-evm.js';
import { PaymentPayload, type PaymentRequirements, type SettleResponse } from './x402-schemas.js';

/** The longest window an x402 client is asked to sign for (the client adds it to its clock). */
const MAX_WINDOW_SECONDS = 600;
/** Room for the client's clock running ahead of ours: its validBefore must not pass the session. */
const CLOCK_ROOM_SECONDS = 30;
/** Below this the window is too short to sign, send and mine: the session counts as expiring. */
const MIN_WINDOW_SECONDS = 15;

export interface SessionTerms {
  payTo: Address;
  /** Stablecoin base units. */
  amount: bigint;
  expiresAt: string;
}

/** The `x402_url` of a payment: the payment id is the capability, as for the checkout page. */
export function x402UrlFor(publicUrl: string, paymentId: string): string {
  return `${publicUrl}/api/checkout/${paymentId}/x402`;
}

/** The session's requirements, or undefined when it closes too soon to be paid. */
export function sessionRequirements(
  port: Pick<ExactEvmPort, 'chainId' | 'tokenAddress' | 'eip712Domain'>,
  terms: SessionTerms,
  nowMs = Date.now(),
): PaymentRequirements | undefined {
  const left = Math.floor((Date.parse(terms.expiresAt) - nowMs) / 1000) - CLOCK_ROOM_SECONDS;
  const window = Math.min(MAX_WINDOW_SECONDS, left);
  if (window < MIN_WINDOW_SECONDS) return undefined;
  return {
    scheme: EXACT_SCHEME,
    network: networkOf(port),
    amount: terms.amount.toString(),
    asset: port.tokenAddress,
    payTo: terms.payTo,
    maxTimeoutSeconds: window,
    extra: { name: port.eip712Domain.name, version: port.eip712Domain.version },
  };
}

export interface PaymentRequiredMessage {
  x402Version: number;
  error?: string;
  resource: { url: string; description?: string; mimeType?: string };
  accepts: PaymentRequirements[];
  extensions?: Record<string, unknown>;
}

export function paymentRequired(url: string, description: string, accepts: PaymentRequirements[], error?: string, extensions?: Record<string, unknown>): PaymentRequiredMessage {
  return {
    x402Version: X402_VERSION,
    ...(error ? { error } : {}),
    resource: { url, description, mimeType: 'application/json' },
    accepts,
    ...(extensions ? { extensions } : {}),
  };
}

export function encodeHeader(message: PaymentRequiredMessage | SettleResponse): string {
  return Buffer.from(JSON.stringify(message), 'utf8').toString('base64');
}

/** A `PAYMENT-SIGNATURE` header: base64 JSON of a PaymentPayload, or undefined when it is not one. */
export function decodePaymentSignature(header: string): PaymentPayload | undefined {
  if (header.length > 20_000) return undefined;
  try {
    const parsed = PaymentPayload.safeParse(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
