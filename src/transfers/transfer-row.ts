import type { Address } from 'viem';
import type { Account } from '../accounts/accounts.js';
import { newId } from '../lib/ids.js';
import type { TransferQuote } from './quote.js';
import type { Recipient } from './recipients.js';
import type { SendTransferInput } from './schemas.js';

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
}) {
  const { sender, recipient, quote, input, now } = a;
  // Typed by its fields (transfers.ts's `Transfer` accepts it) to keep the two files acyclic.
  return {
    id: newId('tr'),
    accountId: sender.id,
    status: 'quoted' as const,
    recipientKind: recipient.kind as 'account' | 'external',
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
    feeStatus: (quote.fee > 0n ? 'pending' : 'none') as 'pending' | 'none',
    ...(a.requestId ? { requestId: a.requestId } : {}),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}
