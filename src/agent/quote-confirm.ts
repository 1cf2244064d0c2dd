import type { Agent, TurnOutcome } from './agent.js';

/** What confirming a quote needs to know of it (src/quotes QuotesService.get). */
export interface QuoteLookup {
  get(accountId: string, id: string, livemode?: boolean): Promise<{ id: string; recipientInput?: string; sourceAmount: string; sourceCurrency: string } | undefined>;
}

/**
 * The agent's confirm of a firm quote (`POST /api/agent/settle {quote_id}`): executes the
 * transfer the quote priced, through `send_transfer` with its `quote_id`, so exactly the
 * quoted figures move or nothing does (expired: refused with a new quote offered).
 */
export async function confirmQuote(
  deps: { agent: Agent; quotes: QuoteLookup },
  req: { accountId: string; quoteId: string; requestId?: string; keyId?: string; livemode?: boolean },
): Promise<TurnOutcome> {
  // The caller's mode only: the other mode's quote is not found (docs/test-mode.md).
  const q = await deps.quotes.get(req.accountId, req.quoteId, req.livemode !== false);
  if (!q) return { ok: false, action: 'none', reply: 'There is no quote with that id.', reason: 'not_found' };
  if (!q.recipientInput) {
    return {
      ok: false,
      action: 'transfer',
      reply: `Quote ${q.id} names no recipient, so it cannot be sent as it is. Send a message naming who receives it, with "quote_id" in send_transfer, or ask for a quote with a recipient.`,
      reason: 'quote_mismatch',
    };
  }
  return deps.agent.act({
    accountId: req.accountId,
    call: { name: 'send_transfer', input: { recipient: q.recipientInput, amount: q.sourceAmount, currency: q.sourceCurrency, quote_id: q.id } },
    ...(req.requestId ? { requestId: req.requestId } : {}),
    ...(req.keyId ? { keyId: req.keyId } : {}),
    ...(req.livemode === false ? { livemode: false } : {}),
  });
}
