import { formatEther, formatUnits } from 'viem';
import { groupThousands } from '../../lib/money.js';
import { hashHtml, timeHtml } from '../format.js';
import type { X402Usage } from '../../x402/x402-schemas.js';
import { EVENT_TYPES } from '../../webhooks/webhook-schemas.js';
import { escapeHtml, layout, type SignedInAccount } from '../layout.js';
import { policiesSection } from './policies-section.js';

export const KEY_ONCE_WARNING = 'This key will only be shown once. Store it securely; if lost, revoke it and create a new one.';

/** A one-time secret: highlighted, copyable, dismissible (dismissing removes it from the page). */
function secretBox(id: string, title: string, warning: string): string {
  return `<div class="secret-box" id="${id}" role="region" aria-labelledby="${id}-title" tabindex="-1" hidden>
  <h3 id="${id}-title">${escapeHtml(title)}</h3>
  <div class="secret-row">
    <code class="secret" id="${id}-value"></code>
    <button type="button" class="btn btn-small" data-copy="${id}-value">Copy</button>
  </div>
  <p class="copy-status" id="${id}-copy-status" role="status" aria-live="polite"></p>
  <p class="warning"><strong>${escapeHtml(warning)}</strong></p>
  <p class="secret-extra" id="${id}-extra" hidden></p>
  <button type="button" class="btn btn-quiet btn-small" data-dismiss="${id}">I have stored it</button>
</div>`;
}

/** Gas cost in the native coin, to 8 decimals (rounded half up), never 18 digits: "0.00004321". */
export function nativeText(wei: string): string {
  const w = BigInt(wei);
  if (w > 0n && w < 5_000_000_000n) return '< 0.00000001';
  const [int, frac = ''] = formatUnits((w + 5_000_000_000n) / 10_000_000_000n, 8).split('.');
  return `${groupThousands(int!)}${frac ? `.${frac}` : ''}`;
}

/** Developers screen: API keys, a ping snippet and webhooks; driven by assets/developers.js. */
/** What the relayer paid in gas for this account's x402 facilitator settles (GET /api/x402/usage). */
function x402Section(base: string, usage: X402Usage): string {
  const rows = usage.recent
    .map(
      (r) =>
        `<tr><td data-label="Time">${timeHtml(r.created_at)}</td><td data-label="Transaction">${hashHtml(r.transaction)}</td><td data-label="Gas used">${escapeHtml(groupThousands(r.gas_used))}</td><td data-label="Gas cost">${escapeHtml(nativeText(r.gas_cost_wei))}</td></tr>`,
    )
    .join('');
  return `<section class="card" aria-labelledby="x402-title">
  <h2 id="x402-title">x402 facilitator</h2>
  <p>AI agents pay your own API over x402 with StablePay as the facilitator: point <code>HTTPFacilitatorClient</code> at <code>${escapeHtml(base)}/api/x402</code> with your secret key. Our relayer pays the gas of every settle; this is what it spent for you on <code>${escapeHtml(usage.network)}</code>.</p>
  <dl class="facts facts-wide" id="x402-usage" data-settlements="${usage.settlements}" data-gas-used="${escapeHtml(usage.gas_used)}" data-gas-cost-wei="${escapeHtml(usage.gas_cost_wei)}">
    <div><dt>Settlements</dt><dd id="x402-settlements">${usage.settlements}</dd></div>
    <div><dt>Gas used</dt><dd id="x402-gas-used">${escapeHtml(groupThousands(usage.gas_used))}</dd></div>
    <div><dt>Gas cost</dt><dd id="x402-gas-cost"><span title="${escapeHtml(formatEther(BigInt(usage.gas_cost_wei)))}">${escapeHtml(nativeText(usage.gas_cost_wei))}</span> (native currency, paid by us)</dd></div>
  </dl>
  ${
    rows
      ? `<h3 id="x402-recent-title">Most recent settlements</h3><table class="rtable" id="x402-recent" aria-labelledby="x402-recent-title"><thead><tr><th scope="col">Time</th><th scope="col">Transaction</th><th scope="col">Gas used</th><th scope="col">Gas cost</th></tr></thead><tbody>${rows}</tbody></table>`
      : '<p class="hint">No x402 settlements yet.</p>'
  }
  <p class="hint">The same figures as JSON: <code>GET /api/x402/usage</code>.</p>
</section>`;
}

