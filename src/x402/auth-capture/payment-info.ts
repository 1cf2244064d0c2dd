/**
 * The payment's identity (scheme_auth_capture_evm.md, "Payment identity"): the escrow's
 * PaymentInfo struct rebuilt from the requirements and the client's payload, its two hashes
 * (the payer-agnostic `signatureNonce` the client signs, the escrow's `paymentInfoHash`), the
 * salt binding, and the EIP-712 digests of the receiver authorizer's consent. Pure.
 */
import { encodeAbiParameters, keccak256, toBytes, zeroAddress, type Address, type Hex } from 'viem';
import type { AuthCaptureExtra, CollectPayload, PaymentInfo } from './auth-capture-schemas.js';

export const PAYMENT_INFO_TYPEHASH = keccak256(
  toBytes(
    'PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)',
  ),
);
export const SALT_BINDING_TYPEHASH = keccak256(toBytes('x402AuthCaptureSaltBinding(address receiverAuthorizer,address policy,uint256 saltNonce)'));

function structHash(i: PaymentInfo, payer: Address): Hex {
  return keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' }, { type: 'address' }, { type: 'address' }, { type: 'address' }, { type: 'address' },
        { type: 'uint120' }, { type: 'uint48' }, { type: 'uint48' }, { type: 'uint48' },
        { type: 'uint16' }, { type: 'uint16' }, { type: 'address' }, { type: 'uint256' },
      ],
      [
        PAYMENT_INFO_TYPEHASH, i.operator, payer, i.receiver, i.token, i.maxAmount, i.preApprovalExpiry, i.authorizationExpiry,
        i.refundExpiry, i.minFeeBps, i.maxFeeBps, i.feeReceiver, BigInt(i.salt),
      ],
    ),
  );
}

function scoped(chainId: number, escrow: Address, inner: Hex): Hex {
  return keccak256(encodeAbiParameters([{ type: 'uint256' }, { type: 'address' }, { type: 'bytes32' }], [BigInt(chainId), escrow, inner]));
}

/** What the client's token authorization carries as its nonce (payer zeroed). */
export function signatureNonce(chainId: number, escrow: Address, i: PaymentInfo): Hex {
  return scoped(chainId, escrow, structHash(i, zeroAddress));
}

/** `AuthCaptureEscrow.getHash(paymentInfo)`: the escrow's key for the payment. */
export function paymentInfoHash(chainId: number, escrow: Address, i: PaymentInfo): Hex {
  return scoped(chainId, escrow, structHash(i, i.payer));
}

export function boundSalt(receiverAuthorizer: Address, policy: Address, saltNonce: Hex): Hex {
  return keccak256(
    encodeAbiParameters([{ type: 'bytes32' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }], [SALT_BINDING_TYPEHASH, receiverAuthorizer, policy, BigInt(saltNonce)]),
  );
}

export const isZero = (a: Address | undefined): boolean => !a || a.toLowerCase() === zeroAddress;

/** Bind on: a non-zero receiver authorizer or policy. */
export function bindOn(extra: AuthCaptureExtra): boolean {
  return !isZero(extra.receiverAuthorizer) || !isZero(extra.policy);
}

/** PaymentInfo as the appendix derives it from the requirements and a collect payload. */
export function paymentInfoFromCollect(r: { payTo: Address; asset: Address; amount: bigint }, extra: AuthCaptureExtra, p: CollectPayload): PaymentInfo {
  return {
    operator: extra.captureAuthorizer,
    payer: p.authorization.from,
    receiver: r.payTo,
    token: r.asset,
    maxAmount: r.amount,
    preApprovalExpiry: Number(p.authorization.validBefore),
    authorizationExpiry: extra.captureDeadline,
    refundExpiry: extra.refundDeadline,
    minFeeBps: extra.minFeeBps,
    maxFeeBps: extra.maxFeeBps,
    feeReceiver: extra.feeRecipient,
    salt: p.salt,
  };
}

/** The viem argument form of the struct (the escrow ABI's tuple). */
export function infoArg(i: PaymentInfo) {
  return { ...i, salt: BigInt(i.salt) };
}

// ------------------------------------------------------------------ receiver authorizer's consent

export function operatorDomain(chainId: number, captureAuthorizer: Address) {
  return { name: 'x402 Auth Capture Operator', version: '1', chainId, verifyingContract: captureAuthorizer } as const;
}

/** The v1.0-pin types: `Capture` takes `uint16 feeBps` (the escrow v1.0 argument). */
export const AUTHORIZER_TYPES = {
  Capture: [
    { name: 'paymentInfoHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'feeBps', type: 'uint16' },
    { name: 'feeReceiver', type: 'address' },
    { name: 'expectedCapturableAmount', type: 'uint256' },
    { name: 'expectedRefundableAmount', type: 'uint256' },
  ],
  Void: [{ name: 'paymentInfoHash', type: 'bytes32' }],
  Refund: [
    { name: 'paymentInfoHash', type: 'bytes32' },
    { name: 'amount', type: 'uint256' },
    { name: 'tokenCollector', type: 'address' },
    { name: 'expectedCapturableAmount', type: 'uint256' },
    { name: 'expectedRefundableAmount', type: 'uint256' },
  ],
} as const;

export type AuthorizerMessage =
  | { primaryType: 'Capture'; message: { paymentInfoHash: Hex; amount: bigint; feeBps: number; feeReceiver: Address; expectedCapturableAmount: bigint; expectedRefundableAmount: bigint } }
  | { primaryType: 'Void'; message: { paymentInfoHash: Hex } }
  | { primaryType: 'Refund'; message: { paymentInfoHash: Hex; amount: bigint; tokenCollector: Address; expectedCapturableAmount: bigint; expectedRefundableAmount: bigint } };

export function authorizerTypedData(chainId: number, captureAuthorizer: Address, m: AuthorizerMessage) {
  return { domain: operatorDomain(chainId, captureAuthorizer), types: { [m.primaryType]: AUTHORIZER_TYPES[m.primaryType] }, primaryType: m.primaryType, message: m.message };
}
