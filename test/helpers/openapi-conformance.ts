import { appendFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/**
 * Every JSON response the HTTP tests receive through `call()` is checked against the OpenAPI
 * document that same service publishes (/api/openapi.json): the status must be documented for
 * the route and the body must validate against its schema. A response the document does not
 * describe fails the test that received it.
 */
interface Operation {
  method: string;
  template: string;
  pattern: RegExp;
  responses: Record<string, { content?: { 'application/json'?: { schema?: unknown } } }>;
}

interface Document {
  operations: Operation[];
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

const documents = new Map<string, Promise<Document | undefined>>();

/**
 * A stopped service's document is forgotten: a later service in the same worker may be given the
 * same port and serve another document (a production one without the dev-only routes).
 */
export function forgetDocument(origin: string): void {
  documents.delete(origin);
}

async function load(origin: string): Promise<Document | undefined> {
  const res = await fetch(`${origin}/api/openapi.json`).catch(() => undefined);
  if (!res?.ok) return undefined;
  const doc = (await res.json()) as any;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ $id: 'openapi', components: doc.components });
  const operations: Operation[] = [];
  for (const [p, item] of Object.entries<any>(doc.paths)) {
    const full = item.servers ? p : `/api${p}`;
    const pattern = new RegExp('^' + full.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+') + '/?$');
    for (const m of ['get', 'post', 'put', 'patch', 'delete']) {
      if (item[m]) operations.push({ method: m, template: full, pattern, responses: item[m].responses });
    }
  }
  // Literal paths win over templated ones (/v1/payments/search before /v1/payments/{id}).
  operations.sort((a, b) => (a.template.includes('{') ? 1 : 0) - (b.template.includes('{') ? 1 : 0));
  return { operations, ajv, validators: new Map() };
}

function validatorFor(doc: Document, schema: unknown): ValidateFunction {
  const key = JSON.stringify(schema);
  let v = doc.validators.get(key);
  if (!v) {
    v = doc.ajv.compile(JSON.parse(key.replaceAll('"#/components/', '"openapi#/components/')));
    doc.validators.set(key, v);
  }
  return v;
}

/** Problems with one response, or [] when the document describes it (or it is not API JSON). */
export async function conformanceProblems(method: string, url: string, status: number, contentType: string | null, body: unknown): Promise<string[]> {
  const { origin, pathname } = new URL(url);
  if (!documents.has(origin)) documents.set(origin, load(origin));
  const problems = problemsAgainst(await documents.get(origin), method, pathname, status, contentType, body);
  if (!problems.length) return problems;
  // The cached document may be another service's that had this port before (a dev service's
  // document judging a production service): judge again against the document served now.
  documents.set(origin, load(origin));
  return problemsAgainst(await documents.get(origin), method, pathname, status, contentType, body);
}

function problemsAgainst(doc: Document | undefined, method: string, pathname: string, status: number, contentType: string | null, body: unknown): string[] {
  if (!doc) return [];
  const op = doc.operations.find((o) => o.method === method.toLowerCase() && o.pattern.test(pathname));
  // Unknown URLs (the 404 tests), undocumented dev routes in production, and pages are not
  // operations of the document.
  if (!op || !contentType?.includes('application/json')) return [];
  const where = `${method.toUpperCase()} ${op.template} -> ${status}`;
  const response = op.responses[String(status)] ?? op.responses.default;
  if (!response) return [`${where}: status not documented`];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return [];
  const validate = validatorFor(doc, schema);
  if (validate(body)) return [];
  return [`${where}: ${(validate.errors ?? []).map((e) => `body${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`).join('; ')}`];
}

/** Throws (or, with OPENAPI_CONFORMANCE_LOG=<file>, appends) when a response breaks the document. */
export async function assertConforms(method: string, url: string, status: number, contentType: string | null, body: unknown): Promise<void> {
  const problems = await conformanceProblems(method, url, status, contentType, body);
  if (!problems.length) return;
  const log = process.env.OPENAPI_CONFORMANCE_LOG;
  if (log) {
    appendFileSync(log, problems.map((p) => p + '\n').join(''));
    return;
  }
  throw new Error(`response does not match the OpenAPI document:\n${problems.join('\n')}\nbody: ${JSON.stringify(body).slice(0, 500)}`);
}
