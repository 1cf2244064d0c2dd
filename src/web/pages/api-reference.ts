/**
 * `GET /docs`: the API reference for people, rendered from the same OpenAPI document as
 * `/api/openapi.json` (one source: the routes' own registrations), so it cannot drift.
 */
import { escapeHtml, layout, type SignedInAccount } from '../layout.js';

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

export function apiReferencePage(account: SignedInAccount | undefined, doc: OpenApiDoc): string {
  const base = doc.servers[0]?.url ?? '/api';
  const byTag = new Map<string, string[]>(doc.tags.map((t) => [t.name, []]));
  for (const [p, item] of Object.entries(doc.paths)) {
    // Paths outside /api carry their own server (the site root).
    const full = item.servers ? p : `/api${p}`;
    for (const m of METHODS) {
      const op = item[m] as Operation | undefined;
      if (op) byTag.get(op.tags[0] ?? 'Other')?.push(operation(m, full, op));
    }
  }
  const sections = [...byTag].filter(([, ops]) => ops.length);
  return layout({
    title: 'API reference',
    account,
    body: `<div class="card narrow">
  <h1>API reference</h1>
  <p class="lede">${prose(doc.info.description)}</p>
  <p>Base URL <code class="wrap">${escapeHtml(base)}</code>. Create a secret key on the <a href="/app/developers">Developers screen</a>. The same reference as a machine-readable document: <a href="/api/openapi.json">OpenAPI 3.1 (JSON)</a>.</p>
  <nav aria-labelledby="toc-title"><h2 id="toc-title">Sections</h2><ul class="links toc">${sections
    .map(([tag, ops]) => `<li><a href="#${slug(tag)}">${escapeHtml(tag)}</a> <span class="hint">(${ops.length})</span></li>`)
    .join('')}</ul></nav>
</div>
${sections
  .map(
    ([tag, ops]) => `<section class="api-section" id="${slug(tag)}" aria-labelledby="${slug(tag)}-title">
  <h2 id="${slug(tag)}-title">${escapeHtml(tag)}</h2>
  ${ops.join('\n')}
</section>`,
  )
  .join('\n')}`,
  });
}
