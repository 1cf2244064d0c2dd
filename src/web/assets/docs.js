// The API reference (/docs): Redoc (served from our own node_modules, no network) renders the
// very document GET /api/openapi.json returns. Before rendering, every operation gets code
// samples in curl and Node (x-codeSamples), written from its own method, path, auth and body
// schema, so a sample can never name a field the API does not take.

const mount = document.getElementById('redoc');
const status = document.getElementById('docs-status');

/** A small valid example of a schema: `example`, `default`, the first enum value, else by type and name. */
function sample(schema, doc, name = '', depth = 0) {
  if (!schema || depth > 4) return undefined;
  if (schema.$ref) return sample(doc.components?.schemas?.[schema.$ref.split('/').at(-1)], doc, name, depth + 1);
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  const alt = schema.anyOf ?? schema.oneOf;
  if (alt) return sample(alt[0], doc, name, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    const out = {};
    const required = new Set(schema.required ?? []);
    for (const [key, prop] of Object.entries(schema.properties ?? {})) {
      if (required.has(key)) out[key] = sample(prop, doc, key, depth + 1);
    }
    return out;
  }
  if (type === 'array') return [sample(schema.items, doc, name, depth + 1)].filter((v) => v !== undefined);
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : name === 'amount' ? 5000 : 1;
  if (type === 'boolean') return false;
  if (type === 'string') {
    if (schema.format === 'uri' || /url$/.test(name)) return 'https://shop.example/thanks';
    if (schema.format === 'email' || name === 'email') return 'me@shop.example';
    if (schema.pattern === '^0x[0-9a-fA-F]{40}$') return '0x0000000000000000000000000000000000000000';
    if (name === 'currency') return 'USD';
    if (name === 'password') return 'a long passphrase';
    return name || 'text';
  }
  return undefined;
}

function samplesFor(method, path, op, doc, base) {
  const schemes = (op.security ?? []).map((s) => Object.keys(s)[0]);
  const bearer = schemes.includes('bearerAuth');
  const cookie = !bearer && schemes.length > 0;
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  const body = bodySchema ? sample(bodySchema, doc) : undefined;
  const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
  const query = required.length ? `?${required.map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema, doc, p.name)))}`).join('&')}` : '';
  const url = `${base}${path}${query}`;
  const verb = method.toUpperCase();

  const curl = [`curl -s${verb === 'GET' ? '' : ` -X ${verb}`} "${url.replace(/\{(\w+)\}/g, (_, n) => `$${n.toUpperCase()}`)}"`];
  if (bearer) curl.push(`-H "Authorization: Bearer $STABLEPAY_KEY"`);
  if (cookie) curl.push('-b jar   # the session cookie from /api/auth/login (curl -c jar)');
  if (body !== undefined) curl.push(`-H 'Content-Type: application/json'`, `-d '${JSON.stringify(body)}'`);

  const headers = [];
  if (bearer) headers.push('Authorization: `Bearer ${process.env.STABLEPAY_KEY}`');
  if (cookie) headers.push('Cookie: process.env.STABLEPAY_SESSION_COOKIE');
  if (body !== undefined) headers.push("'Content-Type': 'application/json'");
  const opts = [];
  if (verb !== 'GET') opts.push(`  method: '${verb}',`);
  if (headers.length) opts.push(`  headers: { ${headers.join(', ')} },`);
  if (body !== undefined) opts.push(`  body: JSON.stringify(${JSON.stringify(body, null, 2).replace(/\n/g, '\n  ')}),`);
  const nodeUrl = url.replace(/\{(\w+)\}/g, (_, n) => `\${${n}}`);
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => `const ${m[1]} = '…'; // the ${m[1]} from an earlier answer`);
  const node = [
    '// Node 20 or newer (global fetch), in an ES module',
    ...params,
    `const res = await fetch(\`${nodeUrl}\`${opts.length ? `, {\n${opts.join('\n')}\n}` : ''});`,
    'console.log(res.status, await res.json());',
  ].join('\n');

  return [
    { lang: 'Shell', label: 'curl', source: curl.join(' \\\n  ') },
    { lang: 'JavaScript', label: 'Node', source: node },
  ];
}

/** Adds curl and Node samples to every operation (paths outside /api carry their own server). */
export function withCodeSamples(doc) {
  const apiBase = doc.servers?.[0]?.url ?? '/api';
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const base = item.servers?.[0]?.url ?? apiBase;
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (op && !op['x-codeSamples']) op['x-codeSamples'] = samplesFor(method, path, op, doc, base);
    }
  }
  return doc;
}

async function main() {
  try {
    const res = await fetch('/api/openapi.json', { headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const doc = withCodeSamples(await res.json());
    window.Redoc.init(
      doc,
      {
        scrollYOffset: '.topbar',
        hideDownloadButton: true, // the header links the document itself
        expandResponses: '200,201',
        jsonSampleExpandLevel: 3,
        sortPropsAlphabetically: false,
        requiredPropsFirst: true,
        theme: { typography: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif', headings: { fontFamily: 'inherit' } } },
      },
      mount,
      () => {
        document.body.dataset.reference = 'ready';
        if (status) status.textContent = '';
      },
    );
  } catch (e) {
    if (status) status.textContent = `The reference could not be loaded (${e?.message ?? e}). The OpenAPI document is at /api/openapi.json.`;
  }
}

if (mount && window.Redoc) void main();
else if (status) status.textContent = 'The reference viewer did not load. The OpenAPI document is at /api/openapi.json.';
