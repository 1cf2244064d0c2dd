/**
 * x402 v2 messages (specification sections 5 and 7) as zod schemas: the facilitator's request
 * validation, its response shapes and the OpenAPI document all come from these.
 */
import { z } from 'zod';
import { SignatureHex, TransferAuthorization } from '../chain/authorization.js';

/** CAIP-2, e.g. `eip155:31337`. */
export const Caip2Network = z.string().regex(/^[-a-z0-9]{3,8}:[-_a-zA-Z0-9]{1,32}$/, 'must be a CAIP-2 network id such as eip155:8453');

export const ResourceInfo = z.object({
  url: z.string().max(2048),
  description: z.string().max(1000).optional(),
  mimeType: z.string().max(200).optional(),
});

export const PaymentRequirements = z.object({
  scheme: z.string().min(1).max(64),
  network: Caip2Network,
  /** Atomic token units, a decimal string. */
  amount: z.string().regex(/^\d{1,78}$/, 'must be an integer amount in atomic units'),
  asset: z.string().min(1).max(128),
  payTo: z.string().min(1).max(128),
  maxTimeoutSeconds: z.number().int().nonnegative(),
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type PaymentRequirements = z.infer<typeof PaymentRequirements>;

export const PaymentPayload = z.object({
  x402Version: z.number().int(),
  resource: ResourceInfo.optional(),
  accepted: PaymentRequirements,
  payload: z.record(z.string(), z.unknown()),
  extensions: z.record(z.string(), z.unknown()).optional(),
});
export type PaymentPayload = z.infer<typeof PaymentPayload>;

/** `payload` of the exact scheme on EVM with the EIP-3009 transfer method. */
export const ExactEvmPayload = z.object({
  signature: SignatureHex,
  authorization: TransferAuthorization,
});
export type ExactEvmPayload = z.infer<typeof ExactEvmPayload>;

/** Body of `POST /verify` and `POST /settle` (the same request). */
export const FacilitatorRequest = z.object({
  x402Version: z.number().int().optional(),
  paymentPayload: PaymentPayload,
  paymentRequirements: PaymentRequirements,
});
export type FacilitatorRequest = z.infer<typeof FacilitatorRequest>;

export const VerifyResponse = z.object({
  isValid: z.boolean(),
  invalidReason: z.string().optional(),
  invalidMessage: z.string().optional(),
  payer: z.string().optional(),
});
export type VerifyResponse = z.infer<typeof VerifyResponse>;

export const SettleResponse = z.object({
  success: z.boolean(),
  errorReason: z.string().optional(),
  errorMessage: z.string().optional(),
  payer: z.string().optional(),
  /** The transaction hash; empty when nothing was sent. */
  transaction: z.string(),
  network: z.string(),
  // auth-capture only (the binding's "Return"): the step, the escrow's key for the payment, the amount it settled.
  operation: z.enum(['authorize', 'capture', 'void', 'refund']).optional().describe('auth-capture: the step this settle ran.'),
  paymentInfoHash: z.string().optional().describe("auth-capture: the escrow's paymentInfoHash of the payment."),
  amount: z.string().optional().describe('auth-capture: the amount settled in atomic units (authorize: the hold; capture: the amount captured; void: what was released).'),
});
export type SettleResponse = z.infer<typeof SettleResponse>;

export const SupportedKind = z.object({
  x402Version: z.number().int(),
  scheme: z.string(),
  network: z.string(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export const SupportedResponse = z.object({
  kinds: z.array(SupportedKind),
  extensions: z.array(z.string()),
  signers: z.record(z.string(), z.array(z.string())),
});
export type SupportedResponse = z.infer<typeof SupportedResponse>;

/** What a merchant's facilitator use cost in gas (paid by our relayer). */
export const X402Usage = z.object({
  object: z.literal('x402_usage'),
  network: z.string(),
  settlements: z.number().int().describe('Settles that moved money for this account.'),
  gas_used: z.string().describe('Total gas units of those transactions (decimal string).'),
  gas_cost_wei: z.string().describe('Total gas cost in wei of the native currency, paid by the relayer (decimal string).'),
  recent: z.array(
    z.object({
      id: z.string(),
      transaction: z.string(),
      payer: z.string(),
      pay_to: z.string(),
      amount: z.string(),
      gas_used: z.string(),
      gas_cost_wei: z.string(),
      created_at: z.string(),
    }),
  ),
});
export type X402Usage = z.infer<typeof X402Usage>;
