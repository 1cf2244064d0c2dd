// Payment page: Refund (with amount) and Cancel, each confirmed in a modal dialog before
// anything is sent. The page reloads after a success so every section shows the new state.
import { api, setFieldError, setText } from './lib.js';

const dialog = document.getElementById('confirm-dialog');
const okButton = document.getElementById('confirm-ok');
const keepButton = document.getElementById('confirm-cancel');
const confirmError = document.getElementById('confirm-error');
let pending; // { run: () => Promise<boolean>, opener: HTMLElement }

function ask({ title, text, ok, run, opener }) {
  setText('confirm-title', title);
  setText('confirm-text', text);
  okButton.textContent = ok;
  confirmError.textContent = '';
  pending = { run, opener };
  dialog.showModal();
  // The safe choice has the focus first.
  keepButton.focus();
}

function close() {
  dialog.close();
}
dialog?.addEventListener('close', () => {
  const opener = pending?.opener;
  pending = undefined;
  opener?.focus();
});
keepButton?.addEventListener('click', close);
okButton?.addEventListener('click', async () => {
  if (!pending || okButton.disabled) return;
  okButton.disabled = true;
  keepButton.disabled = true;
  okButton.setAttribute('aria-busy', 'true');
  try {
    const done = await pending.run();
    if (done) {
      close();
      location.reload();
    }
  } finally {
    okButton.disabled = false;
    keepButton.disabled = false;
    okButton.removeAttribute('aria-busy');
  }
});

// ------------------------------------------------------------------ refund

/** Decimal text check against the currency's step; no float maths on money. */
function checkAmount(text, max, step) {
  const decimals = step.includes('.') ? step.split('.')[1].length : 0;
  const re = decimals > 0 ? new RegExp(`^\\d+(\\.\\d{1,${decimals}})?$`) : /^\d+$/;
  if (!re.test(text)) return `Enter an amount like ${max}${decimals ? ` (at most ${decimals} decimals)` : ''}.`;
  const scale = (s) => {
    const [i, f = ''] = s.split('.');
    return BigInt(i + f.padEnd(decimals, '0'));
  };
  if (scale(text) <= 0n) return 'Enter an amount greater than zero.';
  if (scale(text) > scale(max)) return `At most ${max} can be refunded.`;
  return '';
}

const refundForm = document.getElementById('refund-form');
refundForm?.addEventListener('submit', (e) => {
  e.preventDefault();
  const input = document.getElementById('refund-amount');
  const reason = document.getElementById('refund-reason').value.trim();
  const max = refundForm.dataset.max;
  const currency = refundForm.dataset.currency;
  const text = input.value.trim();
  const problem = checkAmount(text, max, input.dataset.step || '0.01');
  setFieldError(input, problem);
  if (problem) {
    input.focus();
    return;
  }
  const full = text === max || checkAmount(max, text, input.dataset.step || '0.01') === '';
  const id = refundForm.dataset.paymentId;
  ask({
    title: full ? 'Refund the whole payment?' : 'Refund part of this payment?',
    text: `${text} ${currency} will be sent back on-chain to the wallet that paid. This cannot be undone.`,
    ok: `Refund ${text} ${currency}`,
    opener: document.getElementById('refund-open'),
    run: async () => {
      const body = {};
      // The full remainder is sent without an amount: the server computes it exactly.
      if (!full) body.amount = Number(text);
      if (reason) body.reason = reason;
      const res = await api(`/api/app/payments/${encodeURIComponent(id)}/refunds`, { method: 'POST', body });
      if (res.ok) {
        setText('action-status', `Refund of ${text} ${currency} ${res.body?.status === 'pending' ? 'sent; it confirms shortly' : 'done'}.`);
        return true;
      }
      confirmError.textContent = res.status === 404 && !res.body?.error?.message?.startsWith('No such payment') ? 'Refunds are not available on this server yet.' : res.message;
      return false;
    },
  });
});

// ------------------------------------------------------------------ cancel

const cancelOpen = document.getElementById('cancel-open');
cancelOpen?.addEventListener('click', () => {
  const id = cancelOpen.dataset.paymentId;
  ask({
    title: 'Cancel this payment?',
    text: 'The checkout page will say the payment was canceled, and the customer can no longer pay it. This cannot be undone.',
    ok: 'Cancel payment',
    opener: cancelOpen,
    run: async () => {
      const res = await api(`/api/app/payments/${encodeURIComponent(id)}/cancel`, { method: 'POST', body: {} });
      if (res.ok) {
        setText('action-status', 'Payment canceled.');
        return true;
      }
      confirmError.textContent = res.message;
      return false;
    },
  });
});
