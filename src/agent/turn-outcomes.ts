/** The agent's answers built from its records (TurnOutcome), shared by `Agent`'s turns and confirms. */
import { TOOL_ACTIONS, type ToolOutcome } from './tool-calls.js';
import type { PendingAction } from './pending-tool-call.js';
import type { ToolAction } from './tool-calls.js';
import type { PendingStatus } from './pending-tool-call.js';
import type { ToolName } from './tool-inputs.js';
import type { Lang } from './local/language.js';

export type AgentAction = ToolAction | 'none';

export interface PendingActionView {
  id: string;
  expires_at: string;
  description: string;
  status: PendingStatus;
  tool: ToolName;
}

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
  /** The held action a typed correction cancelled and replaced (`pending` is the new one). */
  replaced?: PendingActionView;
  result?: unknown;
  already?: true;
  /**
   * The language of the reply when the engine read it from the person's words (the local engine):
   * a door that adds its own lines (Telegram's Confirm step) says them in it. Not in the turn's JSON.
   */
  lang?: Lang;
  /** A key paused by the spend policies' circuit breaker may try again after this many seconds. */
  retryAfterSeconds?: number;
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
  const retry = outcome.retryAfterSeconds ? { retryAfterSeconds: outcome.retryAfterSeconds } : {};
  return { ok: false, action: outcome.action, reply: reply ?? outcome.message, reason: outcome.reason, ...retry, ...extra };
}

/**
 * `ask`, when the engine has one, says "confirm or cancel; expires in N minutes" in the
 * person's language; a spend policy's approval note stays as the policy wrote it.
 */
export function pendingResult(
  p: PendingAction,
  held?: string,
  note?: string,
  ask?: (minutes: number) => string,
  approval?: (note: string, minutes: number) => string | undefined,
  noteText?: (note: string) => string | undefined,
): TurnOutcome {
  const action = TOOL_ACTIONS[p.call.name];
  const minutes = Math.max(1, Math.round((Date.parse(p.expiresAt) - Date.parse(p.createdAt)) / 60_000));
  const lead = note ? `${noteText?.(note) ?? note} ` : '';
  const tail = p.approval
    ? (approval?.(p.approval, minutes) ?? `${p.approval} This expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`)
    : (ask?.(minutes) ?? `Confirm to go ahead, or cancel. This expires in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
  // The engine's own words for a call it held (what it understood, why it waits), unless a spend
  // policy holds it too: then the person must read which rule asks for their approval.
  const reply = held && !p.approval ? held : `${lead}${p.description}\n${tail}`;
  return {
    ok: true,
    action,
    ...(p.approval ? { reason: 'approval_required' } : {}),
    reply,
    result: { status: 'awaiting_confirmation', tool: p.call.name, input: p.call.input, ...(p.details ?? {}) },
    pending: view(p),
  };
}

/** The answer for an action that is no longer pending (double tap, late tap). */
export function settledAnswer(p: PendingAction): TurnOutcome {
  const pending = view(p);
  const action = TOOL_ACTIONS[p.call.name];
  switch (p.status) {
    case 'done':
      return p.outcome
        ? fromOutcome(p.outcome, p.outcome.ok ? `Already done. ${p.outcome.summary}` : `Already handled. ${p.outcome.message}`, { pending, already: true })
        : { ok: true, action, reply: 'Already done.', pending, already: true };
    case 'executing':
      return failure(action, 'This action is already being carried out.', 'in_progress', pending);
    case 'cancelled':
      return failure(action, 'This action was cancelled; nothing was done.', 'cancelled', pending);
    case 'expired':
      return failure(action, 'This action expired before it was confirmed; nothing was done. Send your request again.', 'expired', pending);
    case 'pending':
      return failure(action, 'This action is still waiting for confirmation.', 'pending', pending);
  }
}
