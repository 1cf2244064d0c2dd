// The in-app Assistant: a collapsible panel that talks to POST /api/chat with the session
// cookie. A money-moving request comes back as a pending action the person must Confirm or
// Cancel. The conversation lives in sessionStorage so it follows the person across pages
// and ends with the browser session (and on log out).
import { api, el } from './lib.js';

const STORE = 'sp.chat.v1';
const MAX_MESSAGES = 100;

const root = document.getElementById('chat');
const toggle = document.getElementById('chat-toggle');
const panel = document.getElementById('chat-panel');
const log = document.getElementById('chat-log');
const form = document.getElementById('chat-form');
const input = document.getElementById('chat-input');
const send = document.getElementById('chat-send');

/** @type {{open: boolean, messages: Array<any>}} */
let state = load();

function load() {
  try {
    const s = JSON.parse(sessionStorage.getItem(STORE) ?? 'null');
    if (s && Array.isArray(s.messages)) return { open: Boolean(s.open), messages: s.messages };
  } catch {
    /* corrupt or unavailable storage: start fresh */
  }
  return { open: false, messages: [] };
}

function save() {
  state.messages = state.messages.slice(-MAX_MESSAGES);
  try {
    sessionStorage.setItem(STORE, JSON.stringify(state));
  } catch {
    /* storage full or disabled: the conversation just won't survive navigation */
  }
}

let seq = 0;
const newId = () => `m${Date.now().toString(36)}${(seq++).toString(36)}`;

// ---------------------------------------------------------------- rendering

const URL_RE = /https?:\/\/[^\s<>"'`]+/g;

/** Text with http(s) URLs turned into links; everything else stays text. */
function richText(text) {
  const out = [];
  let last = 0;
  for (const m of String(text).matchAll(URL_RE)) {
    let url = m[0];
    const trail = /[.,;:!?)\]]+$/.exec(url);
    if (trail) url = url.slice(0, -trail[0].length);
    out.push(String(text).slice(last, m.index));
    out.push(safeLink(url) ?? url);
    last = m.index + url.length;
  }
  out.push(String(text).slice(last));
  return out.filter((x) => x !== '');
}

