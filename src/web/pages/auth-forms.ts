import { escapeHtml, layout } from '../layout.js';

/**
 * Sign-up and log-in forms. Each field has a label, a hint or error tied with
 * aria-describedby, and the form has one live region for the server's answer.
 */
function field(o: {
  id: string;
  label: string;
  type: string;
  autocomplete: string;
  hint?: string;
  attrs?: string;
}): string {
  const hint = o.hint ? `<p class="hint" id="${o.id}-hint">${escapeHtml(o.hint)}</p>` : '';
  const describedBy = [o.hint ? `${o.id}-hint` : '', `${o.id}-error`].filter(Boolean).join(' ');
  return `<div class="field">
  <label for="${o.id}">${escapeHtml(o.label)}</label>
  <input id="${o.id}" name="${o.id}" type="${o.type}" autocomplete="${o.autocomplete}" required aria-describedby="${describedBy}" ${o.attrs ?? ''}>
  ${hint}
  <p class="field-error" id="${o.id}-error" hidden></p>
</div>`;
}

/** `?next=` for the link to the other form, so switching between them keeps the way back. */
const nextQuery = (next: string | undefined) => (next ? `?next=${encodeURIComponent(next)}` : '');

/** Coming from a checkout page's "Sign in to pay from your StablePay wallet". */
const checkoutNote = (next: string | undefined) =>
  next?.startsWith('/pay/') ? `<p class="notice" id="checkout-note">Then pay from your StablePay wallet: you will be taken back to the payment page.</p>` : '';

export function signupPage(next?: string): string {
  return layout({
    title: 'Create your account',
    scripts: ['auth.js'],
    body: `<div class="auth-card card">
  <h1>Create your account</h1>
  <p class="lede">Accept stablecoin payments with a hosted checkout.</p>
  ${checkoutNote(next)}
  <form id="signup-form" data-auth-form="signup" data-next="${escapeHtml(next ?? '')}" novalidate>
    <div class="form-error" id="form-error" role="alert" aria-live="assertive"></div>
    ${field({ id: 'name', label: 'Business name', type: 'text', autocomplete: 'organization', attrs: 'maxlength="80"' })}
    ${field({ id: 'email', label: 'Email', type: 'email', autocomplete: 'email', attrs: 'maxlength="254"' })}
    ${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'new-password', hint: 'At least 8 characters.', attrs: 'minlength="8" maxlength="200"' })}
    <button type="submit" class="btn btn-primary btn-block">Create account</button>
  </form>
  <p class="switch">Already have an account? <a href="/app/login${escapeHtml(nextQuery(next))}">Log in</a></p>
</div>`,
  });
}

export function loginPage(next: string | undefined, notice?: string): string {
  return layout({
    title: 'Log in',
    scripts: ['auth.js'],
    body: `<div class="auth-card card">
  <h1>Log in</h1>
  ${notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : ''}
  ${checkoutNote(next)}
  <form id="login-form" data-auth-form="login" data-next="${escapeHtml(next ?? '')}" novalidate>
    <div class="form-error" id="form-error" role="alert" aria-live="assertive"></div>
    ${field({ id: 'email', label: 'Email', type: 'email', autocomplete: 'username', attrs: 'maxlength="254"' })}
    ${field({ id: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', attrs: 'maxlength="200"' })}
    <button type="submit" class="btn btn-primary btn-block">Log in</button>
  </form>
  <p class="switch">New here? <a href="/app/signup${escapeHtml(nextQuery(next))}">Create an account</a></p>
</div>`,
  });
}
