/** The HTML shell every /app page shares. Pages pass already-escaped HTML; data goes through escapeHtml. */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

export const APP_NAME = 'StablePay';
export const ASSETS = '/app/assets';

export type NavItem = 'dashboard' | 'developers';

export interface SignedInAccount {
  name: string;
  email?: string;
}

export interface LayoutOptions {
  title: string;
  /** Trusted HTML: built from literals and escapeHtml'd values only. */
  body: string;
  /** Page scripts under /app/assets (ES modules; the CSP forbids inline scripts). */
  scripts?: string[];
  /** Present on signed-in pages: adds navigation, the log-out button and the chat widget. */
  account?: SignedInAccount;
  active?: NavItem;
}

const NAV: Array<{ id: NavItem; href: string; label: string }> = [
  { id: 'dashboard', href: '/app', label: 'Dashboard' },
  { id: 'developers', href: '/app/developers', label: 'Developers' },
];

function header(account: SignedInAccount | undefined, active: NavItem | undefined): string {
  if (!account) {
    return `<header class="topbar"><div class="topbar-inner">
  <a class="brand" href="/app">${APP_NAME}</a>
</div></header>`;
  }
  const links = NAV.map(
    (n) => `<li><a href="${n.href}"${n.id === active ? ' aria-current="page"' : ''}>${n.label}</a></li>`,
  ).join('');
  return `<header class="topbar"><div class="topbar-inner">
  <a class="brand" href="/app">${APP_NAME}</a>
  <nav aria-label="Main"><ul class="nav">${links}</ul></nav>
  <div class="who">
    <span class="who-name" title="${escapeHtml(account.email ?? '')}">${escapeHtml(account.name)}</span>
    <button type="button" class="btn btn-quiet" id="logout" data-logout>Log out</button>
  </div>
</div></header>`;
}

/** The chat widget's markup; assets/chat.js brings it to life (and it stays inert without JS). */
function chatWidget(): string {
  return `<aside class="chat" id="chat" aria-label="Assistant">
  <button type="button" class="chat-toggle btn" id="chat-toggle" aria-expanded="false" aria-controls="chat-panel">Assistant</button>
  <section class="chat-panel" id="chat-panel" aria-labelledby="chat-title" hidden>
    <div class="chat-head">
      <h2 id="chat-title">Assistant</h2>
      <button type="button" class="btn btn-quiet btn-small" id="chat-clear">Clear</button>
      <button type="button" class="btn btn-quiet btn-small" id="chat-close" aria-label="Close assistant">Close</button>
    </div>
    <ol class="chat-log" id="chat-log" role="log" aria-live="polite" aria-label="Conversation"></ol>
    <form class="chat-form" id="chat-form" novalidate>
      <label for="chat-input">Message</label>
      <div class="chat-compose">
        <textarea id="chat-input" name="message" rows="2" maxlength="500" required aria-describedby="chat-hint" placeholder="e.g. what can you do?"></textarea>
        <button type="submit" class="btn btn-primary" id="chat-send">Send</button>
      </div>
      <p class="hint" id="chat-hint">Up to 500 characters. Money never moves until you press Confirm.</p>
    </form>
  </section>
</aside>`;
}

export function layout(o: LayoutOptions): string {
  const scripts = [...(o.account ? ['session.js', 'chat.js'] : []), ...(o.scripts ?? [])]
    .map((s) => `<script type="module" src="${ASSETS}/${s}"></script>`)
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${escapeHtml(o.title)} · ${APP_NAME}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}/app.css">
${o.account ? `<link rel="stylesheet" href="${ASSETS}/chat.css">` : ''}
${scripts}
</head>
<body${o.account ? ' class="signed-in"' : ''}>
<a class="skip" href="#main">Skip to content</a>
${header(o.account, o.active)}
<main id="main" tabindex="-1">
${o.body}
</main>
${o.account ? chatWidget() : ''}
</body>
</html>`;
}
