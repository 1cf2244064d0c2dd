/**
 * How the app's server pages write times and hashes (issue 27): one time format with its zone on
 * every page ("26 Nov 2026, 21:04 UTC", src/lib/time-text.ts, mirrored by assets/lib.js), and
 * hashes in unbreakable pieces of at most 17 characters that wrap only between pieces, never
 * leaving a last character on its own line (a 66-character hash is four pieces; a half would not
 * fit a card's value column on a 390px phone).
 */
import { timeText } from '../lib/time-text.js';
import { escapeHtml } from './layout.js';

/** A `<time>` with the instant in `datetime` and `title`; an em dash when there is none. */
export function timeHtml(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return escapeHtml(iso);
  return `<time datetime="${escapeHtml(d.toISOString())}" title="${escapeHtml(d.toISOString())}">${escapeHtml(timeText(d))}</time>`;
}

const HASH_PIECE = 17;

/** A hash (or address) in full, in even unbreakable pieces (see above); linked when `url` is given. */
export function hashHtml(value: string, url?: string): string {
  const pieces = Math.max(1, Math.ceil(value.length / HASH_PIECE));
  const size = Math.ceil(value.length / pieces);
  const spans = Array.from({ length: pieces }, (_, i) => `<span>${escapeHtml(value.slice(i * size, (i + 1) * size))}</span>`).join('');
  const code = `<code class="hash" title="${escapeHtml(value)}">${spans}</code>`;
  return url ? `<a href="${escapeHtml(url)}" rel="noopener noreferrer" target="_blank">${code}</a>` : code;
}

/**
 * A payment link to hand to a customer: the URL, Copy and (where the browser can) Share.
 * assets/share.js wires the buttons; `url` may be empty for a block filled in later.
 */
export function shareHtml(id: string, url: string): string {
  return `<div class="share" id="${id}">
  <code class="share-url wrap" id="${id}-value">${escapeHtml(url)}</code>
  <div class="share-actions">
    <button type="button" class="btn btn-small" data-copy="${id}-value">Copy link</button>
    <button type="button" class="btn btn-small" data-share="${id}-value" hidden>Share…</button>
    <a class="btn btn-small btn-quiet" id="${id}-open" href="${escapeHtml(url)}" target="_blank" rel="noopener">Open</a>
  </div>
  <p class="copy-status" id="${id}-copy-status" role="status" aria-live="polite"></p>
</div>`;
}
