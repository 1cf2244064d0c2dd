/**
 * A money-moving action whose outcome the service could not learn because its database failed
 * once something of it may be recorded, held or sent (docs/api-decisions.md, "Agent turns when the
 * database fails"; the line is drawn in policy-hook.ts `runGoverned`). The transfer's send may
 * already be on its way (a relay-journal write that failed leaves it `submitted`; the reconcile
 * finishes it from the chain), so the answer never says "retry": a client that sent the same
 * message again would send a second transfer. A store error before the action's first write or
 * hold (a read: nothing can have been recorded or sent) keeps the store's own 503 "retry shortly".
 */
import { isStoreUnavailable } from '../lib/store-unavailable.js';
import type { ToolAction, ToolOutcome } from './tools/contract.js';

export { isStoreUnavailable };

export const OUTCOME_UNKNOWN = 'outcome_unknown';

export const OUTCOME_UNKNOWN_MESSAGE =
  'The service lost its database while carrying this out, so it cannot tell yet whether it went through; it is being confirmed now. ' +
  'Do not send this request again: it may already have gone through. Check your activity and balance in a few minutes.';

/** The outcome for a store error met after the action began; undefined for any other error. */
export function unknownOutcome(action: ToolAction, err: unknown): Extract<ToolOutcome, { ok: false }> | undefined {
  if (!isStoreUnavailable(err)) return undefined;
  return { ok: false, action, reason: OUTCOME_UNKNOWN, message: OUTCOME_UNKNOWN_MESSAGE };
}

/** Whether an outcome is that answer (the turn ends with it; a confirm answers it even unrecorded). */
export function isUnknown(o: ToolOutcome): o is Extract<ToolOutcome, { ok: false }> {
  return !o.ok && o.reason === OUTCOME_UNKNOWN;
}

/** A confirm a stop cut off mid-way (Agent.recoverInterrupted): it may or may not have gone through. */
export function interruptedOutcome(action: ToolAction): Extract<ToolOutcome, { ok: false }> {
  const message = 'The service restarted while this was being carried out, so it may or may not have gone through. Check your balance and history before trying again.';
  return { ok: false, action, reason: 'interrupted', message };
}
