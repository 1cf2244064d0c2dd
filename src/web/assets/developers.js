// Developers screen: API keys (create, show once, revoke), webhook endpoint, signing secret
// rotation and the delivery log. Every failure is shown in place; nothing here throws.
import { api, el, errorParam, formatTime, setFieldError, setText, statusBadge, timeEl, wireCopyButtons } from './lib.js';

wireCopyButtons();

// ---------------------------------------------------------------- live / test mode switch
// The app's views follow the `sp_mode` cookie (docs/test-mode.md): the server scopes every
// session request to it, so switching reloads the page and every list shows the other mode.

const viewMode = /(?:^|;\s*)sp_mode=test(?:;|$)/.test(document.cookie) ? 'test' : 'live';
document.getElementById(`mode-${viewMode}`).checked = true;
document.body.dataset.mode = viewMode;
if (viewMode === 'test') {
  setText('mode-status', 'Test data: the webhook endpoints, deliveries and payments of your test keys (sk_test_). Nothing here touches live data.');
}
for (const input of document.querySelectorAll('input[name="view-mode"]')) {
  input.addEventListener('change', () => {
    document.cookie = `sp_mode=${input.value === 'test' ? 'test' : 'live'}; path=/; SameSite=Lax`;
    location.reload();
  });
}

// ---------------------------------------------------------------- one-time secret boxes

function showSecret(id, secret, extra) {
  const box = document.getElementById(id);
  setText(`${id}-value`, secret);
  setText(`${id}-copy-status`, '');
  const extraEl = document.getElementById(`${id}-extra`);
  extraEl.textContent = extra || '';
  extraEl.hidden = !extra;
  box.hidden = false;
  // Move focus to the box so keyboard and screen-reader users land on the secret.
  box.focus();
}

function hideSecret(id) {
  const box = document.getElementById(id);
  box.hidden = true;
  // Remove it from the page, not just from view: it is shown once.
  setText(`${id}-value`, '');
}

document.addEventListener('click', (e) => {
  const btn = e.target instanceof Element ? e.target.closest('[data-dismiss]') : null;
  if (!btn) return;
  const id = btn.getAttribute('data-dismiss');
  hideSecret(id);
  document.getElementById(id === 'new-key' ? 'key-label' : 'webhook-rotate')?.focus();
});

// ---------------------------------------------------------------- confirmation dialog

const dialog = document.getElementById('confirm-dialog');
const dialogForm = dialog.querySelector('form');
const confirmOk = document.getElementById('confirm-ok');
const confirmCancel = document.getElementById('confirm-cancel');
let pending = null;

/**
 * A modal confirm step (a real <dialog>: focus is trapped, Escape cancels). `action` runs on
 * Confirm; on failure its message stays in the dialog, on success the dialog closes.
 */
function confirmStep({ title, text, confirmLabel, action, returnFocus }) {
  setText('confirm-title', title);
  setText('confirm-text', text);
  setText('confirm-error', '');
  confirmOk.textContent = confirmLabel;
  pending = { action, returnFocus };
  dialog.showModal();
  confirmCancel.focus();
}

dialogForm.addEventListener('submit', async (e) => {
  if (e.submitter !== confirmOk || !pending) return; // Cancel closes the dialog natively.
  e.preventDefault();
  confirmOk.disabled = true;
  confirmCancel.disabled = true;
  confirmOk.setAttribute('aria-busy', 'true');
  const { action, returnFocus } = pending;
  const result = await action();
  confirmOk.disabled = false;
  confirmCancel.disabled = false;
  confirmOk.removeAttribute('aria-busy');
  if (result && result.error) {
    setText('confirm-error', result.error);
    return;
  }
  pending = null;
  dialog.close('confirm');
  // Page content is inert while the modal is open, so what the action shows comes after.
  result?.after?.();
  (typeof returnFocus === 'function' ? returnFocus() : returnFocus)?.focus();
});

dialog.addEventListener('cancel', (e) => {
  // While the action runs, Escape must not hide its outcome.
  if (confirmOk.disabled) e.preventDefault();
});
dialog.addEventListener('close', () => {
  if (dialog.returnValue !== 'confirm' && pending) {
    const { returnFocus } = pending;
    pending = null;
    (typeof returnFocus === 'function' ? returnFocus() : returnFocus)?.focus();
  }
});

// ---------------------------------------------------------------- API keys

