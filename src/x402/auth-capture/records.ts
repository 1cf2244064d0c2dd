/**
 * What we keep of each auth-capture payment our relayer operates: written before `authorize` is
 * sent (so a crash after the send loses nothing: the expiry pass and a retry find it and read the
 * escrow), bound to the merchant account whose key authorized it (the out-of-band authentication
 * the binding asks of a delegated receiver authorizer) and, for checkout sessions, to the payment.
 */
import type { Hex } from 'viem';
import { defineTable, type Row } from '../../store/index.js';

export interface AuthCaptureRecord extends Row {
  /** The escrow's paymentInfoHash. */
  id: string;
  accountId: string;
  /** The checkout session it pays, for an `x402_url` payment. */
  paymentId?: string;
  /** false: held on test mode's chain (docs/test-mode.md); absent: live, or the one chain of both modes. */
  livemode?: boolean;
  payer: string;
  /** The PaymentInfo in its wire form (lifecycle payloads carry it). */
  paymentInfo: Record<string, unknown>;
  saltNonce?: string;
  /** `authorizing` until the authorize receipt is in; `open` while something may be held; `closed` once nothing is. */
  state: 'authorizing' | 'open' | 'closed';
  authorizeTx?: string;
  /**
   * A checkout session's capture or void that was sent and not yet applied to its payment: kept from
   * the send until the payment has it, so a crash in between is finished by the sweep from the receipt.
   */
  inFlight?: { step: 'capture' | 'void'; amount: string; txHash: string };
  /** ISO time of `authorizationExpiry`: the expiry pass voids what is still held then. */
  captureDeadline: string;
  createdAt: string;
  updatedAt: string;
}

export const AuthCaptures = defineTable<AuthCaptureRecord>({
  name: 'auth_captures',
  indexes: ['accountId', 'paymentId'],
  ranges: [['state', 'captureDeadline']],
});

export type PaymentInfoHash = Hex;
