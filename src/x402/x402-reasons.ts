/**
 * x402 error-reason names, one constant per reason, as coinbase/x402 keeps them. The names the
 * x402 v2 specification lists (section 9) are used verbatim; for cases the specification does
 * not name, the names of coinbase's `@x402/evm` exact facilitator are used, so resource servers
 * that switch on a reason see the strings they already know.
 */

/** `invalidReason` of a VerifyResponse; a settle that fails verification answers the same names. */
export const X402Reason = {
  // -- specification, section 9
  insufficientFunds: 'insufficient_funds',
  validAfter: 'invalid_exact_evm_payload_authorization_valid_after',
  validBefore: 'invalid_exact_evm_payload_authorization_valid_before',
  value: 'invalid_exact_evm_payload_authorization_value',
  signature: 'invalid_exact_evm_payload_signature',
  recipientMismatch: 'invalid_exact_evm_payload_recipient_mismatch',
  invalidNetwork: 'invalid_network',
  invalidPayload: 'invalid_payload',
  invalidPaymentRequirements: 'invalid_payment_requirements',
  invalidScheme: 'invalid_scheme',
  unsupportedScheme: 'unsupported_scheme',
  invalidX402Version: 'invalid_x402_version',
  invalidTransactionState: 'invalid_transaction_state',
  unexpectedVerifyError: 'unexpected_verify_error',
  unexpectedSettleError: 'unexpected_settle_error',
  // -- @x402/evm exact facilitator (not named by the specification)
  networkMismatch: 'invalid_exact_evm_network_mismatch',
  tokenNameMismatch: 'invalid_exact_evm_token_name_mismatch',
  tokenVersionMismatch: 'invalid_exact_evm_token_version_mismatch',
  nonceAlreadyUsed: 'invalid_exact_evm_nonce_already_used',
  simulationFailed: 'invalid_exact_evm_transaction_simulation_failed',
  transactionFailed: 'invalid_exact_evm_transaction_failed',
  /** Sent, but no receipt within the wait: the transaction may still be mined (`transaction` carries its hash). */
  settlementPending: 'settlement_pending',
  // -- payment-identifier extension (the extension names no reasons; its table says 409 / 400)
  /** The identifier was used before, by this payer, with another payload (409). */
  paymentIdentifierConflict: 'payment_identifier_conflict',
  /** The extension is there but its `info.id` is not 16-128 of [A-Za-z0-9_-] (400). */
  invalidPaymentIdentifier: 'invalid_payment_identifier',
} as const;
export type X402Reason = (typeof X402Reason)[keyof typeof X402Reason];