const keyForm = document.getElementById('key-form');
const keyLabel = document.getElementById('key-label');
const keysTable = document.getElementById('keys-table');
const keysBody = document.getElementById('keys-body');

function keyRow(k) {
  const revoke = el(
    'button',
    { type: 'button', class: 'btn btn-danger-quiet btn-small', 'data-revoke': k.id },
    'Revoke',
    el('span', { class: 'visually-hidden', text: ` key ${k.label}` }),
  );
  revoke.addEventListener('click', () =>
    confirmStep({
      title: 'Revoke this API key?',
      text: `Requests using “${k.label}” (${k.prefix}) will be refused with 401 immediately. This cannot be undone.`,
      confirmLabel: 'Revoke key',
      returnFocus: () => keysBody.querySelector('[data-revoke]') ?? keyLabel,
      action: async () => {
        const res = await api(`/api/keys/${encodeURIComponent(k.id)}`, { method: 'DELETE' });
        if (!res.ok && res.status !== 404) return { error: res.message };
        await loadKeys(`Key “${k.label}” revoked.`);
        return {};
      },
    }),
  );
  return el(
    'tr',
    { 'data-key-id': k.id },
    el('td', { 'data-label': 'Label', class: 'wrap', text: k.label }),
    el('td', { 'data-label': 'Key' }, el('code', { text: k.prefix })),
    el('td', { 'data-label': 'Mode' }, el('span', { class: `badge mode-${k.mode}`, 'data-mode': k.mode, text: k.mode === 'test' ? 'Test' : 'Live' })),
    el('td', { 'data-label': 'Created' }, timeEl(k.createdAt)),
    el('td', { class: 'actions' }, revoke),
  );
}

async function loadKeys(message) {
  const res = await api('/api/keys');
  if (!res.ok || !res.body || !Array.isArray(res.body.keys)) {
    setText('keys-status', `Could not load your keys. ${res.message}`.trim());
    return;
  }
  const keys = res.body.keys;
  keysBody.replaceChildren(...keys.map(keyRow));
  keysTable.hidden = keys.length === 0;
  const summary = keys.length === 0 ? 'No active keys yet. Create one above.' : `${keys.length} active key${keys.length === 1 ? '' : 's'}.`;
  setText('keys-status', message ? `${message} ${summary}` : summary);
}

function labelError(value) {
  const v = value.trim();
  if (!v) return 'Enter a label for the key (1-60 characters).';
  if (v.length > 60) return 'The label must be 60 characters or fewer.';
  return '';
}

keyForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const msg = labelError(keyLabel.value);
  setFieldError(keyLabel, msg);
  if (msg) {
    keyLabel.focus();
    return;
  }
  const button = keyForm.querySelector('button[type="submit"]');
  button.disabled = true;
  const mode = document.getElementById('key-mode').value === 'test' ? 'test' : 'live';
  const res = await api('/api/keys', { method: 'POST', body: { label: keyLabel.value.trim(), mode } });
  button.disabled = false;
  if (!res.ok || !res.body?.key?.secret) {
    // Server-side validation (or any failure) is shown under the field.
    setFieldError(keyLabel, errorParam(res.body) === 'label' ? `Label ${res.message.replace(/^Invalid label: /, '')}` : res.message || 'Could not create the key.');
    keyLabel.focus();
    return;
  }
  keyLabel.value = '';
  showSecret('new-key', res.body.key.secret);
  await loadKeys(`Key “${res.body.key.label}” created.`);
});

keyLabel.addEventListener('input', () => {
  if (keyLabel.getAttribute('aria-invalid') === 'true' && !labelError(keyLabel.value)) setFieldError(keyLabel, '');
});

// ---------------------------------------------------------------- webhook endpoint

const hookForm = document.getElementById('webhook-form');
const hookUrl = document.getElementById('webhook-url');
const rotate = document.getElementById('webhook-rotate');
let hasSecret = true;

function urlError(value) {
  const v = value.trim();
  if (!v) return '';
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? '' : 'Use an http:// or https:// URL.';
  } catch {
    return 'Enter a full URL, like https://example.com/webhooks.';
  }
}

