/**
 * The checks of the `auth-capture` binding that need no chain (scheme_auth_capture_evm.md,
 * "Verification"), in the binding's order: for the client's collect payload steps 1-10, 12, 13;
 * for a lifecycle payload the scheme/network/extra/operator steps and 1-3, 5. What needs the chain
 * (signatures by contract wallets, balances, escrow state, simulation) is in scheme.ts.
 *
 * This facilitator's scope, where the binding lets a facilitator choose (docs/x402.md):
 * `operatorType: "delegated"` only, the operator being our relayer; the v1.0 commerce-payments
 * deployment (the one on our chains), so `extra.authCaptureEscrow` must name it; the `escrow`
 * payment flow; EIP-3009 collection; no facilitator fee (`minFeeBps == maxFeeBps == 0`).
 */
import { isAddressEqual, type Address, type Hex } from 'viem';
import { X402_VERSION } from '../exact-evm.js';
import type { FacilitatorRequest } from '../x402-schemas.js';
import { AuthCaptureReason as R, type AuthCaptureReason } from './auth-capture-reasons.js';
import { AuthCaptureExtra, CapturePayload, CollectPayload, LIFECYCLE_TYPES, RefundPayload, VoidPayload, type LifecyclePayload, type PaymentInfo } from './auth-capture-schemas.js';
import { bindOn, boundSalt, isZero, paymentInfoFromCollect, paymentInfoHash, signatureNonce } from './payment-info.js';

export const AUTH_CAPTURE_SCHEME = 'auth-capture';
/** As the binding's floor: a deadline within 6 s cannot be met by a transaction. */
export const SKEW_SECONDS = 6;

export interface AuthCaptureTerms {
  chainId: number;
  tokenAddress: Address;
  eip712Domain: { name: string; version: string };
  /** Our submitter: the only `captureAuthorizer` admitted (delegated), also our receiver authorizer. */
  operator: Address;
  escrow: Address;
  eip3009Collector: Address;
  /** The deployment's OperatorRefundCollector: the escrow's `refund` pulls from the operator through it. */
  operatorRefundCollector: Address;
}

export type Refusal = { ok: false; reason: AuthCaptureReason | 'invalid_payment_requirements' | 'invalid_x402_version'; message: string; payer?: Address };
export type Checked<T> = ({ ok: true } & T) | Refusal;

const no = (reason: Refusal['reason'], message: string, payer?: Address): Refusal => (payer ? { ok: false, reason, message, payer } : { ok: false, reason, message });

export interface CommonChecked {
  extra: AuthCaptureExtra;
  payTo: Address;
  asset: Address;
  amount: bigint;
  maxTimeoutSeconds: number;
}

