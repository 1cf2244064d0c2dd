import type { Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import { newId } from '../lib/ids.js';
import type { Reservation } from '../limits/limits.js';
import { defineTable } from '../store/index.js';
import type { TransferQuote } from './quote.js';
import type { Recipient } from './recipients.js';
import type { SendTransferInput } from './transfer-inputs.js';

/**
 * The stored transfer: its row, its table, and how a priced transfer becomes a `quoted` row.
 *
 *   quoted -> submitted -> settled | failed        (quoted -> expired | failed before sending)
 *
 * `submitted` with no outcome yet (receipt timeout, RPC trouble) stays `submitted`;
 * `reconcile` finishes it safely because the EIP-3009 nonce is derived from the transfer id.
 */
export type TransferStatus = 'quoted' | 'submitted' | 'settled' | 'failed' | 'expired';
export type FeeStatus = 'none' | 'pending' | 'settled' | 'failed';

/** A priced transfer's figures as stored, decimal strings (a transfer row and a firm quote both hold them). */
export interface StoredQuoteFigures {
  sourceCurrency: string;
  sourceAmount: string;
  sourceAmountMinor: string;
  /** Base units the recipient receives. */
  stablecoinAmount: string;
  fee: string;
  totalDebit: string;
  recipientCurrency: string;
  recipientAmount: string;
  recipientAmountMinor: string;
  rate: string;
  sourceRate: string;
  recipientRate: string;
}

export interface Transfer extends StoredQuoteFigures {
  readonly id: string;
  accountId: string;
  status: TransferStatus;
  recipientKind: 'account' | 'external';
  /** What the sender typed ("@amina"). */
  recipientInput: string;
  recipientLabel: string;
  recipientAccountId?: string;
  toAddress: string;
  fromIndex: number;
  fromAddress: string;
  note?: string;
  quoteExpiresAt: string;
  /** The firm quote (src/quotes) this transfer executes at, when it had one. */
  quoteId?: string;
  reservation?: Reservation;
  /** The spend policy's reservation written with this row (an agent turn's): ended by the reconcile pass when the turn could not. */
  spendReservationId?: string;
  txHash?: string;
  feeStatus: FeeStatus;
  feeTxHash?: string;
  failureReason?: string;
  failureMessage?: string;
  requestId?: string;
  createdAt: string;
  updatedAt: string;
  submittedAt?: string;
  settledAt?: string;
  livemode?: boolean; // false: on test mode's chain (docs/test-mode.md)
}

export const Transfers = defineTable<Transfer>({
  name: 'transfers',
  indexes: ['accountId', 'recipientAccountId', 'status'],
  // The money-module sweep reads only idle unfinished transfers through these (`unfinished`).
  ranges: [
    ['status', 'updatedAt'],
    ['feeStatus', 'updatedAt'],
  ],
});

/**
 * The `quoted` transfer row for a priced transfer. Shared by `TransfersService.quote` (priced
 * now) and the firm-quote path (src/quotes: priced when the quote was given), so both record
 * exactly the same fields.
 */
export function buildTransferRow(a: {
  sender: Account;
  fromAddress: Address;
  recipient: Recipient;
  input: Pick<SendTransferInput, 'recipient' | 'note'>;
  quote: TransferQuote;
  expiresAt: Date;
  now: Date;
  requestId?: string;
  /** The firm quote it executes (src/quotes), when there is one. */
  quoteId?: string;
}): Transfer {
  const { sender, recipient, quote, input, now } = a;
  return {
    id: newId('tr'),
    accountId: sender.id,
    status: 'quoted',
    recipientKind: recipient.kind,
    recipientInput: input.recipient,
    recipientLabel: recipient.label,
    ...(recipient.kind === 'account' ? { recipientAccountId: recipient.account.id } : {}),
    toAddress: recipient.address,
    fromIndex: sender.walletIndex,
    fromAddress: a.fromAddress,
    sourceCurrency: quote.sourceCurrency,
    sourceAmount: quote.sourceAmount,
    sourceAmountMinor: quote.sourceAmountMinor.toString(),
    stablecoinAmount: quote.stablecoinAmount.toString(),
    fee: quote.fee.toString(),
    totalDebit: quote.totalDebit.toString(),
    recipientCurrency: quote.recipientCurrency,
    recipientAmount: quote.recipientAmount,
    recipientAmountMinor: quote.recipientAmountMinor.toString(),
    rate: quote.rate,
    sourceRate: quote.sourceRate,
    recipientRate: quote.recipientRate,
    ...(input.note ? { note: input.note } : {}),
    quoteExpiresAt: a.expiresAt.toISOString(),
    ...(a.quoteId ? { quoteId: a.quoteId } : {}),
    feeStatus: quote.fee > 0n ? 'pending' : 'none',
    ...(a.requestId ? { requestId: a.requestId } : {}),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}
