import { heldReply } from './held-replies.js';
import { readCorrection, type HeldCorrection } from './held-corrections.js';
import { TOOL_ACTIONS, toToolCall, type Channel } from './tool-calls.js';
import type { ToolCall } from './tool-inputs.js';
import type { PendingAction } from './pending-tool-call.js';
import type { PendingActionsStore } from '../pending-actions/pending-actions.js';
import { view, type TurnOutcome } from './turn-outcomes.js';

/** What answering a held action needs from the agent. */
export interface HeldAnswerDeps {
  actions: PendingActionsStore<PendingAction>;
  now(): Date;
  cancel(accountId: string, actionId: string): Promise<TurnOutcome>;
  /** Previews `call` under the spend policies and holds it as a new pending action (never runs it). */
  hold(row: PendingAction, call: ToolCall, localCurrency: string, requestId?: string): Promise<TurnOutcome>;
}

/**
 * A typed answer to the latest held action of this chat (./held-replies.ts, ./held-corrections.ts): a
 * cancel word cancels it; a yes or wait word shows it again with its buttons; a correction ("make it
 * 3k", "actually to @bola") cancels it and holds the corrected action in its place, with new
 * buttons. A typed answer never carries anything out: Confirm runs from its button only (the stored
 * arguments, once). Undefined when the message is not such an answer or nothing is held.
 */
export async function answerHeld(d: HeldAnswerDeps, accountId: string, channel: Channel, message: string, localCurrency: string, requestId?: string): Promise<TurnOutcome | undefined> {
  const kind = heldReply(message);
  const correction = kind ? undefined : readCorrection(message, localCurrency);
  if (!kind && !correction) return undefined;
  const row = await d.actions.latestPending(accountId, channel, d.now());
  // "make it 3k" with nothing waiting (expired, cancelled, done): said, never a guess at what to change.
  if (!row && correction) return { ok: true, action: 'none', reply: NOTHING_HELD, reason: 'nothing_held' };
  if (!row) return undefined;
  if (kind === 'cancel') {
    const done = await d.cancel(accountId, row.id);
    return done.ok && done.pending?.status === 'cancelled' ? { ...done, reply: `Cancelled. Nothing was done: ${row.description}` } : done;
  }
  if (correction) {
    const call = corrected(row, correction);
    if (call === 'unchanged') return showAgain(row);
    if (!call) {
      const reply = `I can't change that on the request I'm holding. ${row.description}\n\nTap Cancel under it and send the whole request again, or Confirm it as it is.`;
      return { ok: true, action: TOOL_ACTIONS[row.call.name], reply, reason: 'needs_confirmation', pending: view(row) };
    }
    // The old one first: if it is already being carried out, nothing new is held beside it.
    const cancelled = await d.cancel(accountId, row.id);
    if (!(cancelled.ok && cancelled.pending?.status === 'cancelled')) return cancelled;
    const replaced = cancelled.pending;
    const next = await d.hold(row, call, localCurrency, requestId);
    const earlier = 'The earlier request is cancelled; its buttons do nothing now.';
    return next.ok && next.pending ? { ...next, reply: `Changed. ${earlier}\n\n${next.reply}`, replaced } : { ...next, reply: `${next.reply}\n\n${earlier} Nothing was done.`, replaced };
  }
  return showAgain(row);
}

const NOTHING_HELD =
  'There is no request waiting for your confirmation to change: it may have expired, been cancelled or been carried out already. ' +
  'Nothing was done. Send the whole request again, e.g. "send 3,000 to @amina".';

function showAgain(row: PendingAction): TurnOutcome {
  const reply = `Nothing has moved yet. ${row.description}\n\nTap Confirm under it to go ahead, or Cancel; a typed answer never carries it out.`;
  return { ok: true, action: TOOL_ACTIONS[row.call.name], reply, pending: view(row) };
}

/**
 * The held call with the corrected fields (a firm quote is dropped: new figures need a new one),
 * 'unchanged' when it already says so, undefined when the tool has no such field.
 */
function corrected(row: PendingAction, c: HeldCorrection): ToolCall | 'unchanged' | undefined {
  const { quote_id: _quote, ...input } = row.call.input as Record<string, unknown>;
  if (c.amount !== undefined && !('amount' in input)) return undefined;
  if (c.recipient !== undefined && !('recipient' in input)) return undefined;
  const next: Record<string, unknown> = { ...input };
  if (c.amount !== undefined) {
    next.amount = c.amount;
    if (c.currency !== undefined) next.currency = c.currency;
  }
  if (c.recipient !== undefined) next.recipient = c.recipient;
  const same = ['amount', 'currency', 'recipient'].every((k) => String(next[k] ?? '') === String(input[k] ?? ''));
  if (same) return 'unchanged';
  const call = toToolCall(row.call.name, next);
  return call.ok ? call.call : undefined;
}
