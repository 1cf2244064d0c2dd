import { defineTable } from '../store/index.js';
import type { ToolCall } from './tool-inputs.js';
import type { Channel, ToolOutcome } from './tools.js';

export type PendingStatus = 'pending' | 'executing' | 'done' | 'cancelled' | 'expired';

/**
 * A money-moving tool call held for the user's Confirm (Telegram, chat). `call` is the
 * validated call, executed verbatim on confirm; `status` moves by compare-and-set only:
 * pending -> executing -> done, pending -> cancelled, pending -> expired.
 */
export interface PendingAction {
  readonly id: string;
  accountId: string;
  channel: Channel;
  call: ToolCall;
  description: string;
  /** Preview details (amounts, rate, fee, recipient) when the handler gave them. */
  details?: Record<string, unknown>;
  status: PendingStatus;
  requestId?: string;
  createdAt: string;
  expiresAt: string;
  updatedAt: string;
  outcome?: ToolOutcome;
  /** The instance executing it (status `executing`); another takes over only once it is gone. */
  executor?: string;
}

export const PendingActions = defineTable<PendingAction>({
  name: 'pending_actions',
  indexes: ['accountId', 'status'],
});
