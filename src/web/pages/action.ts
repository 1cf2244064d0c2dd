import { escapeHtml, layout, type SignedInAccount } from '../layout.js';
import { timeHtml } from '../format.js';
import type { PendingActionView } from '../../agent/index.js';

const STATUS_TEXT: Record<PendingActionView['status'], string> = {
  pending: 'Waiting for your confirmation. Nothing has moved yet.',
  executing: 'Being carried out.',
  done: 'Done.',
  cancelled: 'Cancelled. Nothing was done.',
  expired: 'Expired before it was confirmed. Nothing was done.',
};

/** Who asked, by the door the request came through (the pending action keeps its channel). */
const ASKED_BY: Record<string, string> = {
  mcp: 'An AI assistant connected to your account over MCP (with one of your secret keys)',
  api: 'Your server, through the agent API (POST /api/agent/settle, with one of your secret keys)',
  chat: 'The Assistant in this app',
  telegram: 'The StablePay bot on Telegram',
};

/**
 * The page an AI assistant (MCP) sends the account holder to: what the action does, exactly as
 * stored, with Confirm and Cancel as plain same-origin form posts (no script needed).
 */
export function actionPage(
  account: SignedInAccount,
  a: PendingActionView & { channel: string; created_at: string },
  outcome?: { ok: boolean; reply: string },
  key?: { label: string; prefix: string },
): string {
  // A revoked key is no longer listed: the door alone is named then.
  const through = key ? ` through the key “${key.label}” (${key.prefix})` : '';
  const buttons =
    a.status === 'pending'
      ? `<div class="actions">
  <form method="post" action="/app/actions/${escapeHtml(a.id)}/confirm"><button type="submit" class="btn btn-primary" id="confirm">Confirm</button></form>
  <form method="post" action="/app/actions/${escapeHtml(a.id)}/cancel"><button type="submit" class="btn btn-quiet" id="cancel">Cancel</button></form>
</div>`
      : '';
  const result = outcome
    ? `<p class="${outcome.ok ? 'notice' : 'error'}" id="outcome" role="status">${escapeHtml(outcome.reply)}</p>`
    : '';
  return layout({
    title: 'Confirm an action',
    account,
    body: `<section class="card narrow" aria-labelledby="action-title">
  <h1 id="action-title">Confirm an action</h1>
  <p id="asked-by">${escapeHtml(ASKED_BY[a.channel] ?? 'An assistant connected to your account')}${escapeHtml(through)} asked on ${timeHtml(a.created_at)} to do this:</p>
  <p class="action-description" id="description"><strong>${escapeHtml(a.description)}</strong></p>
  <p id="status" data-status="${escapeHtml(a.status)}">${escapeHtml(STATUS_TEXT[a.status])}</p>
  ${result}
  ${a.status === 'pending' ? `<p class="hint" id="expires">Expires on ${timeHtml(a.expires_at)}; after that it can no longer be confirmed.</p>` : ''}
  ${buttons}
</section>`,
  });
}
