// Sign-up and log-in forms: client-side checks first, then the API; errors land next to
// their field and in the form's alert region.
import { api, errorParam, setFieldError } from './lib.js';

// Signed out: a conversation from an earlier session must not carry over to the next person.
try {
  sessionStorage.removeItem('sp.chat.v1');
} catch {
  /* storage unavailable */
}

const form = document.querySelector('form[data-auth-form]');
const kind = form?.getAttribute('data-auth-form');
const formError = document.getElementById('form-error');
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function check(input) {
  const v = input.value.trim();
  if (input.id === 'name') return v ? '' : 'Enter your business name.';
  if (input.id === 'email') return !v ? 'Enter your email address.' : EMAIL.test(v) ? '' : 'Enter a valid email address, like name@example.com.';
  if (input.id === 'password') {
    if (!input.value) return 'Enter your password.';
    if (kind === 'signup' && input.value.length < 8) return 'Use at least 8 characters.';
  }
  return '';
}

function safeNext(value) {
  return value && (/^\/app(\/[\w\-/]*)?$/.test(value) || /^\/pay\/[\w-]{1,64}$/.test(value)) ? value : '/app';
}

form?.addEventListener('submit', async (e) => {
  e.preventDefault();
  formError.textContent = '';
  const inputs = [...form.querySelectorAll('input')];
  let firstBad;
  for (const input of inputs) {
    const msg = check(input);
    setFieldError(input, msg);
    if (msg && !firstBad) firstBad = input;
  }
  if (firstBad) {
    formError.textContent = 'Please fix the highlighted fields.';
    firstBad.focus();
    return;
  }
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  const body = Object.fromEntries(inputs.map((i) => [i.name, i.name === 'password' ? i.value : i.value.trim()]));
  const res = await api(kind === 'signup' ? '/api/auth/signup' : '/api/auth/login', { method: 'POST', body, redirectOn401: false });
  if (res.ok) {
    location.assign(safeNext(form.getAttribute('data-next')));
    return;
  }
  button.disabled = false;
  button.removeAttribute('aria-busy');
  const param = errorParam(res.body);
  const field = param ? form.querySelector(`input[name="${CSS.escape(param)}"]`) : null;
  if (field) {
    setFieldError(field, res.message);
    field.focus();
  }
  formError.textContent = res.message;
});

// Clear a field's error as soon as the person fixes it.
form?.addEventListener('input', (e) => {
  const input = e.target;
  if (input instanceof HTMLInputElement && input.getAttribute('aria-invalid') === 'true' && !check(input)) setFieldError(input, '');
});
