/**
 * The one vocabulary of why a payment or an on-chain move did not go through (issue 22,
 * point 3): the chain's verify and submit answers, the relay outcome, a custodial move's
 * failure and checkout settlement's refusals are all subsets of `PaymentReason`, so a reason
 * keeps one name from the node to the door. Only the doors translate it, each with one table:
 * HTTP status in src/http/settle-answer.ts (`SETTLE_STATUS`), chat words in
 * src/agent/local/failure-replies-i18n.ts. x402 answers its own specification's names
 * (src/x402/x402-reasons.ts), mapped once in src/x402/exact-evm.ts.
 *
 * The strings are wire values (the settle answer's `reason`, interface document 4.3): never
 * rename one.
 */

export const PaymentReason = {
  // -- the chain: verification of an EIP-3009 authorization, and its submit
  /** The signature does not recover to `authorization.from`. */
  invalidSignature: 'invalid_signature',
  /** The (authorizer, nonce) pair was used or canceled on chain. */
  authorizationUsed: 'authorization_used',
  insufficientBalance: 'insufficient_balance',
  notYetValid: 'not_yet_valid',
  /** The authorization (or the payment session) has expired. */
  expired: 'expired',
  /** The chain rejected the call in simulation for a reason not listed above. */
  simulationFailed: 'simulation_failed',
  /** The RPC did not answer; nothing was decided (or sent), try again later. */
  chainUnavailable: 'chain_unavailable',
  /** The node did not take the transaction; nothing was sent, retry later. */
  submitFailed: 'submit_failed',
  // -- the relay outcome
  /** The transaction was mined and reverted. */
  reverted: 'reverted',
  /** The node refused the transaction, or could not be reached before it: nothing was sent. */
  rejected: 'rejected',
  // -- checkout settlement
  notFound: 'not_found',
  /** `to` is not the payment's payout address / the merchant's wallet. */
  wrongRecipient: 'wrong_recipient',
  /** `value` is not exactly the locked stablecoin amount. */
  wrongAmount: 'wrong_amount',
  /** `nonce` is not the one issued for this payment. */
  wrongNonce: 'wrong_nonce',
  /** `validBefore` is not the session expiry we issued. */
  wrongValidity: 'wrong_validity',
  /** Settled already, by a different authorization than the one given. */
  alreadySettled: 'already_settled',
  /** The payment failed earlier (terminal). */
  paymentFailed: 'payment_failed',
  /** The merchant canceled the session (terminal): no authorization can settle it any more. */
  canceled: 'canceled',
  /** Another authorization is being settled for this payment right now. */
  processing: 'processing',
  /** The payer canceled this payment's authorization on-chain (EIP-3009); another wallet can pay. */
  authorizationCanceled: 'authorization_canceled',
} as const;
export type PaymentReason = (typeof PaymentReason)[keyof typeof PaymentReason];

function pick<K extends keyof typeof PaymentReason>(...keys: K[]): { readonly [P in K]: (typeof PaymentReason)[P] } {
  return Object.fromEntries(keys.map((k) => [k, PaymentReason[k]])) as { readonly [P in K]: (typeof PaymentReason)[P] };
}

type Values<T> = T[keyof T];

/** Why verification refused an authorization (chain/verify-authorization.ts). */
export const VerifyReason = pick('invalidSignature', 'authorizationUsed', 'insufficientBalance', 'notYetValid', 'expired', 'simulationFailed', 'chainUnavailable');
export type VerifyReason = Values<typeof VerifyReason>;

/** Verification's reasons, plus `submit_failed`: the node did not take the transaction (chain/submit.ts). */
export const SubmitReason = { ...VerifyReason, ...pick('submitFailed') } as const;
export type SubmitReason = Values<typeof SubmitReason>;

/** Why nothing moved, as the one relay outcome says it (chain/relay.ts). */
export type RelayFailure = Exclude<VerifyReason, 'authorization_used' | 'chain_unavailable'> | typeof PaymentReason.reverted | typeof PaymentReason.rejected;

/** A custodial move's failure, as its owner (transfers, bills, markets, refunds) reads it. */
export const MOVE_FAILURES = [PaymentReason.insufficientBalance, PaymentReason.reverted, PaymentReason.rejected] as const;
export type MoveFailure = (typeof MOVE_FAILURES)[number];

/** Checkout settlement's refusals (settlement/settle-reasons.ts): every reason but the chain's `authorization_used` and the relay's `rejected`. */
export const SettleReason = pick(
  'notFound',
  'invalidSignature',
  'wrongRecipient',
  'wrongAmount',
  'wrongNonce',
  'wrongValidity',
  'notYetValid',
  'insufficientBalance',
  'expired',
  'alreadySettled',
  'paymentFailed',
  'canceled',
  'processing',
  'authorizationCanceled',
  'simulationFailed',
  'reverted',
  'chainUnavailable',
  'submitFailed',
);
export type SettleReason = Values<typeof SettleReason>;
