// Signed-in pages: the Log out button.
import { api } from './lib.js';

const logout = document.getElementById('logout');
logout?.addEventListener('click', async () => {
  logout.disabled = true;
  await api('/api/auth/logout', { method: 'POST', redirectOn401: false });
  // The chat history belongs to this session; do not leave it for the next person.
  try {
    sessionStorage.removeItem('sp.chat.v1');
  } catch {
    /* storage unavailable */
  }
  location.assign('/app/login?signed_out=1');
});
