/**
 * How settle checks a signed authorization against the one a payment issues. The rule belongs
 * to the way of paying (src/checkout-sessions/methods): the hosted page signs exactly what we
 * issued; an x402 client picks its own nonce and window (methods/x402.ts). Settlement takes the
 * rule as data, so it holds no method's flag.
 */
import type { Hex } from 'viem';
import type { TransferAuthorization } from '../chain/authorization.js';
import type { Fail } from '../lib/results.js';
import { compareAuthorization, type SettleReason } from './settle-reasons.js';

export interface AuthorizationTerms {
  /** Refuses `got` when it does not pay what `issued` (the payment's own authorization) says. */
  compare(got: TransferAuthorization, issued: TransferAuthorization): Fail<SettleReason> | undefined;
  /**
   * The nonce kept with the attempt when the payer chose it (attempt key `payer:nonce`, and
   * `authNonce` on the payment); undefined: the payment's derived nonce, one per payer.
   */
  chosenNonce(got: TransferAuthorization): Hex | undefined;
}

/** The authorization we issued, signed unchanged (the hosted page, the app and test wallets). */
export const ISSUED_TERMS: AuthorizationTerms = {
  compare: compareAuthorization,
  chosenNonce: () => undefined,
};