/** Steps 2-6 (both kinds of payload): scheme, network, extra, operator, method. */
function common(t: AuthCaptureTerms, req: FacilitatorRequest): Checked<CommonChecked> {
  const { paymentPayload: pp, paymentRequirements: pr } = req;
  if (pp.x402Version !== X402_VERSION) return no('invalid_x402_version', `only x402Version ${X402_VERSION} is supported`);
  if (pr.scheme !== AUTH_CAPTURE_SCHEME || pp.accepted.scheme !== AUTH_CAPTURE_SCHEME) return no(R.scheme, 'scheme must be "auth-capture"');
  const network = `eip155:${t.chainId}`;
  if (!/^eip155:\d+$/.test(pr.network)) return no(R.invalidNetwork, 'network must be eip155:<chainId>');
  if (pr.network !== network) return no(R.invalidNetwork, `this facilitator settles on ${network}`);
  if (pp.accepted.network !== pr.network) return no(R.networkMismatch, 'the payload was made for another network');
  if (!/^0x[0-9a-fA-F]{40}$/.test(pr.asset) || !isAddressEqual(pr.asset as Address, t.tokenAddress)) {
    return no('invalid_payment_requirements', `asset must be the stablecoin ${t.tokenAddress}`);
  }
  if (!/^0x[0-9a-fA-F]{40}$/.test(pr.payTo)) return no('invalid_payment_requirements', 'payTo must be a 0x address');
  const parsed = AuthCaptureExtra.safeParse(pr.extra ?? {});
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return no(R.extra, `extra.${i?.path.join('.') ?? ''}: ${i?.message ?? 'invalid'}`);
  }
  const extra = parsed.data;
  if (extra.name !== t.eip712Domain.name || extra.version !== t.eip712Domain.version) {
    return no(R.extra, `extra.name and extra.version must be the token's EIP-712 domain ("${t.eip712Domain.name}", "${t.eip712Domain.version}")`);
  }
  // Omitted selects v1.1, which this chain does not have; a server must write the v1.0 escrow out.
  if (!extra.authCaptureEscrow || !isAddressEqual(extra.authCaptureEscrow, t.escrow)) {
    return no(R.extra, `extra.authCaptureEscrow must be the commerce-payments v1.0 escrow ${t.escrow} (the deployment on this chain)`);
  }
  if (extra.autoCapture === true) return no(R.unsupportedPaymentFlow, 'extra.autoCapture was removed; use paymentFlow');
  const flow = extra.paymentFlow ?? 'escrow';
  if (flow !== 'escrow') {
    return no(R.unsupportedPaymentFlow, flow === 'authorization' ? 'this facilitator relays the "escrow" flow only (no charge)' : `unknown paymentFlow "${flow}"`);
  }
  if (extra.minFeeBps !== 0 || extra.maxFeeBps !== 0) return no(R.extra, 'this facilitator takes no fee: minFeeBps and maxFeeBps must be 0');
  // Operator (step 5): delegated to us, or nothing.
  const type = extra.operatorType ?? 'delegated';
  if (type === 'custom') return no(R.operatorNotAdmitted, 'this facilitator admits no custom operator (its allowlist is empty)');
  if (type !== 'delegated') return no(R.unsupportedOperatorType, `operatorType "${type}" is not implemented here`);
  if (!isAddressEqual(extra.captureAuthorizer, t.operator)) return no(R.operatorNotAdmitted, `captureAuthorizer must be this facilitator's submitter ${t.operator}`);
  if (!isZero(extra.policy)) return no(R.policy, 'policy must be absent or zero for a delegated operator');
  const method = extra.assetTransferMethod ?? 'eip3009';
  if (method === 'permit2') return no(R.unsupportedAssetTransferMethod, 'this facilitator collects with eip3009 only');
  if (method !== 'eip3009') return no(R.unsupportedAssetTransferMethod, 'assetTransferMethod must be "eip3009" or "permit2"');
  return { ok: true, extra, payTo: pr.payTo as Address, asset: t.tokenAddress, amount: BigInt(pr.amount), maxTimeoutSeconds: pr.maxTimeoutSeconds };
}

export interface CollectChecked extends CommonChecked {
  payload: CollectPayload;
  info: PaymentInfo;
  hash: Hex;
  payer: Address;
}

export function isLifecycle(req: FacilitatorRequest): boolean {
  return 'type' in req.paymentPayload.payload;
}

/** The client's collect payload (`authorize`), steps 1-10, 12, 13. */
export function checkCollect(t: AuthCaptureTerms, req: FacilitatorRequest, now = Math.floor(Date.now() / 1000)): Checked<CollectChecked> {
  const raw = req.paymentPayload.payload as { authorization?: { from?: unknown }; permit2Authorization?: unknown };
  const claimed = typeof raw.authorization?.from === 'string' && /^0x[0-9a-fA-F]{40}$/.test(raw.authorization.from) ? (raw.authorization.from as Address) : undefined;
  const c = common(t, req);
  if (!c.ok) return claimed ? { ...c, payer: claimed } : c;
  if (raw.permit2Authorization !== undefined) return no(R.payloadMethodMismatch, 'a Permit2 payload for an eip3009 route', claimed);
  const parsed = CollectPayload.safeParse(req.paymentPayload.payload);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    return no(R.payloadFormat, `payload.${i?.path.join('.') ?? ''}: ${i?.message ?? 'invalid'}`, claimed);
  }
  const p = parsed.data;
  const payer = p.authorization.from;
  const bound = bindOn(c.extra);
  if (bound !== (p.saltNonce !== undefined)) return no(R.payloadFormat, bound ? 'saltNonce is required when receiverAuthorizer is set' : 'saltNonce must be absent when unbound', payer);
  const { captureDeadline, refundDeadline } = c.extra;
  const validBefore = Number(p.authorization.validBefore);
  if (refundDeadline < captureDeadline || now + c.maxTimeoutSeconds > captureDeadline || validBefore > captureDeadline) {
    return no(R.deadlineOrdering, 'deadlines must satisfy now + maxTimeoutSeconds <= captureDeadline <= refundDeadline, validBefore <= captureDeadline', payer);
  }
  if (captureDeadline <= now + SKEW_SECONDS) return no(R.captureDeadlineExpired, 'captureDeadline has passed', payer);
  if (validBefore <= now + SKEW_SECONDS) return no(R.authorizationExpired, 'the authorization has expired (validBefore)', payer);
  if (p.authorization.validAfter > BigInt(now)) return no(R.authorizationNotYetValid, 'the authorization is not valid yet (validAfter)', payer);
  if (!isAddressEqual(p.authorization.to, t.eip3009Collector)) return no(R.tokenCollectorMismatch, `authorization.to must be the ERC-3009 collector ${t.eip3009Collector}`, payer);
  if (p.authorization.value !== c.amount) return no(R.amountMismatch, `authorization.value must be ${c.amount}`, payer);
  const info = paymentInfoFromCollect(c, c.extra, p);
  if (signatureNonce(t.chainId, t.escrow, info) !== p.authorization.nonce) return no(R.nonceMismatch, 'the nonce is not the payment\'s signatureNonce', payer);
  if (bound && boundSalt(c.extra.receiverAuthorizer ?? ZERO, c.extra.policy ?? ZERO, p.saltNonce!) !== p.salt) return no(R.saltBindingMismatch, 'salt is not the commitment of saltNonce', payer);
  return { ...c, ok: true, payload: p, info, hash: paymentInfoHash(t.chainId, t.escrow, info), payer };
}

