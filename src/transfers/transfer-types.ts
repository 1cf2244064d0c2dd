import type { Account } from '../accounts/accounts.js';
import type { Limits } from '../limits/limits.js';
import type { QuoteFailure, TransferQuote } from './quote.js';
import type { Recipient, RecipientFailure } from './recipients.js';
import type { Transfer } from './transfer-row.js';
import type { Tx } from '../store/index.js';
import type { SpendInTx } from '../wallet/money-module.js';

/** The transfer module's reasons, answers and events (the service is transfers.ts). */

export const TransferReason = {
  accountNotFound: 'account_not_found',
  transferNotFound: 'transfer_not_found',
  quoteExpired: 'quote_expired',
  invalidState: 'invalid_state',
  insufficientBalance: 'insufficient_balance',
  overLimit: 'over_limit',
  /** The chain rejected the transfer (nothing moved). */
  transferFailed: 'transfer_failed',
  chainUnavailable: 'chain_unavailable',
} as const;

export type TransferFailure =
  | RecipientFailure
  | QuoteFailure
  | (typeof TransferReason)[keyof typeof TransferReason];

export type { SpendInTx } from '../wallet/money-module.js';

/**
 * How TransfersService records an outcome: the relay attempt's answer and the turn's spend slot
 * written with it; `deferSettled`: a settled outcome durable after the reply (`send`);
 * `feeLater`: an unbatched fee is left to `reconcile` (the start-up pass sends nothing); `heardLater`: see below.
 */
export interface RecordOptions {
  answer?: ((tx: Tx) => Promise<void>) | undefined;
  spend?: SpendInTx | undefined;
  deferSettled?: boolean;
  feeLater?: boolean;
  /** The start-up pass: no listener is registered yet, so its notification waits for the first (onTransferSettled). */
  heardLater?: boolean;
}

/** What the Telegram bridge needs to tell the recipient. */
export interface TransferSettledEvent {
  transfer: Transfer;
  sender: Account;
  /** Null for a payout to an outside address. */
  recipient: Account | null;
  /** In the recipient's currency ("59787.27" NGN). */
  recipientAmount: string;
  recipientCurrency: string;
  /** Human text, e.g. "59,787.27 NGN". */
  recipientAmountText: string;
  stablecoinAmount: string;
}
export type TransferSettledListener = (event: TransferSettledEvent) => void | Promise<void>;

export interface TransferPreview {
  sender: Account;
  recipient: Recipient;
  quote: TransferQuote;
  limits: Limits;
}
