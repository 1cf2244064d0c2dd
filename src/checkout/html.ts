/** Escaping, the page shell and the little pieces every checkout page block shares. */
export const ASSETS = '/pay/assets';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export function shell(title: string, body: string, withScript: boolean): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}/checkout.css">
${withScript ? `<script type="module" src="${ASSETS}/checkout.js"></script>` : ''}
</head>
<body>
${body}
</body>
</html>`;
}

/** A `<dl class="amounts">` row. `value` is HTML the caller escaped; `ddAttrs` go on its `<dd>`. */
export const row = (label: string, value: string, ddAttrs = ''): string => `<div class="row"><dt>${escapeHtml(label)}</dt><dd${ddAttrs}>${value}</dd></div>`;

/**
 * A hash or address in full, in two halves that wrap between them and never inside (no lone last
 * character on a line of its own), with a Copy button; linked to the explorer when there is one.
 */
export function hashHtml(id: string, value: string, url?: string, what = 'transaction'): string {
  const mid = Math.ceil(value.length / 2);
  const text = `<code class="hash" id="${id}-value" title="${escapeHtml(value)}"><span>${escapeHtml(value.slice(0, mid))}</span><span>${escapeHtml(value.slice(mid))}</span></code>`;
  const shown = url
    ? `<a id="${id}-link" href="${escapeHtml(url)}" rel="noopener noreferrer" target="_blank">${text}<span class="visually-hidden"> (opens the block explorer in a new tab)</span></a>`
    : text;
  return `<span class="hash-line">${shown}<button type="button" class="btn-inline copy" data-copy="${id}-value">Copy<span class="visually-hidden"> the ${escapeHtml(what)}</span></button></span>`;
}
