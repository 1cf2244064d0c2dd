import { GrammyError, type Api } from 'grammy';
import type { TransferSettledEvent } from '../../transfers/transfers.js';
import type { TelegramDeps } from './context.js';
import { accountLabel } from './history.js';
import { clip } from './ui.js';

export function incomingText(e: TransferSettledEvent): string {
  const note = e.transfer.note ? `\nNote: "${e.transfer.note}"` : '';
  return clip(
    `💸 You received ${e.recipientAmountText} from ${accountLabel(e.sender)} (${e.stablecoinAmount} USDC).${note}\n\n/balance shows your wallet.`,
  );
}

/**
 * Tells a recipient who uses the bot about an incoming live transfer, in their currency (a test
 * key's transfers notify nobody: src/transfers/transfer-notices.ts). The
 * private chat with a user has the user's id, and they have one since they sent /start.
 * Returns the unsubscribe function (nothing to undo when transfers are not wired).
 */
export function notifyIncomingTransfers(deps: TelegramDeps, api: Api): () => void {
  if (!deps.transfers) return () => undefined;
  return deps.transfers.onTransferSettled(async (e) => {
    const chatId = e.recipient?.telegramUserId;
    if (!chatId) return;
    try {
      await api.sendMessage(chatId, incomingText(e));
    } catch (err) {
      // 403: the user blocked the bot; nothing to retry.
      if (err instanceof GrammyError && err.error_code === 403) {
        deps.logger.info({ accountId: e.recipient?.id }, 'recipient has blocked the bot; not notified');
        return;
      }
      deps.logger.warn({ err, transferId: e.transfer.id }, 'could not notify the recipient on Telegram');
    }
  });
}