function safeLink(href, label) {
  try {
    const u = new URL(href, location.origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return el('a', { href: u.href, rel: 'noopener noreferrer', text: label ?? href });
  } catch {
    return null;
  }
}

const WHO = { user: 'You', assistant: 'Assistant', error: 'Assistant (error)', notice: 'Note' };

function pendingBox(msg) {
  const p = msg.pending;
  const expired = p.state === 'open' && p.expires_at && Date.parse(p.expires_at) <= Date.now();
  const closed = p.state !== 'open' || expired;
  const confirm = el('button', { type: 'button', class: 'btn btn-primary btn-small', 'data-chat-confirm': p.id, disabled: closed }, 'Confirm');
  const cancel = el('button', { type: 'button', class: 'btn btn-small', 'data-chat-cancel': p.id, disabled: closed }, 'Cancel');
  confirm.addEventListener('click', () => void decide(msg.id, 'confirm'));
  cancel.addEventListener('click', () => void decide(msg.id, 'cancel'));
  const outcome = {
    busy: 'Working…',
    confirmed: 'Confirmed.',
    cancelled: 'Cancelled.',
    replaced: 'Replaced by the corrected request below; this one moves nothing.',
    expired: 'This request expired. Ask again if you still want it.',
    failed: 'Not done.',
    unknown: 'Outcome unknown: the page changed while this was running. Check the dashboard before trying again.',
  }[p.state];
  const labelId = `${msg.id}-desc`;
  return el(
    'div',
    { class: 'pending', role: 'group', 'aria-labelledby': labelId },
    el('p', { class: 'pending-title', text: 'Needs your confirmation' }),
    el('p', { id: labelId, class: 'pending-desc', text: p.description }),
    p.expires_at && !closed ? el('p', { class: 'sub', text: `Expires at ${new Date(p.expires_at).toLocaleTimeString()}.` }) : null,
    el('div', { class: 'pending-actions' }, confirm, cancel),
    expired ? el('p', { class: 'sub', text: 'This request expired. Ask again if you still want it.' }) : outcome ? el('p', { class: 'sub', text: outcome }) : null,
  );
}

function messageEl(msg) {
  const li = el(
    'li',
    { class: `msg msg-${msg.role}`, 'data-msg-id': msg.id },
    el('span', { class: 'visually-hidden', text: `${WHO[msg.role] ?? 'Assistant'}: ` }),
    msg.text ? el('p', { class: 'msg-text' }, richText(msg.text)) : null,
  );
  if (msg.link && !String(msg.text ?? '').includes(msg.link.href)) {
    const a = safeLink(msg.link.href, msg.link.label);
    if (a) li.append(el('p', { class: 'msg-link' }, a));
  }
  if (msg.pending) li.append(pendingBox(msg));
  return li;
}

function renderAll() {
  log.replaceChildren(...state.messages.map(messageEl));
  log.scrollTop = log.scrollHeight;
}

function add(msg) {
  const m = { id: newId(), ...msg };
  state.messages.push(m);
  save();
  log.append(messageEl(m));
  log.scrollTop = log.scrollHeight;
  return m;
}

function rerender(id) {
  const m = state.messages.find((x) => x.id === id);
  const node = log.querySelector(`[data-msg-id="${CSS.escape(id)}"]`);
  if (m && node) node.replaceWith(messageEl(m));
}

let thinking = null;
function setThinking(on) {
  if (on && !thinking) {
    thinking = el('li', { class: 'msg msg-thinking', 'aria-label': 'Assistant is thinking' }, el('p', { class: 'msg-text', text: 'Thinking…' }));
    log.append(thinking);
    log.scrollTop = log.scrollHeight;
  } else if (!on && thinking) {
    thinking.remove();
    thinking = null;
  }
}

// ---------------------------------------------------------------- talking to the server

/** Turns any answer (success, {ok:false,reply}, 429, network failure) into a thread message. */
function replyMessage(res) {
  const b = res.body && typeof res.body === 'object' ? res.body : {};
  if (res.status === 429) {
    const after = Number(res.headers.get('Retry-After'));
    const wait = Number.isFinite(after) && after > 0 ? ` Try again in ${Math.ceil(after)} second${Math.ceil(after) === 1 ? '' : 's'}.` : ' Try again shortly.';
    return { role: 'error', text: `${typeof b.reply === 'string' ? b.reply : 'Too many messages.'}${wait}` };
  }
  if (!res.ok || b.ok === false) {
    return { role: 'error', text: typeof b.reply === 'string' && b.reply ? b.reply : res.message || 'The assistant could not answer. Try again.' };
  }
  const msg = { role: 'assistant', text: typeof b.reply === 'string' && b.reply ? b.reply : 'Done.' };
  const checkout = b.payment && typeof b.payment === 'object' ? b.payment.checkout_url : undefined;
  if (typeof checkout === 'string') msg.link = { href: checkout, label: 'Open the checkout page' };
  const p = b.pending_action;
  if (p && typeof p === 'object' && typeof p.id === 'string' && (p.status === undefined || p.status === 'pending')) {
    const description = String(p.description || 'Confirm this action?');
    msg.pending = { id: p.id, description, expires_at: p.expires_at, state: 'open' };
    // The reply usually repeats the description; the confirmation box already shows it.
    if (msg.text.startsWith(description)) msg.text = '';
  }
  return msg;
}

async function sendMessage(text) {
  add({ role: 'user', text });
  send.disabled = true;
  send.setAttribute('aria-busy', 'true');
  setThinking(true);
  const res = await api('/api/chat', { method: 'POST', body: { message: text } });
  setThinking(false);
  send.disabled = false;
  send.removeAttribute('aria-busy');
  closeDecided(res.body);
  add(replyMessage(res));
}

/**
 * A typed answer ("cancel") or correction ("make it 3k") about a held action closes its earlier box:
 * its buttons would move nothing, so they go (the box says why).
 */
function closeDecided(body) {
  const b = body && typeof body === 'object' ? body : {};
  const decided = [
    [b.pending_action, b.pending_action?.status],
    [b.replaced_action, 'replaced'],
  ];
  for (const [p, status] of decided) {
    if (!p || typeof p.id !== 'string' || !status || status === 'pending') continue;
    const next = { cancelled: 'cancelled', replaced: 'replaced', expired: 'expired', executing: 'confirmed', done: 'confirmed' }[status];
    if (!next) continue;
    for (const m of state.messages) {
      if (m.pending?.id !== p.id || m.pending.state !== 'open') continue;
      m.pending.state = next;
      rerender(m.id);
    }
  }
  save();
}

/** Confirm or Cancel a pending action: one click only; both buttons are disabled at once. */
async function decide(msgId, what) {
  const msg = state.messages.find((m) => m.id === msgId);
  if (!msg?.pending || msg.pending.state !== 'open') return;
  msg.pending.state = 'busy';
  save();
  rerender(msgId);
  const res = await api(`/api/chat/${what}`, { method: 'POST', body: { action_id: msg.pending.id } });
  const reply = replyMessage(res);
  const reason = res.body && typeof res.body === 'object' ? res.body.reason : undefined;
  // A box whose action was cancelled or expired elsewhere (a typed "cancel" in another tab) says so.
  msg.pending.state = reason === 'cancelled' || reason === 'expired' ? reason : reply.role === 'error' ? 'failed' : what === 'confirm' ? 'confirmed' : 'cancelled';
  save();
  rerender(msgId);
  add(reply.role === 'error' ? reply : { ...reply, pending: undefined, text: reply.text || (what === 'confirm' ? 'Done.' : 'Cancelled.') });
}

// ---------------------------------------------------------------- open / close

function setOpen(open, { focus = true } = {}) {
  state.open = open;
  save();
  panel.hidden = !open;
  toggle.setAttribute('aria-expanded', String(open));
  root.classList.toggle('chat-open', open);
  if (open) {
    log.scrollTop = log.scrollHeight;
    if (focus) input.focus();
  } else if (focus) {
    toggle.focus();
  }
}

toggle.addEventListener('click', () => setOpen(panel.hidden));
document.getElementById('chat-close').addEventListener('click', () => setOpen(false));
document.getElementById('chat-clear').addEventListener('click', () => {
  state.messages = [];
  save();
  renderAll();
  input.focus();
});
panel.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') setOpen(false);
});

form.addEventListener('submit', (e) => {
  e.preventDefault();
  const text = input.value.trim();
  if (!text || send.disabled) return;
  if (text.length > 500) {
    add({ role: 'error', text: 'Messages can be at most 500 characters.' });
    return;
  }
  input.value = '';
  void sendMessage(text);
});

input.addEventListener('keydown', (e) => {
  // Enter sends; Shift+Enter adds a line.
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    form.requestSubmit();
  }
});

// A decision that was in flight when the person left the page has an unknown outcome.
for (const m of state.messages) if (m.pending?.state === 'busy') m.pending.state = 'unknown';
// History restored on load is not news: keep screen readers from reading it all out again.
log.setAttribute('aria-live', 'off');
renderAll();
setOpen(state.open, { focus: false });
requestAnimationFrame(() => log.setAttribute('aria-live', 'polite'));
