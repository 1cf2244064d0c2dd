/**
 * Wire shapes of the x402 `auth-capture` scheme on EVM (scheme_auth_capture_evm.md): the
 * requirements' `extra`, the client's EIP-3009 collect payload and the server-authored lifecycle
 * payloads (`payload.type` = capture, void, refund). Numbers stay as the wire has them; the
 * checks (checks.ts) compare them.
 */
import { z } from 'zod';
import { Bytes32, EvmAddress, SignatureHex, TransferAuthorization } from '../../chain/authorization.js';

const Uint = z.string().regex(/^\d{1,78}$/, 'must be an integer in atomic units').transform((s) => BigInt(s));
const Uint48 = z.number().int().nonnegative().max(2 ** 48 - 1);
const Bps = z.number().int().min(0).max(10_000);

export const AuthCaptureExtra = z.object({
  name: z.string().min(1),
  version: z.string().min(1),
  authCaptureEscrow: EvmAddress.optional(),
  captureAuthorizer: EvmAddress,
  receiverAuthorizer: EvmAddress.optional(),
  policy: EvmAddress.optional(),
  paymentFlow: z.string().optional(),
  captureMode: z.string().optional(),
  operatorType: z.string().optional(),
  captureDeadline: Uint48,
  refundDeadline: Uint48,
  feeRecipient: EvmAddress,
  minFeeBps: Bps,
  maxFeeBps: Bps,
  assetTransferMethod: z.string().optional(),
  autoCapture: z.boolean().optional(),
});
export type AuthCaptureExtra = z.infer<typeof AuthCaptureExtra>;

/** The client's payload (EIP-3009): one ReceiveWithAuthorization, `salt`, and `saltNonce` when bound. */
export const CollectPayload = z
  .object({
    authorization: TransferAuthorization,
    signature: SignatureHex,
    salt: Bytes32,
    saltNonce: Bytes32.optional(),
  })
  .strict();
export type CollectPayload = z.infer<typeof CollectPayload>;

export const PaymentInfoWire = z.object({
  operator: EvmAddress,
  payer: EvmAddress,
  receiver: EvmAddress,
  token: EvmAddress,
  maxAmount: Uint,
  preApprovalExpiry: Uint48,
  authorizationExpiry: Uint48,
  refundExpiry: Uint48,
  minFeeBps: Bps,
  maxFeeBps: Bps,
  feeReceiver: EvmAddress,
  salt: Bytes32,
});
export type PaymentInfo = z.infer<typeof PaymentInfoWire>;

const Lifecycle = { paymentInfo: PaymentInfoWire, saltNonce: Bytes32, authorizerSignature: SignatureHex.optional() };

/** v1.0 escrow pin: the submitted fee is `feeBps` (uint16); `feeAmount` is the v1.1 field. */
export const CapturePayload = z
  .object({
    type: z.literal('capture'),
    ...Lifecycle,
    amount: Uint,
    feeBps: Bps.optional(),
    feeAmount: z.string().optional(),
    feeReceiver: EvmAddress,
    expectedCapturableAmount: Uint,
    expectedRefundableAmount: Uint,
    voidAuthorizerSignature: SignatureHex.optional(),
  })
  .strict();
export const VoidPayload = z.object({ type: z.literal('void'), ...Lifecycle }).strict();
export const RefundPayload = z
  .object({ type: z.literal('refund'), ...Lifecycle, amount: Uint, expectedCapturableAmount: Uint, expectedRefundableAmount: Uint })
  .strict();
export type CapturePayload = z.infer<typeof CapturePayload>;
export type VoidPayload = z.infer<typeof VoidPayload>;
export type RefundPayload = z.infer<typeof RefundPayload>;
export type LifecyclePayload = CapturePayload | VoidPayload | RefundPayload;
export const LIFECYCLE_TYPES = ['capture', 'void', 'refund'] as const;

/** The JSON (wire) form of a PaymentInfo: what a lifecycle payload carries. */
export function paymentInfoToWire(i: PaymentInfo): Record<string, unknown> {
  return { ...i, maxAmount: i.maxAmount.toString() };
}