async function loadEndpoint() {
  const res = await api('/api/webhook-endpoint');
  if (res.status === 404 && !res.body?.url) {
    setText('webhook-status', '');
    return;
  }
  if (!res.ok || !res.body) {
    setText('webhook-status', `Could not load the webhook endpoint. ${res.message}`.trim());
    return;
  }
  hookUrl.value = res.body.url ?? '';
  // A receiver that answered 410 Gone disabled the endpoint: say so, and how to turn it back on.
  if (res.body.status === 'disabled') {
    setText('webhook-status', `This endpoint is disabled: ${res.body.disabled_reason ?? 'it answered 410 Gone'} Save it again to enable it.`);
  }
  // Without a secret yet, the button creates the first one (no confirmation needed).
  if (typeof res.body.secret_configured === 'boolean') hasSecret = res.body.secret_configured;
  showSecretInfo(res.body.secret_created_at, res.body.previous_secret_expires_at);
}

function showSecretInfo(createdAt, previousExpiresAt) {
  rotate.textContent = hasSecret ? 'Rotate signing secret' : 'Create signing secret';
  const parts = [];
  if (!hasSecret) parts.push('No signing secret yet.');
  else if (createdAt) parts.push(`Current secret created ${formatTime(createdAt)}.`);
  if (previousExpiresAt && Date.parse(previousExpiresAt) > Date.now()) {
    parts.push(`The previous secret keeps working until ${formatTime(previousExpiresAt)}.`);
  }
  setText('webhook-secret-info', parts.join(' '));
}

hookForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  const msg = urlError(hookUrl.value);
  setFieldError(hookUrl, msg);
  if (msg) {
    hookUrl.focus();
    return;
  }
  const url = hookUrl.value.trim();
  const button = hookForm.querySelector('button[type="submit"]');
  button.disabled = true;
  const res = await api('/api/webhook-endpoint', { method: 'PUT', body: { url: url || null } });
  button.disabled = false;
  if (!res.ok) {
    setFieldError(hookUrl, res.message);
    hookUrl.focus();
    setText('webhook-status', '');
    return;
  }
  setText('webhook-status', url ? 'Webhook endpoint saved.' : 'Webhook endpoint removed.');
  loadEndpoints();
  // Saving the first endpoint creates the signing secret and returns it, once.
  if (typeof res.body?.secret === 'string' && res.body.secret) {
    hasSecret = true;
    showSecretInfo(new Date().toISOString());
    setText('webhook-secret-status', 'A signing secret was created for your endpoint.');
    showSecret('webhook-secret', res.body.secret);
  }
});

hookUrl.addEventListener('input', () => {
  if (hookUrl.getAttribute('aria-invalid') === 'true' && !urlError(hookUrl.value)) setFieldError(hookUrl, '');
});

// ---------------------------------------------------------------- signing secret

async function rotateSecret() {
  const res = await api('/api/webhook-secret', { method: 'POST', body: {} });
  if (!res.ok || !res.body?.secret) return { error: res.message || 'Could not rotate the secret.' };
  const prev = res.body.previous_expires_at;
  const extra = prev ? `The previous secret keeps working until ${formatTime(prev)}.` : '';
  hasSecret = true;
  showSecretInfo(new Date().toISOString(), prev);
  setText('webhook-secret-status', 'New signing secret created.');
  const secret = res.body.secret;
  return { after: () => showSecret('webhook-secret', secret, extra) };
}

rotate.addEventListener('click', async () => {
  setText('webhook-secret-status', '');
  if (!hasSecret) {
    rotate.disabled = true;
    const r = await rotateSecret();
    rotate.disabled = false;
    if (r.error) setText('webhook-secret-status', r.error);
    else r.after();
    return;
  }
  confirmStep({
    title: 'Rotate the signing secret?',
    text: 'A new secret is created and shown once. Events are signed with both secrets during the overlap period, then with the new one only.',
    confirmLabel: 'Rotate secret',
    returnFocus: () => (document.getElementById('webhook-secret').hidden ? rotate : null),
    action: rotateSecret,
  });
});

// All endpoints (add, edit, delete, test): assets/endpoints.js; it reloads on 'endpoints-changed'.
function loadEndpoints() {
  document.dispatchEvent(new CustomEvent('endpoints-changed'));
}
// Adding the account's first endpoint there created the signing secret: shown once, here.
document.addEventListener('webhook-secret-created', (e) => {
  hasSecret = true;
  showSecretInfo(new Date().toISOString());
  setText('webhook-secret-status', 'A signing secret was created for your endpoint.');
  showSecret('webhook-secret', e.detail);
});