export function developersPage(account: SignedInAccount, publicUrl: string, x402Usage?: X402Usage): string {
  const base = publicUrl.replace(/\/+$/, '');
  return layout({
    title: 'Developers',
    account,
    active: 'developers',
    scripts: ['developers.js', 'endpoints.js', 'policies.js'],
    body: `<h1>Developers</h1>
<p class="lede">Secret keys let your server create payments and call the agent. Keep them server-side: never in browser code or source control.</p>

<fieldset class="card mode-switch" id="mode-switch">
  <legend>Viewing</legend>
  <label class="check"><input type="radio" name="view-mode" value="live" id="mode-live" checked> Live data</label>
  <label class="check"><input type="radio" name="view-mode" value="test" id="mode-test"> Test data</label>
  <p class="hint" id="mode-status" role="status" aria-live="polite">Live data: the webhook endpoints, deliveries and payments of your live keys (<code>sk_live_</code>).</p>
</fieldset>

<section class="card" aria-labelledby="keys-title">
  <h2 id="keys-title">API keys</h2>
  <form id="key-form" class="inline-form" novalidate>
    <div class="field">
      <label for="key-label">Key label</label>
      <input id="key-label" name="label" type="text" maxlength="60" required autocomplete="off" aria-describedby="key-label-hint key-label-error" placeholder="e.g. Production server">
      <p class="hint" id="key-label-hint">1-60 characters, to tell your keys apart.</p>
      <p class="field-error" id="key-label-error" hidden></p>
    </div>
    <div class="field">
      <label for="key-mode">Mode</label>
      <select id="key-mode" name="mode" aria-describedby="key-mode-hint">
        <option value="live" selected>Live (sk_live_)</option>
        <option value="test">Test (sk_test_)</option>
      </select>
      <p class="hint" id="key-mode-hint">A test key sees and makes test-mode objects only.</p>
    </div>
    <button type="submit" class="btn btn-primary">Create key</button>
  </form>
  ${secretBox('new-key', 'Your new secret key', KEY_ONCE_WARNING)}
  <p class="status-line" id="keys-status" role="status" aria-live="polite">Loading keys…</p>
  <table class="rtable" id="keys-table" hidden>
    <caption class="visually-hidden">Active API keys</caption>
    <thead><tr><th scope="col">Label</th><th scope="col">Key</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="keys-body"></tbody>
  </table>
</section>

<section class="card" aria-labelledby="test-title">
  <h2 id="test-title">Test your key</h2>
  <p>Call the ping endpoint with your secret key; it answers with the account the key belongs to.</p>
  <div class="snippet">
    <pre><code id="ping-snippet">curl ${escapeHtml(base)}/api/v1/ping \\
  -H "Authorization: Bearer sk_live_..."</code></pre>
    <button type="button" class="btn btn-small" data-copy="ping-snippet">Copy</button>
  </div>
  <p class="copy-status" id="ping-snippet-copy-status" role="status" aria-live="polite"></p>
  <p class="hint">Expected answer: <code>{"ok":true,"account":"acct_…","live":true}</code>. A missing, invalid or revoked key gets <code>401</code>.</p>
</section>

<section class="card" aria-labelledby="webhooks-title">
  <h2 id="webhooks-title">Webhooks</h2>
  <p>We POST <code>payment.*</code> and <code>refund.*</code> events to your endpoint, signed in the <code>service-signature</code> header (<code>t=&lt;unix seconds&gt;,v1=&lt;HMAC-SHA256 of "t.body"&gt;</code>) and with the Standard Webhooks headers (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>), which the <code>standardwebhooks</code> and <code>svix</code> libraries verify with your <code>whsec_</code> secret. Answer 2xx quickly; failed deliveries are retried for about 3 days. An endpoint that answers <code>410 Gone</code> is disabled.</p>

  <h3>Endpoint</h3>
  <form id="webhook-form" class="inline-form" novalidate>
    <div class="field">
      <label for="webhook-url">Endpoint URL</label>
      <input id="webhook-url" name="url" type="url" inputmode="url" autocomplete="url" maxlength="2048" aria-describedby="webhook-url-hint webhook-url-error" placeholder="https://example.com/webhooks">
      <p class="hint" id="webhook-url-hint">Your default endpoint, for payments created without their own <code>webhook_url</code>. Leave empty and save to remove it.</p>
      <p class="field-error" id="webhook-url-error" hidden></p>
    </div>
    <button type="submit" class="btn btn-primary">Save endpoint</button>
  </form>
  <p class="status-line" id="webhook-status" role="status" aria-live="polite"></p>

  <h3 id="endpoints-title">All endpoints</h3>
  <p class="hint">The default endpoint and any others, each with the event types it gets. <strong>Send test event</strong> posts a signed sample event there now and shows the answer. One that answered <code>410 Gone</code> is disabled until you enable it again.</p>
  <p class="status-line" id="endpoints-status" role="status" aria-live="polite">Loading endpoints…</p>
  <table class="rtable" id="endpoints-table" aria-labelledby="endpoints-title" hidden>
    <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="endpoints-body"></tbody>
  </table>
  <form id="endpoint-form" class="stack endpoint-form" novalidate aria-labelledby="endpoint-form-title">
    <h4 id="endpoint-form-title">Add an endpoint</h4>
    <div class="field">
      <label for="endpoint-url">Receiver URL</label>
      <input type="url" id="endpoint-url" name="url" maxlength="2048" autocomplete="off" placeholder="https://erp.example.com/hooks" aria-describedby="endpoint-url-error">
      <p class="field-error" id="endpoint-url-error" hidden></p>
    </div>
    <div class="field">
      <label for="endpoint-description">Description <span class="hint">(optional)</span></label>
      <input type="text" id="endpoint-description" name="description" maxlength="200" autocomplete="off">
    </div>
    <fieldset class="event-types">
      <legend>Event types <span class="hint">(none ticked: all)</span></legend>
      ${EVENT_TYPES.map((t) => `<label class="check"><input type="checkbox" name="endpoint-event" value="${t}"> <code>${t}</code></label>`).join('')}
    </fieldset>
    <div class="form-actions">
      <button type="submit" class="btn btn-primary" id="endpoint-submit">Add endpoint</button>
      <button type="button" class="btn" id="endpoint-cancel" hidden>Cancel</button>
    </div>
  </form>

  <h3>Signing secret</h3>
  <p>Live and test mode each have their own <code>whsec_</code> secret: test events are signed with the test one only. The switch above picks which one you rotate. Rotating creates a new secret; the previous one keeps working for an overlap period, so you can deploy the new one without dropping events.</p>
  <p class="status-line" id="webhook-secret-info"></p>
  <button type="button" class="btn" id="webhook-rotate">Rotate signing secret</button>
  <p class="status-line" id="webhook-secret-status" role="status" aria-live="polite"></p>
  ${secretBox('webhook-secret', 'Your new signing secret', 'This secret will only be shown once. Store it securely; if lost, rotate it again.')}

  <div class="section-head">
    <h3 id="deliveries-title">Recent deliveries</h3>
    <button type="button" class="btn btn-quiet btn-small" id="deliveries-refresh">Refresh</button>
  </div>
  <p class="status-line" id="deliveries-status" role="status" aria-live="polite">Loading deliveries…</p>
  <table class="rtable" id="deliveries-table" aria-labelledby="deliveries-title" hidden>
    <thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Payment</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody id="deliveries-body"></tbody>
  </table>
</section>

${policiesSection()}

${x402Usage ? x402Section(base, x402Usage) : ''}

<dialog id="confirm-dialog" class="dialog" aria-labelledby="confirm-title" aria-describedby="confirm-text">
  <form method="dialog">
    <h2 id="confirm-title"></h2>
    <p id="confirm-text"></p>
    <p class="form-error" id="confirm-error" role="alert"></p>
    <div class="dialog-actions">
      <button type="submit" value="cancel" class="btn" id="confirm-cancel" autofocus>Cancel</button>
      <button type="submit" value="confirm" class="btn btn-danger" id="confirm-ok"></button>
    </div>
  </form>
</dialog>`,
  });
}
