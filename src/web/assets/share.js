// Copy and Share buttons of a payment link (src/web/format.ts shareHtml). Share uses the Web Share
// API and is shown only where the browser has it (phones, mostly); Copy works everywhere.
import { wireCopyButtons } from './lib.js';

wireCopyButtons();

export function wireShareButtons(root = document) {
  for (const b of root.querySelectorAll('[data-share]')) {
    if (typeof navigator.share === 'function') b.hidden = false;
  }
}

document.addEventListener('click', async (e) => {
  const btn = e.target instanceof Element ? e.target.closest('[data-share]') : null;
  if (!btn) return;
  const url = document.getElementById(btn.getAttribute('data-share'))?.textContent?.trim();
  if (!url) return;
  try {
    await navigator.share({ title: 'Payment link', url });
  } catch {
    /* the person closed the share sheet */
  }
});

wireShareButtons();
