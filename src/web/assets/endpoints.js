// Developers screen, "All endpoints": list, add, edit and delete webhook endpoints, enable one a
// 410 Gone disabled, and "Send a test event" to any of them (POST /api/webhook-endpoints/:id/test,
// which answers with the receiver's reply). The default endpoint is edited in the form above it.
import { api, el, setFieldError, setText } from './lib.js';

const table = document.getElementById('endpoints-table');
const tbody = document.getElementById('endpoints-body');
const form = document.getElementById('endpoint-form');
const urlInput = document.getElementById('endpoint-url');
const descInput = document.getElementById('endpoint-description');
const submit = document.getElementById('endpoint-submit');
const cancelEdit = document.getElementById('endpoint-cancel');
const formTitle = document.getElementById('endpoint-form-title');
const boxes = () => Array.from(document.querySelectorAll('input[name="endpoint-event"]'));
let editing; // the endpoint being edited, or undefined when adding

function button(label, hidden, onClick) {
  const b = el('button', { type: 'button', class: 'btn btn-small' }, label, el('span', { class: 'visually-hidden', text: ` ${hidden}` }));
  b.addEventListener('click', () => onClick(b));
  return b;
}

async function sendTest(e, b) {
  b.disabled = true;
  setText('endpoints-status', `Sending a test event to ${e.url}…`);
  const res = await api(`/api/webhook-endpoints/${encodeURIComponent(e.id)}/test`, { method: 'POST' });
  b.disabled = false;
  if (!res.ok) return setText('endpoints-status', `Could not send a test event: ${res.message}`);
  const r = res.body;
  setText(
    'endpoints-status',
    r.succeeded
      ? `Test event ${r.event.type} delivered to ${r.url}: HTTP ${r.status_code} in ${r.latency_ms} ms.`
      : `Test event ${r.event.type} to ${r.url} failed: ${r.error}${r.status_code ? '' : ''} (${r.latency_ms} ms).`,
  );
}

async function enable(e, b) {
  b.disabled = true;
  const res = e.default
    ? await api('/api/webhook-endpoint', { method: 'PUT', body: { url: e.url } })
    : await api(`/api/webhook-endpoints/${encodeURIComponent(e.id)}`, { method: 'PATCH', body: { disabled: false } });
  if (!res.ok) {
    b.disabled = false;
    return setText('endpoints-status', `Could not enable it: ${res.message}`);
  }
  await load(`Enabled ${e.url}.`);
}

/** Delete asks once more in place: "Delete <url>?" with Delete and Keep. */
function askDelete(e, cell) {
  const keep = el('button', { type: 'button', class: 'btn btn-small' }, 'Keep it');
  const yes = el('button', { type: 'button', class: 'btn btn-small btn-danger' }, 'Delete', el('span', { class: 'visually-hidden', text: ` ${e.url}` }));
  const before = Array.from(cell.childNodes);
  cell.replaceChildren(el('span', { class: 'sub', text: 'Delete this endpoint? Events stop going to it.' }), keep, ' ', yes);
  keep.addEventListener('click', () => cell.replaceChildren(...before));
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    const res = await api(`/api/webhook-endpoints/${encodeURIComponent(e.id)}`, { method: 'DELETE' });
    if (!res.ok) return setText('endpoints-status', `Could not delete it: ${res.message}`);
    if (editing?.id === e.id) resetForm();
    await load(`Deleted ${e.url}.`);
  });
  keep.focus();
}

function row(e) {
  const disabled = e.status === 'disabled';
  const badge = el('span', { class: `badge ${disabled ? 'badge-dead' : 'badge-delivered'}`, text: disabled ? 'disabled' : 'enabled' });
  const actions = el('td', { class: 'actions endpoint-actions' });
  actions.append(button('Send test event', `to ${e.url}`, (b) => sendTest(e, b)));
  if (disabled) actions.append(button('Enable', e.url, (b) => enable(e, b)));
  if (!e.default) {
    actions.append(button('Edit', e.url, () => startEdit(e)));
    actions.append(button('Delete', e.url, () => askDelete(e, actions)));
  }
  // Event types as chips that wrap between names, never inside one.
  const events = Array.isArray(e.enabled_events)
    ? el('ul', { class: 'chips' }, e.enabled_events.map((t) => el('li', {}, el('code', { text: t }))))
    : 'all';
  return el(
    'tr',
    { 'data-endpoint-id': e.id },
    el('td', { 'data-label': 'URL', class: 'wrap' }, el('div', {}, el('code', { text: String(e.url) }), el('span', { class: 'sub', text: e.default ? 'default' : e.description ?? '' }))),
    el('td', { 'data-label': 'Events' }, events),
    el('td', { 'data-label': 'Status' }, el('div', {}, badge, disabled && e.disabled_reason ? el('span', { class: 'sub', text: String(e.disabled_reason) }) : null)),
    actions,
  );
}

export async function load(message) {
  const res = await api('/api/webhook-endpoints');
  if (!res.ok || !Array.isArray(res.body?.data)) {
    table.hidden = true;
    return setText('endpoints-status', `Could not load the endpoints. ${res.message ?? ''}`.trim());
  }
  const data = res.body.data;
  tbody.replaceChildren(...data.map(row));
  table.hidden = data.length === 0;
  const off = data.filter((e) => e.status === 'disabled').length;
  const summary = data.length === 0 ? 'No endpoints yet.' : `${data.length} endpoint${data.length === 1 ? '' : 's'}${off ? `, ${off} disabled` : ''}.`;
  setText('endpoints-status', message ? `${message} ${summary}` : summary);
}

function resetForm() {
  editing = undefined;
  form.reset();
  setFieldError(urlInput, '');
  formTitle.textContent = 'Add an endpoint';
  submit.textContent = 'Add endpoint';
  cancelEdit.hidden = true;
}

function startEdit(e) {
  editing = e;
  urlInput.value = e.url;
  descInput.value = e.description ?? '';
  for (const b of boxes()) b.checked = Array.isArray(e.enabled_events) && e.enabled_events.includes(b.value);
  formTitle.textContent = `Edit ${e.url}`;
  submit.textContent = 'Save changes';
  cancelEdit.hidden = false;
  urlInput.focus();
}

form?.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const url = urlInput.value.trim();
  if (!url) {
    setFieldError(urlInput, 'Enter the URL that receives the events.');
    return urlInput.focus();
  }
  const events = boxes().filter((b) => b.checked).map((b) => b.value);
  const description = descInput.value.trim();
  const body = editing
    ? { url, enabled_events: events.length ? events : null, description: description || null }
    : { url, ...(events.length ? { enabled_events: events } : {}), ...(description ? { description } : {}) };
  submit.disabled = true;
  const res = editing
    ? await api(`/api/webhook-endpoints/${encodeURIComponent(editing.id)}`, { method: 'PATCH', body })
    : await api('/api/webhook-endpoints', { method: 'POST', body });
  submit.disabled = false;
  if (!res.ok) {
    setFieldError(urlInput, res.message);
    return urlInput.focus();
  }
  const done = editing ? `Saved ${url}.` : `Added ${url}.`;
  resetForm();
  await load(done);
  // Adding the first endpoint may create the signing secret: the page's secret box shows it once.
  if (typeof res.body?.secret === 'string' && res.body.secret) document.dispatchEvent(new CustomEvent('webhook-secret-created', { detail: res.body.secret }));
});
cancelEdit?.addEventListener('click', resetForm);
document.addEventListener('endpoints-changed', () => void load());

void load();
