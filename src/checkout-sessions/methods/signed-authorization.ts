/**
 * The hosted page's own way to pay (`POST /api/checkout/:id/settle`): the customer's wallet
 * signed the EIP-3009 authorization we issued (`POST /api/checkout/:id/authorization`), and it
 * is handed to settlement unchanged, to be checked against the issued one (ISSUED_TERMS).
 */
import type { SettleRequest } from '../../settlement/settlement.js';
import type { PaymentMethod } from '../pay.js';

export interface SignedAuthorizationInput extends SettleRequest {
  method: 'signed-authorization';
}

export const signedAuthorization: PaymentMethod<SignedAuthorizationInput> = {
  name: 'signed-authorization',
  authorize: async (_ctx, { authorization, signature }) => ({ ok: true, request: { authorization, signature }, noIo: true }),
};
