// Dashboard: account, wallet (once the API reports one) and the payments list, newest first.
import { api, el, setText, statusBadge, timeEl } from './lib.js';

const PAGE = 20;

async function loadAccount() {
  const res = await api('/api/me');
  if (!res.ok || !res.body) return;
  const account = res.body.account ?? {};
  if (account.name) setText('account-name', account.name);
  setText('account-email', account.email || '—');
  // The wallet arrives with the chain module; until then "—" stays.
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

function amountCell(p) {
  const main = `${Number(p.amount).toLocaleString(undefined, { maximumFractionDigits: 8 })} ${p.currency ?? ''}`.trim();
  const sub = p.stablecoin_amount && p.currency !== 'USDC' ? el('span', { class: 'sub', text: `${p.stablecoin_amount} USDC` }) : null;
  return el('td', { 'data-label': 'Amount' }, el('div', {}, el('span', { class: 'amount', text: main }), sub));
}

function checkoutLink(p) {
  let href;
  try {
    const u = new URL(p.checkout_url, location.origin);
    if (u.protocol === 'http:' || u.protocol === 'https:') href = u.href;
  } catch {
    /* not a URL */
  }
  if (!href) return el('td');
  return el(
    'td',
    { 'data-label': 'Checkout' },
    el('a', { href, text: 'Checkout page' }, el('span', { class: 'visually-hidden', text: ` for ${p.reference || p.id}` })),
  );
}

function row(p) {
  return el(
    'tr',
    { 'data-payment-id': p.id },
    el('td', { 'data-label': 'Created' }, timeEl(p.created_at)),
    amountCell(p),
    el('td', { 'data-label': 'Status' }, statusBadge(p.status)),
    el('td', { 'data-label': 'Reference', class: 'wrap', text: p.reference || '—' }),
    el('td', { 'data-label': 'Description', class: 'wrap', text: p.description || '—' }),
    checkoutLink(p),
  );
}

const table = document.getElementById('payments-table');
const tbody = document.getElementById('payments-body');
const more = document.getElementById('payments-more');
const empty = document.getElementById('payments-empty');
let lastId;

async function loadPayments({ append = false } = {}) {
  const q = new URLSearchParams({ limit: String(PAGE) });
  if (append && lastId) q.set('starting_after', lastId);
  setText('payments-status', append ? 'Loading more payments…' : 'Loading payments…');
  const res = await api(`/api/app/payments?${q}`);
  if (!res.ok || !res.body || !Array.isArray(res.body.data)) {
    setText('payments-status', `Could not load payments. ${res.message}`.trim());
    return;
  }
  const data = res.body.data;
  if (!append) tbody.replaceChildren();
  tbody.append(...data.map(row));
  if (data.length) lastId = data[data.length - 1].id;
  const count = tbody.children.length;
  table.hidden = count === 0;
  empty.hidden = count !== 0;
  more.hidden = !res.body.has_more;
  setText('payments-status', count === 0 ? '' : `Showing ${count} payment${count === 1 ? '' : 's'}, newest first.`);
}

more.addEventListener('click', async () => {
  more.disabled = true;
  await loadPayments({ append: true });
  more.disabled = false;
});
document.getElementById('payments-refresh').addEventListener('click', () => {
  lastId = undefined;
  void loadPayments();
});

void loadAccount();
void loadPayments();
