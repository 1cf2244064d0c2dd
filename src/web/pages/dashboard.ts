import { shareHtml } from '../format.js';
import { escapeHtml, layout, type SignedInAccount } from '../layout.js';

export interface DashboardFilters {
  status?: string;
  q?: string;
  from?: string;
  to?: string;
}

/** Statuses a merchant can filter by, in lifecycle order. */
export const STATUS_OPTIONS: Array<[string, string]> = [
  ['', 'All statuses'],
  ['pending', 'Pending'],
  ['processing', 'Processing'],
  ['authorized', 'Authorized (held)'],
  ['settled', 'Settled'],
  ['captured', 'Captured'],
  ['voided', 'Voided'],
  ['refunded', 'Refunded'],
  ['canceled', 'Canceled'],
  ['expired', 'Expired'],
  ['failed', 'Failed'],
];

function filterForm(f: DashboardFilters, error: string | undefined, csvHref: string): string {
  const options = STATUS_OPTIONS.map(
    ([v, label]) => `<option value="${v}"${(f.status ?? '') === v ? ' selected' : ''}>${label}</option>`,
  ).join('');
  return `<form class="filters" id="filters" method="get" action="/app" role="search" aria-label="Filter payments">
    <div class="field">
      <label for="f-q">Search</label>
      <input type="search" id="f-q" name="q" value="${escapeHtml(f.q ?? '')}" maxlength="100" placeholder="e.g. order-1001" aria-describedby="f-q-hint">
      <p class="hint" id="f-q-hint">Part of a reference, or a payment id.</p>
    </div>
    <div class="field">
      <label for="f-status">Status</label>
      <select id="f-status" name="status">${options}</select>
    </div>
    <div class="field">
      <label for="f-from">From (UTC)</label>
      <input type="date" id="f-from" name="from" value="${escapeHtml(f.from ?? '')}">
    </div>
    <div class="field">
      <label for="f-to">To (UTC)</label>
      <input type="date" id="f-to" name="to" value="${escapeHtml(f.to ?? '')}">
    </div>
    <div class="filter-actions">
      <button type="submit" class="btn btn-primary">Apply filters</button>
      <a class="btn" href="/app">Clear</a>
      <a class="btn" id="csv-export" href="${escapeHtml(csvHref)}" download>Export CSV<span class="visually-hidden"> of the payments shown by these filters</span></a>
    </div>
    ${error ? `<p class="form-error" id="filters-error" role="alert">${escapeHtml(error)}</p>` : ''}
  </form>`;
}

/** Account, wallet, totals with a daily chart, and the filtered payments list (assets/dashboard.js fills the data). */
export function dashboardPage(account: SignedInAccount, filters: DashboardFilters = {}, error?: string): string {
  const query = new URLSearchParams(Object.entries(filters).filter(([, v]) => v) as Array<[string, string]>).toString();
  const csvHref = `/api/app/dashboard/payments.csv${query ? `?${query}` : ''}`;
  return layout({
    title: 'Dashboard',
    account,
    active: 'dashboard',
    scripts: ['dashboard.js', 'share.js', 'new-payment.js'],
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
<section class="card" aria-labelledby="new-payment-title" id="new-payment">
  <h2 id="new-payment-title">New payment</h2>
  <p class="hint">Create a payment link to send a customer (chat, email, a QR code on the counter). They pay in USDC on the hosted checkout page.</p>
  <form class="inline-form new-payment-form" id="new-payment-form" novalidate>
    <div class="field field-amount">
      <label for="np-amount">Amount</label>
      <input type="text" id="np-amount" name="amount" inputmode="decimal" autocomplete="off" required aria-describedby="np-amount-error">
      <p class="field-error" id="np-amount-error" hidden></p>
    </div>
    <div class="field field-currency">
      <label for="np-currency">Currency</label>
      <input type="text" id="np-currency" name="currency" value="USD" maxlength="8" autocomplete="off" required aria-describedby="np-currency-error">
      <p class="field-error" id="np-currency-error" hidden></p>
    </div>
    <div class="field">
      <label for="np-description">Description <span class="hint">(optional)</span></label>
      <input type="text" id="np-description" name="description" maxlength="300" autocomplete="off">
    </div>
    <div class="field">
      <label for="np-reference">Your reference <span class="hint">(optional)</span></label>
      <input type="text" id="np-reference" name="reference" maxlength="64" autocomplete="off" aria-describedby="np-reference-error">
      <p class="field-error" id="np-reference-error" hidden></p>
    </div>
    <div class="field">
      <label for="np-redirect">After paying, send the customer to</label>
      <input type="url" id="np-redirect" name="redirect_url" maxlength="2048" autocomplete="url" required aria-describedby="np-redirect-hint np-redirect-error">
      <p class="hint" id="np-redirect-hint">Your shop or a thank-you page.</p>
      <p class="field-error" id="np-redirect-error" hidden></p>
    </div>
    <div class="filter-actions"><button type="submit" class="btn btn-primary" id="np-submit">Create payment link</button></div>
  </form>
  <p class="status-line" id="np-status" role="status" aria-live="polite"></p>
  <div id="np-result" hidden>
    <h3 id="np-result-title">Payment link</h3>
    ${shareHtml('np-link', '')}
  </div>
</section>
<section class="card" aria-labelledby="totals-title" id="totals" data-from="${escapeHtml(filters.from ?? '')}" data-to="${escapeHtml(filters.to ?? '')}">
  <div class="section-head">
    <h2 id="totals-title">Totals <span class="period" id="totals-period"></span></h2>
  </div>
  <dl class="totals">
    <div><dt>Settled</dt><dd id="total-settled">—</dd><dd class="sub" id="total-count"></dd></div>
    <div><dt>Refunded</dt><dd id="total-refunded">—</dd></div>
    <div><dt>Net</dt><dd id="total-net">—</dd></div>
  </dl>
  <figure class="chart" id="chart-figure">
    <div class="chart-box" id="chart"></div>
    <figcaption class="hint" id="chart-caption">Per day (USDC, UTC): <span class="key key-settled" aria-hidden="true"></span>settled, by settlement day; <span class="key key-refunded" aria-hidden="true"></span>refunded, by refund day.</figcaption>
  </figure>
</section>
<section class="card" aria-labelledby="payments-title">
  <div class="section-head">
    <h2 id="payments-title">Payments</h2>
    <button type="button" class="btn btn-quiet btn-small" id="payments-refresh">Refresh</button>
  </div>
  ${filterForm(filters, error, csvHref)}
  <p class="status-line" id="payments-status" role="status" aria-live="polite">Loading payments…</p>
  <table class="rtable" id="payments-table" hidden>
    <caption class="visually-hidden">Payments, newest first</caption>
    <thead><tr><th scope="col">Created</th><th scope="col">Amount</th><th scope="col" class="col-status">Status</th><th scope="col">Reference</th><th scope="col">Description</th><th scope="col"><span class="visually-hidden">Links</span></th></tr></thead>
    <tbody id="payments-body"></tbody>
  </table>
  <div class="empty" id="payments-empty" hidden>
    <p id="payments-empty-text">No payments yet.</p>
    <p class="hint" id="payments-empty-hint">Create one from your server with <code>POST /api/v1/payments</code> (see <a href="/app/developers">Developers</a>), or ask the Assistant: “create a payment link for 2500 NGN for a haircut”.</p>
  </div>
  <button type="button" class="btn" id="payments-more" hidden>Load more</button>
</section>`,
  });
}
