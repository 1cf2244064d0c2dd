// Shared helpers for the /app pages. Data from the API only ever reaches the page through
// textContent or attribute setters (never innerHTML), so user text cannot become markup.

/**
 * fetch for our JSON API: same origin, session cookie. Never throws; a network failure is
 * status 0. A 401 on a signed-in page means the session ended: go to the login page.
 */
export async function api(path, { method = 'GET', body, redirectOn401 = true } = {}) {
  let res;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { ok: false, status: 0, body: null, headers: new Headers(), message: 'Could not reach the server. Check your connection and try again.' };
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    /* not JSON */
  }
  if (res.status === 401 && redirectOn401) {
    const next = location.pathname.startsWith('/app') ? `?next=${encodeURIComponent(location.pathname)}` : '';
    location.assign(`/app/login${next}`);
  }
  return { ok: res.ok, status: res.status, body: data, headers: res.headers, message: errorMessage(res.status, data) };
}

/** The human message from any of our error bodies: developer, checkout or agent shape. */
export function errorMessage(status, data) {
  if (data && typeof data === 'object') {
    if (data.error && typeof data.error === 'object' && typeof data.error.message === 'string') return data.error.message;
    if (typeof data.error === 'string') return data.error;
    if (typeof data.reply === 'string' && data.ok === false) return data.reply;
  }
  if (status >= 500) return 'Something went wrong on our side. Try again in a moment.';
  return status >= 400 ? `Request failed (${status}).` : '';
}

/** The `param` an error names, if any (to put the message next to that field). */
export const errorParam = (data) => (data && data.error && typeof data.error.param === 'string' ? data.error.param : undefined);

/** Builds an element; children are nodes or strings (strings become text nodes). */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return node;
}

// One format with its zone on every page (issue 27), as the server writes it (src/lib/time-text.ts):
// "26 Nov 2026, 21:04 UTC".
const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
const CLOCK = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' });
const DATE_TIME = { format: (d) => `${DAY.format(d)}, ${CLOCK.format(d)} UTC` };

/** A <time> element ("26 Nov 2026, 21:04 UTC"), with the exact instant in `datetime` and `title`. */
export function timeEl(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return el('span', { text: '—' });
  return el('time', { datetime: d.toISOString(), title: d.toISOString(), text: DATE_TIME.format(d) });
}

export function formatTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '—' : DATE_TIME.format(d);
}

/** A status pill whose colour is decoration only: the word itself carries the meaning. */
export function statusBadge(status) {
  const s = String(status ?? 'unknown');
  return el('span', { class: `badge badge-${s.replace(/[^a-z_]/g, '')}`, text: s });
}

/** Shows (or with an empty message clears) the error under a field, and marks it invalid. */
export function setFieldError(input, message) {
  const err = document.getElementById(`${input.id}-error`);
  if (message) input.setAttribute('aria-invalid', 'true');
  else input.removeAttribute('aria-invalid');
  if (err) {
    err.textContent = message || '';
    err.hidden = !message;
  }
}

export function setText(id, text) {
  const node = document.getElementById(id);
  if (node) node.textContent = text;
  return node;
}

/**
 * Copies the text of element `targetId`. Falls back to selecting it (so Ctrl+C / long-press
 * works) where the Clipboard API is missing or refused.
 */
export async function copyFrom(targetId) {
  const target = document.getElementById(targetId);
  const status = document.getElementById(`${targetId.replace(/-value$/, '')}-copy-status`);
  if (!target) return;
  const text = target.textContent ?? '';
  let copied = false;
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      copied = true;
    }
  } catch {
    copied = false;
  }
  if (!copied) {
    const range = document.createRange();
    range.selectNodeContents(target);
    const sel = window.getSelection();
    sel?.removeAllRanges();
    sel?.addRange(range);
    try {
      copied = document.execCommand('copy');
    } catch {
      copied = false;
    }
  }
  if (status) status.textContent = copied ? 'Copied to clipboard.' : 'Selected. Press Ctrl+C (or Cmd+C) to copy.';
}

/** Wires every [data-copy] button on the page. */
export function wireCopyButtons(root = document) {
  root.addEventListener('click', (e) => {
    const btn = e.target instanceof Element ? e.target.closest('[data-copy]') : null;
    if (btn) void copyFrom(btn.getAttribute('data-copy'));
  });
}

/** Marks a button busy while an action runs, so a second click cannot send twice. */
export async function busy(button, fn) {
  if (button.disabled) return;
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await fn();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}
