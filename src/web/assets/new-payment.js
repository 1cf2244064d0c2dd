// Dashboard, "New payment": creates a payment with the session (POST /api/app/payments, the same
// body as POST /api/v1/payments) and shows its link with Copy / Share / Open. Field errors from
// the server land under their field.
import { api, errorParam, formatTime, setFieldError, setText } from './lib.js';
import { wireShareButtons } from './share.js';

const form = document.getElementById('new-payment-form');
const fields = {
  amount: document.getElementById('np-amount'),
  currency: document.getElementById('np-currency'),
  reference: document.getElementById('np-reference'),
  redirect_url: document.getElementById('np-redirect'),
};
const redirect = fields.redirect_url;
if (redirect && !redirect.value) redirect.value = `${location.origin}/`;

form?.addEventListener('submit', async (e) => {
  e.preventDefault();
  for (const f of Object.values(fields)) setFieldError(f, '');
  const amount = Number(fields.amount.value.trim().replace(/,/g, ''));
  if (!fields.amount.value.trim() || !Number.isFinite(amount) || amount <= 0) {
    setFieldError(fields.amount, 'Enter an amount above 0, such as 25 or 12.50.');
    return fields.amount.focus();
  }
  const body = {
    amount,
    currency: fields.currency.value.trim().toUpperCase(),
    redirect_url: redirect.value.trim(),
  };
  const description = document.getElementById('np-description').value.trim();
  const reference = fields.reference.value.trim();
  if (description) body.description = description;
  if (reference) body.reference = reference;
  const submit = document.getElementById('np-submit');
  submit.disabled = true;
  setText('np-status', 'Creating the payment…');
  const res = await api('/api/app/payments', { method: 'POST', body });
  submit.disabled = false;
  if (!res.ok) {
    const field = fields[errorParam(res.body)] ?? fields.amount;
    setFieldError(field, res.message);
    setText('np-status', '');
    return field.focus();
  }
  const p = res.body;
  setText('np-link-value', p.checkout_url);
  document.getElementById('np-link-open').href = p.checkout_url;
  document.getElementById('np-result').hidden = false;
  wireShareButtons(document.getElementById('np-result'));
  setText('np-status', `Payment ${p.id} created: ${p.amount} ${p.currency}, open until ${formatTime(p.expires_at)}. Send the link to your customer.`);
  form.reset();
  redirect.value = body.redirect_url;
  fields.currency.value = body.currency;
  document.getElementById('payments-refresh')?.click();
});
