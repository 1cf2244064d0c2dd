import type { ToolName } from './tool-inputs.js';
import { TOOL_ACTIONS, type Channel, type ToolAction, type ToolOutcome } from './tools.js';
import type { PendingAction, PendingStatus } from './pending-actions.js';

/** What a turn answers, in the agent's own terms, and the small builders the agent's modules share. */

export type AgentAction = ToolAction | 'none';

export interface PendingActionView {
  id: string;
  expires_at: string;
  description: string;
  status: PendingStatus;
  tool: ToolName;
}

/** Why a turn could not be answered at all: the model provider failed after retries. */
export const UNAVAILABLE = 'unavailable';

/**
 * The turn's outcome, in the agent's own terms (no HTTP status: each door maps it with its own
 * table). `action` names what happened and `result` carries its record (ids, amounts, rate,
 * status, tx hash); `reason` names why a failed turn was not done (`unavailable`: the model
 * provider failed, nothing was read); `pending` is the action awaiting the user's Confirm that
 * the turn (or a confirm/cancel) concerns; `already` marks a late confirm answered with the
 * action's first outcome. `turnJson` (./turn-json.ts) is its documented JSON.
 */
export interface TurnOutcome {
  ok: boolean;
  action: AgentAction;
  reply: string;
  reason?: string;
  pending?: PendingActionView;
  result?: unknown;
  already?: true;
}

export interface TurnRequest {
  /** From authentication only (key, session, Telegram user): never from the message. */
  accountId: string;
  message: string;
  channel: Channel;
  requestId?: string;
  /** Hold a money-moving call as a pending action even through the API (`confirm: false`). */
  preview?: boolean;
  /**
   * Text the person passed on rather than wrote (a forwarded message, the message replied to):
   * data to read, never an instruction; no argument of a money-moving call may come from it.
   */
  quoted?: string[];
}

export const failure = (action: AgentAction, reply: string, reason: string, pending?: PendingActionView): TurnOutcome => ({
  ok: false,
  action,
  reply,
  reason,
  ...(pending ? { pending } : {}),
});

export function view(p: PendingAction): PendingActionView {
  return { id: p.id, expires_at: p.expiresAt, description: p.description, status: p.status, tool: p.call.name };
}

export function fromOutcome(outcome: ToolOutcome, reply?: string, extra: Pick<TurnOutcome, 'pending' | 'already'> = {}): TurnOutcome {
  if (outcome.ok) return { ok: true, action: outcome.action, reply: reply ?? outcome.summary, result: outcome.result, ...extra };
  return { ok: false, action: outcome.action, reply: reply ?? outcome.message, reason: outcome.reason, ...extra };
}

/** A held action as the turn answers it: what it will do, how to confirm, when it expires. */
export function pendingResult(p: PendingAction, held?: string, note?: string): TurnOutcome {
  const action = TOOL_ACTIONS[p.call.name];
  const minutes = Math.max(1, Math.round((Date.parse(p.expiresAt) - Date.parse(p.createdAt)) / 60_000));
  return {
    ok: true,
    action,
    reply: held ?? `${note ? `${note} ` : ''}${p.description}\nConfirm to go ahead, or cancel. This expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    result: { status: 'awaiting_confirmation', tool: p.call.name, input: p.call.input, ...(p.details ?? {}) },
    pending: view(p),
  };
}
