// Developers screen: the spend policy editor (docs/policies.md). Reads GET /api/policies and
// /api/keys/:id/policy, saves with PUT and the re-entered password, lists policy.updated events.
import { api, el, errorParam, formatTime, setFieldError, setText } from './lib.js';

const form = document.getElementById('policy-form');
const scope = document.getElementById('pol-scope');
const CAPS = ['per_transaction', 'daily', 'weekly', 'monthly'];
const field = (name) => form.elements.namedItem(name);
const lines = (text) => text.split('\n').map((s) => s.trim()).filter(Boolean);
const path = () => (scope.value === 'account' ? '/api/policies' : `/api/keys/${encodeURIComponent(scope.value)}/policy`);

function fill(policy) {
  for (const c of CAPS) field(c).value = policy.usd?.[c] ?? '';
  field('approval_threshold_usd').value = policy.approval_threshold_usd ?? '';
  field('allow_recipients').value = (policy.allow_recipients ?? []).join('\n');
  field('block_recipients').value = (policy.block_recipients ?? []).join('\n');
  field('currencies').value = Object.entries(policy.currencies ?? {})
    .flatMap(([cur, caps]) => Object.entries(caps).filter(([, v]) => v != null).map(([k, v]) => `${cur} ${k} ${v}`))
    .join('\n');
  const allowed = policy.allowed_actions;
  for (const box of form.querySelectorAll('input[name="allowed_actions"]')) box.checked = !allowed || allowed.includes(box.value);
}

function read() {
  const usd = {};
  for (const c of CAPS) if (field(c).value.trim()) usd[c] = field(c).value.trim();
  const currencies = {};
  for (const line of lines(field('currencies').value)) {
    const [cur = '', cap = '', amount = ''] = line.split(/\s+/);
    (currencies[cur.toUpperCase()] ??= {})[cap] = amount;
  }
  const boxes = [...form.querySelectorAll('input[name="allowed_actions"]')];
  const allowed = boxes.filter((b) => b.checked).map((b) => b.value);
  const policy = {};
  if (Object.keys(usd).length) policy.usd = usd;
  if (Object.keys(currencies).length) policy.currencies = currencies;
  if (field('approval_threshold_usd').value.trim()) policy.approval_threshold_usd = field('approval_threshold_usd').value.trim();
  if (lines(field('allow_recipients').value).length) policy.allow_recipients = lines(field('allow_recipients').value);
  if (lines(field('block_recipients').value).length) policy.block_recipients = lines(field('block_recipients').value);
  if (allowed.length < boxes.length) policy.allowed_actions = allowed;
  return policy;
}

async function load() {
  const r = await api(path());
  if (r.ok) fill(r.body.policy.policy);
  else setText('policy-status', r.message);
}

async function history() {
  const { ok, body: data } = await api('/api/policies/events');
  const list = document.getElementById('policy-history');
  list.replaceChildren();
  if (!ok) return;
  for (const e of data.data) {
    const who = e.data.scope === 'account' ? 'Account policy' : `Key ${e.data.key_id} policy`;
    list.append(el('li', {}, `${formatTime(new Date(e.created * 1000).toISOString())}: ${who} updated (${e.id})`));
  }
}

async function keys() {
  const { ok, body: data } = await api('/api/keys');
  if (!ok) return;
  for (const k of data.keys) scope.append(el('option', { value: k.id }, `Key "${k.label}" (${k.prefix})`));
}

scope.addEventListener('change', () => void load());
form.addEventListener('submit', async (e) => {
  e.preventDefault();
  for (const name of ['password', 'currencies', ...CAPS]) setFieldError(field(name), '');
  setText('policy-status', 'Saving…');
  const { ok, body: data, message } = await api(path(), { method: 'PUT', body: { policy: read(), password: field('password').value } });
  field('password').value = '';
  if (!ok) {
    const param = errorParam(data);
    const target = param && field(param.split('.').pop()) ? field(param.split('.').pop()) : field('password');
    setFieldError(target, message);
    setText('policy-status', 'Not saved.');
    return;
  }
  fill(data.policy.policy);
  setText('policy-status', 'Saved. The change is recorded below.');
  void history();
});

void keys().then(load);
void history();
