import type { ToolCall } from './tool-inputs.js';
import type { Channel, ToolOutcome } from './tool-calls.js';
import type { PendingActionRow } from '../pending-actions/pending-actions.js';

export { PendingActions, type PendingStatus } from '../pending-actions/pending-actions.js';

/**
 * A money-moving tool call held for the user's Confirm (Telegram, chat). `call` is the
 * validated call, executed verbatim on confirm; the rows live in src/pending-actions.
 */
export type PendingAction = PendingActionRow<ToolCall, ToolOutcome> & { channel: Channel };
