import { escapeHtml, layout, type SignedInAccount } from '../layout.js';

/** Account, wallet and payments; the data is filled in by assets/dashboard.js from the JSON API. */
export function dashboardPage(account: SignedInAccount): string {
  return layout({
    title: 'Dashboard',
    account,
    active: 'dashboard',
    scripts: ['dashboard.js'],
    body: `<h1>Dashboard</h1>
<div class="grid-2">
  <section class="card" aria-labelledby="account-title">
    <h2 id="account-title">Account</h2>
    <dl class="facts">
      <div><dt>Name</dt><dd id="account-name">${escapeHtml(account.name)}</dd></div>
      <div><dt>Email</dt><dd id="account-email">${escapeHtml(account.email ?? '—')}</dd></div>
    </dl>
  </section>
  <section class="card" aria-labelledby="wallet-title">
    <h2 id="wallet-title">Wallet</h2>
    <dl class="facts">
      <div><dt>Address</dt><dd><code class="wrap" id="wallet-address">—</code></dd></div>
      <div><dt>Balance</dt><dd id="wallet-balance">—</dd></div>
    </dl>
  </section>
</div>
<section class="card" aria-labelledby="payments-title">
  <div class="section-head">
    <h2 id="payments-title">Payments</h2>
    <button type="button" class="btn btn-quiet btn-small" id="payments-refresh">Refresh</button>
  </div>
  <p class="status-line" id="payments-status" role="status" aria-live="polite">Loading payments…</p>
  <table class="rtable" id="payments-table" hidden>
    <caption class="visually-hidden">Payments, newest first</caption>
    <thead><tr><th scope="col">Created</th><th scope="col">Amount</th><th scope="col">Status</th><th scope="col">Reference</th><th scope="col">Description</th><th scope="col"><span class="visually-hidden">Checkout</span></th></tr></thead>
    <tbody id="payments-body"></tbody>
  </table>
  <div class="empty" id="payments-empty" hidden>
    <p>No payments yet.</p>
    <p class="hint">Create one from your server with <code>POST /api/v1/payments</code> (see <a href="/app/developers">Developers</a>), or ask the Assistant: “create a payment link for 2500 NGN for a haircut”.</p>
  </div>
  <button type="button" class="btn" id="payments-more" hidden>Load more</button>
</section>`,
  });
}
