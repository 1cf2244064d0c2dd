// Dashboard: account, wallet, totals for the period with a daily chart, and the payments list
// for the filters in the page's URL (the filter form is a plain GET form).
import { api, el, setText, statusBadge, timeEl } from './lib.js';

const PAGE = 25;
const SVG = 'http://www.w3.org/2000/svg';

/** The filter fields present in this page's URL, as a query string for the JSON endpoints. */
function filterQuery() {
  const from = new URLSearchParams(location.search);
  const q = new URLSearchParams();
  for (const k of ['status', 'q', 'from', 'to']) {
    const v = from.get(k);
    if (v) q.set(k, v);
  }
  return q;
}
const filtered = () => [...filterQuery().keys()].length > 0;

async function loadAccount() {
  const res = await api('/api/me');
  if (!res.ok || !res.body) return;
  const account = res.body.account ?? {};
  if (account.name) setText('account-name', account.name);
  setText('account-email', account.email || '—');
  const wallet = account.wallet ?? res.body.wallet;
  if (wallet && typeof wallet === 'object') {
    if (wallet.address) setText('wallet-address', String(wallet.address));
    if (wallet.balance !== undefined && wallet.balance !== null) {
      let text = `${wallet.balance} USDC`;
      if (wallet.balance_local !== undefined && wallet.balance_local !== null && wallet.currency) {
        text += ` (≈ ${wallet.balance_local} ${wallet.currency})`;
      }
      setText('wallet-balance', text);
    }
  }
}

/** "1234.5" -> "1,234.50" (decimal text from the API; no float maths). */
function money(decimal) {
  const [int, frac = ''] = String(decimal).split('.');
  return `${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac.padEnd(2, '0').slice(0, Math.max(2, frac.replace(/0+$/, '').length))}`;
}

// ------------------------------------------------------------------ totals and chart

function chart(days) {
  const box = document.getElementById('chart');
  // Heights only (display): the figures themselves are the exact totals above.
  const max = Math.max(0, ...days.map((d) => Math.max(Number(d.settled), Number(d.refunded))));
  const w = 600;
  const h = 120;
  const gap = days.length > 60 ? 0 : 1;
  const bw = w / Math.max(days.length, 1);
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  const total = days.filter((d) => Number(d.settled) > 0).length;
  const refundDays = days.filter((d) => Number(d.refunded) > 0).length;
  svg.setAttribute(
    'aria-label',
    `Daily settled and refunded amounts, ${days.length} days, ${total} with payments, ${refundDays} with refunds; the totals above give the figures.`,
  );
  const base = document.createElementNS(SVG, 'line');
  for (const [k, v] of Object.entries({ x1: 0, x2: w, y1: h - 0.5, y2: h - 0.5, stroke: '#6b7280', 'stroke-width': 1 })) base.setAttribute(k, String(v));
  svg.append(base);
  // Each day: the settled bar, and the refunded bar in front of it (from the same baseline, in
  // the slot's right half, so a day with both shows both).
  days.forEach((d, i) => {
    if (!(max > 0)) return;
    const label = `${d.day}: ${money(d.settled)} USDC settled${Number(d.refunded) > 0 ? `, ${money(d.refunded)} USDC refunded` : ''}`;
    const slot = Math.max(1, bw - 2 * gap);
    const bar = (value, kind, fill, x, width) => {
      const v = Number(value);
      if (!(v > 0)) return;
      const bh = Math.max(2, (v / max) * (h - 6));
      const rect = document.createElementNS(SVG, 'rect');
      rect.setAttribute('x', String(x));
      rect.setAttribute('y', String(h - bh));
      rect.setAttribute('width', String(width));
      rect.setAttribute('height', String(bh));
      rect.setAttribute('fill', fill);
      rect.setAttribute('data-day', d.day);
      rect.setAttribute('data-kind', kind);
      const title = document.createElementNS(SVG, 'title');
      title.textContent = label;
      rect.append(title);
      svg.append(rect);
    };
    bar(d.settled, 'settled', '#1d4ed8', i * bw + gap, slot);
    bar(d.refunded, 'refunded', '#b91c1c', i * bw + gap + slot / 2, slot / 2);
  });
  box.replaceChildren(svg);
  const axis = el('div', { class: 'chart-axis' }, el('span', { text: days[0]?.day ?? '' }), el('span', { text: days[days.length - 1]?.day ?? '' }));
  box.append(axis);
}

async function loadSummary() {
  const q = filterQuery();
  const period = new URLSearchParams();
  for (const k of ['from', 'to']) if (q.get(k)) period.set(k, q.get(k));
  const res = await api(`/api/app/dashboard/summary?${period}`);
  if (!res.ok || !res.body) {
    setText('totals-period', '');
    setText('total-settled', `Could not load totals. ${res.message}`.trim());
    return;
  }
  const s = res.body;
  setText('totals-period', `${s.from} to ${s.to} (UTC)`);
  setText('total-settled', `${money(s.settled)} USDC`);
  setText('total-count', `${s.settled_count} payment${s.settled_count === 1 ? '' : 's'}`);
  setText('total-refunded', `${money(s.refunded)} USDC`);
  setText('total-net', `${money(s.net)} USDC`);
  chart(s.days);
}

