import type { Logger } from 'pino';
import type { Account } from '../accounts/accounts.js';
import { usdcDecimal } from '../lib/money.js';
import type { Transfer } from './transfer-row.js';
import type { TransferSettledEvent, TransferSettledListener } from './transfer-types.js';

/**
 * The settled-transfer notifications (TransfersService.onTransferSettled; the Telegram bridge tells
 * the recipient). Only the call that moved a row to `settled` notifies, so that move is the record
 * that the recipient was told:
 * - a live outcome durable before its reply notifies at once (`now`);
 * - one durable after its reply notifies once the store's flush is done (`whenDurable`): a crash
 *   before leaves the row `submitted` and nobody told, and the start-up pass that finishes it from
 *   the chain is then the call that moves it, and tells them;
 * - the start-up pass runs before any listener is registered (`kept`): its notifications wait for
 *   the first listener (the bot, as it starts).
 * Live transfers only (h15tour): a test key's transfer (`livemode: false`, on the embedded chain
 * both modes share or on test mode's own) tells nobody and is never kept. Test mode is a sandbox; a
 * real person's Telegram chat is a live door, and before, the same test transfer was announced as
 * "test money" on the embedded chain but never beside a real network (Telegram listens to the live
 * service only), whose test-mode service kept its start-up pass's notices in memory for a listener
 * that never comes.
 * A slow or failing listener never holds up or fails a transfer.
 */
export class SettledNotices {
  private readonly listeners = new Set<TransferSettledListener>();
  private readonly unheard: Array<[Transfer, Account]> = [];

  constructor(
    private readonly o: {
      recipientOf: (id: string) => Promise<Account | undefined>;
      amountText: (minor: bigint, currency: string) => string;
      sync: () => Promise<void> | undefined;
      logger?: Logger | undefined;
    },
  ) {}

  /** Returns the unsubscribe. The first listener also hears what the start-up pass kept. */
  subscribe(listener: TransferSettledListener): () => void {
    this.listeners.add(listener);
    for (const [transfer, sender] of this.unheard.splice(0)) this.now(transfer, sender);
    return () => this.listeners.delete(listener);
  }

  /** `keep`: with no listener yet (the start-up pass, before the doors), kept for the first one. */
  now(transfer: Transfer, sender: Account, keep = false): void {
    if (transfer.livemode === false) return;
    if (!this.listeners.size) return void (keep && this.unheard.push([transfer, sender]));
    void this.emit(transfer, sender).catch((err: unknown) => this.o.logger?.warn({ err, transferId: transfer.id }, 'transfer notification failed'));
  }

  /** After the store's flush; a failed flush tells nobody (logged), as a crash would not. */
  whenDurable(transfer: Transfer, sender: Account): void {
    // Nobody listening (no Telegram), or a test transfer nobody is told of: no flush to wait on.
    if (!this.listeners.size || transfer.livemode === false) return;
    void Promise.resolve(this.o.sync()).then(
      () => this.now(transfer, sender),
      (err: unknown) => this.o.logger?.warn({ err, transferId: transfer.id }, 'transfer outcome not durable; recipient not notified'),
    );
  }

  private async emit(transfer: Transfer, sender: Account): Promise<void> {
    const recipient = transfer.recipientAccountId ? ((await this.o.recipientOf(transfer.recipientAccountId)) ?? null) : null;
    const event: TransferSettledEvent = {
      transfer,
      sender,
      recipient,
      recipientAmount: transfer.recipientAmount,
      recipientCurrency: transfer.recipientCurrency,
      recipientAmountText: this.o.amountText(BigInt(transfer.recipientAmountMinor), transfer.recipientCurrency),
      stablecoinAmount: usdcDecimal(transfer.stablecoinAmount),
    };
    for (const l of this.listeners) {
      void Promise.resolve()
        .then(() => l(event))
        .catch((err: unknown) => this.o.logger?.warn({ err, transferId: transfer.id }, 'transfer listener failed'));
    }
  }
}