const ZERO = '0x0000000000000000000000000000000000000000' as Address;

export interface LifecycleChecked extends CommonChecked {
  payload: LifecyclePayload;
  info: PaymentInfo;
  hash: Hex;
  payer: Address;
}

/** A lifecycle payload: common checks, then operator match, salt binding and requirements match. */
export function checkLifecycle(t: AuthCaptureTerms, req: FacilitatorRequest): Checked<LifecycleChecked> {
  const c = common(t, req);
  if (!c.ok) return c;
  if (isZero(c.extra.receiverAuthorizer)) return no(R.lifecycleNotRelayed, 'a delegated operator without receiverAuthorizer is authorize-only: lifecycle runs out of band');
  const type = (req.paymentPayload.payload as { type?: unknown }).type;
  if (!LIFECYCLE_TYPES.includes(type as never)) return no(R.payloadType, 'payload.type must be "capture", "void" or "refund"');
  const schema = type === 'capture' ? CapturePayload : type === 'void' ? VoidPayload : RefundPayload;
  const parsed = schema.safeParse(req.paymentPayload.payload);
  if (!parsed.success) {
    const i = parsed.error.issues[0];
    const voidSig = i?.path[0] === 'voidAuthorizerSignature';
    return no(voidSig ? R.voidAuthorizerSignature : R.payloadFormat, `payload.${i?.path.join('.') ?? ''}: ${i?.message ?? 'invalid'}`);
  }
  const p = parsed.data as LifecyclePayload;
  if (p.type === 'capture' && (p.feeAmount !== undefined || p.feeBps === undefined)) return no(R.payloadFormat, 'a capture on the v1.0 escrow carries feeBps, not feeAmount');
  const i = p.paymentInfo;
  if (!isAddressEqual(i.operator, c.extra.captureAuthorizer)) return no(R.operatorMismatch, 'paymentInfo.operator is not extra.captureAuthorizer', i.payer);
  if (boundSalt(c.extra.receiverAuthorizer!, c.extra.policy ?? ZERO, p.saltNonce) !== i.salt) return no(R.saltBindingMismatch, 'paymentInfo.salt is not the commitment of saltNonce', i.payer);
  const matches =
    isAddressEqual(i.receiver, c.payTo) && isAddressEqual(i.token, c.asset) && i.maxAmount === c.amount &&
    i.authorizationExpiry === c.extra.captureDeadline && i.refundExpiry === c.extra.refundDeadline &&
    i.minFeeBps === c.extra.minFeeBps && i.maxFeeBps === c.extra.maxFeeBps && isAddressEqual(i.feeReceiver, c.extra.feeRecipient);
  if (!matches) return no('invalid_payment_requirements', 'paymentInfo does not match the payment requirements', i.payer);
  return { ...c, ok: true, payload: p, info: i, hash: paymentInfoHash(t.chainId, t.escrow, i), payer: i.payer };
}
