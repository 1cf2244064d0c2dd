import { escapeHtml, layout, type SignedInAccount } from '../layout.js';
import type { PendingActionView } from '../../agent/index.js';

const STATUS_TEXT: Record<PendingActionView['status'], string> = {
  pending: 'Waiting for your confirmation. Nothing has moved yet.',
  executing: 'Being carried out.',
  done: 'Done.',
  cancelled: 'Cancelled. Nothing was done.',
  expired: 'Expired before it was confirmed. Nothing was done.',
};

/**
 * The page an AI assistant (MCP) sends the account holder to: what the action does, exactly as
 * stored, with Confirm and Cancel as plain same-origin form posts (no script needed).
 */
export function actionPage(account: SignedInAccount, a: PendingActionView, outcome?: { ok: boolean; reply: string }): string {
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
  <p>An assistant connected to your account asked to do this:</p>
  <p class="action-description" id="description"><strong>${escapeHtml(a.description)}</strong></p>
  <p id="status" data-status="${escapeHtml(a.status)}">${escapeHtml(STATUS_TEXT[a.status])}</p>
  ${result}
  ${a.status === 'pending' ? `<p class="hint">Expires ${escapeHtml(a.expires_at)}.</p>` : ''}
  ${buttons}
</section>`,
  });
}
