/**
 * When is a settle attempt over, and what does it mean for the payer (issue 21)? A pure
 * decision over what the ledger and the chain say, so the table is unit-tested in isolation
 * and every caller (the settle that owns the attempt, a second instance joining it, a
 * reconcile pass anywhere) decides the same way.
 *
 * "Nothing was charged" is only said when it is provable: the authorization was canceled
 * on-chain, its window has closed unused, or our own known transaction reverted. An attempt
 * that may still land is never reopened: while its owner works on it (lease live) or before its
 * deadline it is left alone; after that, with nothing on its way, the stored authorization is
 * sent again (`resume`: the EIP-3009 nonce lets one transfer through, whoever sends it).
 */

export interface AttemptFacts {
  /** The caller is the attempt's runner, right after its own relay ended (it knows what it sent). */
  self: boolean;
  /** Someone may still be working on it: owner's lease live, or before its deadline (AttemptLedger.busy). */
  busy: boolean;
  /** Chain time (read before the state reads) is at or past validBefore. */
  windowClosed: boolean;
  /** authorizationState(payer, nonce). */
  authUsed: boolean;
  /** The transfer that used the authorization was found (its hash). */
  usedBy?: string;
  /** The receipt of the attempt's own transaction, when it has one. */
  txReceipt?: 'success' | 'reverted' | 'timeout';
  /** The node knows the attempt's transaction (in its pool). */
  txKnown?: boolean;
  /** The signed authorization is stored: another instance can send it again. */
  canResume: boolean;
}

export type AttemptDecision =
  /** Money moved: settle with `usedBy` (once its receipt reads success). */
  | { do: 'settle'; txHash: string }
  /** Used without a transfer: the payer canceled it on-chain. Nothing charged; another wallet may pay. */
  | { do: 'canceled' }
  /** Our transaction was mined and reverted, and nothing used the authorization. */
  | { do: 'reverted' }
  /** The window closed and nothing used it: it can never be used now. */
  | { do: 'expired' }
  /** It may still land: stay `processing` (the answer is "processing", poll the payment). */
  | { do: 'wait' }
  /** The owner is gone, its deadline passed and nothing is on its way: send the stored authorization again. */
  | { do: 'resume' }
  /** As `resume` but without a stored authorization (rows from before the ledger): back to `pending`. */
  | { do: 'reopen' };

export function decideAttempt(f: AttemptFacts): AttemptDecision {
  if (f.authUsed) {
    if (f.usedBy) return { do: 'settle', txHash: f.usedBy };
    // Used, no transfer found: canceled, unless someone is still on it (the log may lag the state).
    return f.busy && !f.self ? { do: 'wait' } : { do: 'canceled' };
  }
  // Our transaction reverted and the authorization is unused: nothing moved.
  if (f.txReceipt === 'reverted') return { do: 'reverted' };
  // Read before the state: a block after that time cannot use the authorization any more.
  if (f.windowClosed) return { do: 'expired' };
  if (f.self) return { do: 'wait' };
  if (f.busy) return { do: 'wait' };
  if (f.txReceipt === 'timeout' && f.txKnown) return { do: 'wait' };
  return f.canResume ? { do: 'resume' } : { do: 'reopen' };
}