// ---------------------------------------------------------------- delivery log

const dTable = document.getElementById('deliveries-table');
const dBody = document.getElementById('deliveries-body');

function attemptsCell(d) {
  const attempts = Array.isArray(d.attempts) ? d.attempts : [];
  if (attempts.length === 0) return el('td', { 'data-label': 'Attempts', text: 'None yet' });
  const items = attempts.map((a) => {
    const outcome = a.status_code ? `HTTP ${a.status_code}` : a.error ? String(a.error) : 'no response';
    const latency = typeof a.latency_ms === 'number' ? ` · ${a.latency_ms} ms` : '';
    const trigger = a.trigger && a.trigger !== 'schedule' ? ` · ${a.trigger}` : '';
    return el('li', {}, timeEl(a.at), ` — ${outcome}${latency}${trigger}`, a.status_code && a.error ? el('span', { class: 'sub', text: String(a.error) }) : null);
  });
  return el(
    'td',
    { 'data-label': 'Attempts' },
    el('details', {}, el('summary', { text: `${attempts.length} attempt${attempts.length === 1 ? '' : 's'}` }), el('ol', { class: 'attempts' }, items)),
  );
}

function deliveryRow(d) {
  const type = d.event_type ?? d.type ?? 'event';
  const redeliver = el('button', { type: 'button', class: 'btn btn-small', 'data-redeliver': d.id }, 'Redeliver', el('span', { class: 'visually-hidden', text: ` ${type} ${d.event_id ?? d.id}` }));
  redeliver.addEventListener('click', async () => {
    redeliver.disabled = true;
    redeliver.setAttribute('aria-busy', 'true');
    setText('deliveries-status', 'Redelivering…');
    const res = await api(`/api/webhook-deliveries/${encodeURIComponent(d.id)}/redeliver`, { method: 'POST', body: {} });
    if (!res.ok) {
      redeliver.disabled = false;
      redeliver.removeAttribute('aria-busy');
      setText('deliveries-status', `Could not redeliver: ${res.message}`);
      return;
    }
    // The server makes the attempt before answering: report how it went.
    const after = res.body?.delivery;
    const last = Array.isArray(after?.attempts) ? after.attempts[after.attempts.length - 1] : undefined;
    const how = last ? (last.status_code ? `HTTP ${last.status_code}` : last.error ? String(last.error) : '') : '';
    await loadDeliveries(after?.status ? `Redelivered: ${after.status}${how ? ` (${how})` : ''}.` : 'Redelivery queued.');
  });
  const when = d.created_at ?? d.createdAt ?? (Array.isArray(d.attempts) && d.attempts[0] ? d.attempts[0].at : undefined);
  return el(
    'tr',
    { 'data-delivery-id': d.id },
    el('td', { 'data-label': 'Time' }, timeEl(when)),
    el('td', { 'data-label': 'Event', class: 'wrap' }, el('div', {}, el('code', { text: type }), d.url ? el('span', { class: 'sub', text: String(d.url) }) : null)),
    el('td', { 'data-label': 'Payment', class: 'wrap' }, el('code', { text: d.payment_id ?? '—' })),
    el('td', { 'data-label': 'Status' }, statusBadge(d.status)),
    attemptsCell(d),
    el('td', { class: 'actions' }, redeliver),
  );
}

async function loadDeliveries(message) {
  const res = await api('/api/webhook-deliveries?limit=20');
  if (!res.ok || !res.body || !Array.isArray(res.body.data)) {
    dTable.hidden = true;
    setText('deliveries-status', res.status === 404 ? 'The delivery log is not available yet.' : `Could not load deliveries. ${res.message}`.trim());
    return;
  }
  const data = res.body.data;
  dBody.replaceChildren(...data.map(deliveryRow));
  dTable.hidden = data.length === 0;
  const summary =
    data.length === 0
      ? 'No deliveries yet. Events appear here once a payment with a webhook endpoint changes state.'
      : `Showing the ${data.length} most recent deliver${data.length === 1 ? 'y' : 'ies'}${res.body.has_more ? ' (older ones are not shown)' : ''}.`;
  setText('deliveries-status', message ? `${message} ${summary}` : summary);
}

document.getElementById('deliveries-refresh').addEventListener('click', () => void loadDeliveries());

void loadKeys();
void loadEndpoint();
void loadDeliveries();
