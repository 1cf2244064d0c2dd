/**
 * `GET /docs`: the API reference for people. Redoc (a static bundle from our own node_modules,
 * no network) renders GET /api/openapi.json itself: every field with its type, limits, defaults
 * and allowed values, responses, search, and curl / Node samples (assets/docs.js). Without
 * JavaScript the page lists every route from the same document (the `<noscript>` part below).
 */
import { APP_NAME, ASSETS, escapeHtml, type SignedInAccount } from '../layout.js';

/** Where the Redoc bundle is served (src/web/router.ts sends it from node_modules/redoc). */
export const REDOC_BUNDLE = '/docs/assets/redoc.standalone.js';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
}
interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, { description: string }>;
}
export interface OpenApiDoc {
  info: { title: string; description: string };
  servers: Array<{ url: string }>;
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, unknown> & { servers?: Array<{ url: string }> }>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `code` spans for the document's backticks; everything else is escaped text. */
function prose(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

function authText(op: Operation): string {
  const schemes = op.security.map((s) => Object.keys(s)[0]);
  if (!schemes.length) return 'No authentication';
  return schemes.map((s) => (s === 'bearerAuth' ? 'Secret key (Bearer)' : 'Session cookie')).join(' or ');
}

function operation(method: string, path: string, op: Operation): string {
  const params = op.parameters ?? [];
  const body = op.requestBody?.content['application/json']?.schema.$ref?.split('/').at(-1);
  return `<article class="card op" id="${escapeHtml(op.operationId)}" aria-labelledby="${escapeHtml(op.operationId)}-title">
  <h3 id="${escapeHtml(op.operationId)}-title"><span class="method method-${method}">${method.toUpperCase()}</span> <code class="wrap">${escapeHtml(path)}</code></h3>
  <p>${prose(op.summary)}</p>
  ${op.description ? `<p class="hint">${prose(op.description)}</p>` : ''}
  <p class="hint">Authentication: ${escapeHtml(authText(op))}${body ? ` · JSON body: <code>${escapeHtml(body)}</code>` : ''}</p>
  ${
    params.length
      ? `<dl class="facts facts-wide params">${params
          .map((p) => `<div><dt><code>${escapeHtml(p.name)}</code> <span class="sub">${escapeHtml(p.in)}${p.required ? ', required' : ''}</span></dt><dd>${prose(p.description ?? '')}</dd></div>`)
          .join('')}</dl>`
      : ''
  }
  <details><summary>Responses</summary><dl class="facts facts-wide">${Object.entries(op.responses)
    .map(([status, r]) => `<div><dt>${escapeHtml(status)}</dt><dd>${prose(r.description)}</dd></div>`)
    .join('')}</dl></details>
</article>`;
}

/** The server-rendered list of routes: what a browser without JavaScript shows. */
function routeList(doc: OpenApiDoc): string {
  const byTag = new Map<string, string[]>(doc.tags.map((t) => [t.name, []]));
  for (const [p, item] of Object.entries(doc.paths)) {
    // Paths outside /api carry their own server (the site root).
    const full = item.servers ? p : `/api${p}`;
    for (const m of METHODS) {
      const op = item[m] as Operation | undefined;
      if (op) byTag.get(op.tags[0] ?? 'Other')?.push(operation(m, full, op));
    }
  }
  return [...byTag]
    .filter(([, ops]) => ops.length)
    .map(
      ([tag, ops]) => `<section class="api-section" id="${slug(tag)}" aria-labelledby="${slug(tag)}-title">
  <h2 id="${slug(tag)}-title">${escapeHtml(tag)}</h2>
  ${ops.join('\n')}
</section>`,
    )
    .join('\n');
}

export function apiReferencePage(account: SignedInAccount | undefined, doc: OpenApiDoc): string {
  const base = doc.servers[0]?.url ?? '/api';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>API reference · ${APP_NAME}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSETS}/app.css">
<script src="${REDOC_BUNDLE}" defer></script>
<script type="module" src="${ASSETS}/docs.js"></script>
</head>
<body class="docs">
<a class="skip" href="#main">Skip to content</a>
<header class="topbar"><div class="topbar-inner">
  <a class="brand" href="/">${APP_NAME}</a>
  <nav aria-label="Main"><ul class="nav">
    <li><a href="/docs" aria-current="page">API reference</a></li>
    <li><a href="/api/openapi.json">OpenAPI 3.1 (JSON)</a></li>
    <li><a href="${account ? '/app/developers' : '/app/login?next=%2Fapp%2Fdevelopers'}">${account ? 'Your keys' : 'Log in'}</a></li>
  </ul></nav>
</div></header>
<main id="main" tabindex="-1">
  <h1 class="visually-hidden">API reference</h1>
  <p class="hint docs-status" id="docs-status" role="status">Loading the reference… Base URL <code>${escapeHtml(base)}</code>.</p>
  <div id="redoc"></div>
  <noscript><div class="card narrow"><p>${prose(doc.info.description)}</p><p>Base URL <code class="wrap">${escapeHtml(base)}</code>. The full reference with every field needs JavaScript; the same as a document: <a href="/api/openapi.json">OpenAPI 3.1 (JSON)</a>.</p></div>${routeList(doc)}</noscript>
</main>
</body>
</html>`;
}