// ------------------------------------------------------------------ list

function amountCell(p) {
  const main = `${money(p.amount)} ${p.currency ?? ''}`.trim();
  const sub = p.currency !== 'USDC' ? el('span', { class: 'sub', text: `${money(p.stablecoin_amount)} USDC` }) : null;
  const refunded = Number(p.amount_refunded) > 0 ? el('span', { class: 'sub', text: `${money(p.amount_refunded)} ${p.currency} refunded` }) : null;
  // Manual capture: what the escrow still holds, and what was captured or voided (stablecoin).
  const manual = p.capture_method === 'manual';
  const held = manual && Number(p.amount_capturable) > 0 ? el('span', { class: 'sub held', text: `${money(p.amount_capturable)} USDC held` }) : null;
  const captured = manual && Number(p.amount_captured) > 0 ? el('span', { class: 'sub', text: `${money(p.amount_captured)} USDC captured` }) : null;
  const voided = manual && Number(p.amount_voided) > 0 ? el('span', { class: 'sub', text: `${money(p.amount_voided)} USDC voided` }) : null;
  return el('td', { 'data-label': 'Amount' }, el('div', {}, el('span', { class: 'amount', text: main }), sub, held, captured, voided, refunded));
}

function linksCell(p) {
  let checkout;
  try {
    const u = new URL(p.checkout_url, location.origin);
    if (u.protocol === 'http:' || u.protocol === 'https:') checkout = u.href;
  } catch {
    /* not a URL */
  }
  const label = p.reference || p.id;
  return el(
    'td',
    { 'data-label': 'Open', class: 'links-cell' },
    // One wrapper: on phones the cell is a two-column grid, where loose children (the " · ")
    // would each take a row of their own.
    el(
      'span',
      {},
      el('a', { href: `/app/payments/${encodeURIComponent(p.id)}`, text: 'Details' }, el('span', { class: 'visually-hidden', text: ` of payment ${label}` })),
      checkout ? ' · ' : null,
      checkout ? el('a', { href: checkout, text: 'Checkout page' }, el('span', { class: 'visually-hidden', text: ` for ${label}` })) : null,
    ),
  );
}

function row(p) {
  return el(
    'tr',
    { 'data-payment-id': p.id },
    el('td', { 'data-label': 'Created' }, timeEl(p.created_at)),
    amountCell(p),
    el('td', { 'data-label': 'Status', class: 'col-status' }, statusBadge(p.status)),
    el('td', { 'data-label': 'Reference', class: 'wrap', text: p.reference || '—' }),
    el('td', { 'data-label': 'Description', class: 'wrap', text: p.description || '—' }),
    linksCell(p),
  );
}

const table = document.getElementById('payments-table');
const tbody = document.getElementById('payments-body');
const more = document.getElementById('payments-more');
const empty = document.getElementById('payments-empty');
let lastId;
let total = 0;

async function loadPayments({ append = false } = {}) {
  const q = filterQuery();
  q.set('limit', String(PAGE));
  if (append && lastId) q.set('starting_after', lastId);
  setText('payments-status', append ? 'Loading more payments…' : 'Loading payments…');
  const res = await api(`/api/app/dashboard/payments?${q}`);
  if (!res.ok || !res.body || !Array.isArray(res.body.data)) {
    setText('payments-status', `Could not load payments. ${res.message}`.trim());
    return;
  }
  const data = res.body.data;
  total = res.body.total_count ?? total;
  if (!append) tbody.replaceChildren();
  tbody.append(...data.map(row));
  if (data.length) lastId = data[data.length - 1].id;
  const count = tbody.children.length;
  table.hidden = count === 0;
  empty.hidden = count !== 0;
  if (count === 0 && filtered()) {
    setText('payments-empty-text', 'No payments match these filters.');
    document.getElementById('payments-empty-hint').hidden = true;
  }
  more.hidden = !res.body.has_more;
  setText(
    'payments-status',
    count === 0 ? '' : `Showing ${count} of ${total} payment${total === 1 ? '' : 's'}${filtered() ? ' matching the filters' : ''}, newest first.`,
  );
}

more.addEventListener('click', async () => {
  more.disabled = true;
  await loadPayments({ append: true });
  more.disabled = false;
});
document.getElementById('payments-refresh').addEventListener('click', () => {
  lastId = undefined;
  void loadPayments();
  void loadSummary();
});

void loadAccount();
void loadSummary();
void loadPayments();
