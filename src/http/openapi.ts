import { z } from 'zod';
import { AgentErrorBody, CheckoutErrorBody, DeveloperErrorBody } from './errors.js';

/**
 * A small OpenAPI 3.1 registry: each route is described once, with the same zod schemas the
 * handlers parse with, and the document is generated from them (zod 4 `z.toJSONSchema`), so
 * the document cannot drift from validation. Each router registers its routes at module level,
 * beside the handlers (src/doors.ts imports every router); shared pieces are in openapi-common.ts.
 */

export type RouteAuth = 'bearer' | 'session' | 'sessionOrBearer' | 'none';
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteResponse {
  description: string;
  /** Body schema (output side). Without one the response is described but not typed. */
  schema?: z.ZodType;
  /** Response headers worth documenting (name -> description). */
  headers?: Record<string, string>;
}

export interface RouteSpec {
  method: HttpMethod;
  /** The path as the app serves it, express style: `/api/v1/payments/:id`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  /** JSON request body (input side: defaults optional, before transforms). */
  body?: z.ZodType;
  /** Query string, one parameter per property. */
  query?: z.ZodObject;
  /** Path parameters; a `:name` without a schema here is documented as a plain string. */
  params?: z.ZodObject;
  /** Request headers (name -> description and whether required). */
  headers?: Record<string, { description: string; required?: boolean; schema?: z.ZodType }>;
  responses: Record<number, RouteResponse>;
  /** Only served outside production (documented only when the document is built for dev). */
  devOnly?: boolean;
  /** Stable operation id; derived from method and path when omitted. */
  operationId?: string;
}

const routes: RouteSpec[] = [];
const components = new Map<string, z.ZodType>();

/** Adds a route to the document. Registering the same method and path twice is a mistake. */
export function registerRoute(spec: RouteSpec): void {
  const dup = routes.find((r) => r.method === spec.method && r.path === spec.path);
  if (dup) throw new Error(`OpenAPI: ${spec.method.toUpperCase()} ${spec.path} registered twice`);
  routes.push({ ...spec, responses: withCommonErrors(spec) });
}

/**
 * The answers every route can give besides its own, from the shared error handler in its route
 * family's shape (src/http/errors.ts): 400 for a malformed URL or body, 413 for a body over
 * 100 kB, 503 when the store cannot serve now (docs/store.md). Where a route documents its own
 * body for one of them, the document allows either.
 */
function withCommonErrors(spec: RouteSpec): Record<number, RouteResponse> {
  const family = spec.path.startsWith('/api/checkout') ? CheckoutErrorBody : /^\/api\/(agent|chat)(\/|$)/.test(spec.path) ? AgentErrorBody : DeveloperErrorBody;
  if (!spec.path.startsWith('/api/')) return spec.responses;
  const common: Record<number, RouteResponse> = {
    400: { description: 'Malformed request (URL, Content-Type or JSON body).', schema: family },
    503: { description: 'The store could not serve the request just now; retry after `Retry-After` seconds.', schema: family, headers: { 'Retry-After': 'Seconds to wait before retrying.' } },
  };
  if (spec.method !== 'get') common[413] = { description: 'Request body over 100 kB.', schema: family };
  const responses = { ...spec.responses };
  for (const [status, c] of Object.entries(common)) {
    const own = responses[Number(status)];
    if (!own) responses[Number(status)] = c;
    else if (own.schema && own.schema !== family) responses[Number(status)] = { ...own, schema: z.union([own.schema, family]) };
  }
  return responses;
}

/**
 * Names a schema so it appears once under `components.schemas` and is referenced wherever it
 * is used (as a body, a response, or nested inside another named schema).
 */
export function registerSchema<S extends z.ZodType>(name: string, schema: S): S {
  const existing = components.get(name);
  if (existing && existing !== schema) throw new Error(`OpenAPI: schema name ${name} used for two schemas`);
  components.set(name, schema);
  return schema;
}

/** `/api/v1/payments/:id` -> `/api/v1/payments/{id}` */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:(\w+)/g, '{$1}');
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** JSON Schema from zod, tidied for embedding in an OpenAPI document. */
function tidy(schema: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const o: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(v)) {
      if (k === '$schema' || k === '$id') continue;
      // zod spells out the safe-integer range on every int: noise for readers.
      if ((k === 'minimum' && val === -SAFE) || (k === 'maximum' && val === SAFE)) continue;
      o[k] = walk(val);
    }
    return o;
  };
  return walk(schema) as Record<string, unknown>;
}

/**
 * Request side: a `default` is what the service fills in, not something the client must send.
 * Generators read a property with a default as always present (openapi-typescript's default
 * `defaultNonNullable`), which would make optional request fields required in typed clients; so
 * request schemas state the default in words instead.
 */
function defaultsToWords(schema: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const { default: dflt, ...rest } = v as Record<string, unknown>;
    const o: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(rest)) o[k] = walk(val);
    if (dflt !== undefined) {
      const note = `Default: ${JSON.stringify(dflt)}.`;
      o.description = typeof o.description === 'string' ? `${o.description} ${note}` : note;
    }
    return o;
  };
  return walk(schema) as Record<string, unknown>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function operationIdFor(r: RouteSpec): string {
  const words = r.path
    .replace(/^\/api/, '')
    .split(/[/-]/)
    .filter(Boolean)
    .map((w) => (w.startsWith(':') ? 'by_' + w.slice(1) : w));
  return [r.method, ...words].join('_').replace(/[^\w]/g, '_');
}

const SECURITY: Record<RouteAuth, Array<Record<string, string[]>>> = {
  bearer: [{ bearerAuth: [] }],
  session: [{ sessionCookie: [] }],
  sessionOrBearer: [{ bearerAuth: [] }, { sessionCookie: [] }],
  none: [],
};

export interface BuildOptions {
  /** Base URL the document's servers point at (PUBLIC_URL); relative when omitted. */
  publicUrl?: string;
  /** Include routes that exist only outside production. */
  includeDevRoutes?: boolean;
}

/** Builds the OpenAPI 3.1 document from every registered route. */
export function buildOpenApiDocument(opts: BuildOptions = {}): Record<string, unknown> {
  const base = (opts.publicUrl ?? '').replace(/\/+$/, '');
  const served = routes.filter((r) => opts.includeDevRoutes || !r.devOnly);

  // Name every body and response schema: named ones keep their name, the rest get one from
  // the operation. Requests are rendered as input (what a client may send: defaults are
  // optional), responses as output (what the service returns).
  const inputs = z.registry<{ id: string }>();
  const outputs = z.registry<{ id: string }>();
  const nameOf = new Map<z.ZodType, string>();
  for (const [name, schema] of components) nameOf.set(schema, name);
  const pascal = (s: string) => s.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase());
  const named = (schema: z.ZodType, fallback: string, reg: typeof inputs) => {
    const name = nameOf.get(schema) ?? fallback;
    nameOf.set(schema, name);
    if (!reg.has(schema)) reg.add(schema, { id: name });
    return name;
  };
  const bodyNames = new Map<RouteSpec, string>();
  const responseNames = new Map<string, string>();
  for (const r of served) {
    const op = r.operationId ?? operationIdFor(r);
    if (r.body) bodyNames.set(r, named(r.body, pascal(op) + 'Request', inputs));
    for (const [status, resp] of Object.entries(r.responses)) {
      if (resp.schema) responseNames.set(`${op} ${status}`, named(resp.schema, `${pascal(op)}Response${status}`, outputs));
    }
  }
  // Named schemas nested in others are shared through $ref, on the side they are used from.
  for (const [name, schema] of components) {
    if (!inputs.has(schema) && !outputs.has(schema)) outputs.add(schema, { id: name });
  }
  const common = { uri: (id: string) => `#/components/schemas/${id}`, unrepresentable: 'any' as const };
  const inSchemas = z.toJSONSchema(inputs, { ...common, io: 'input' }).schemas;
  const outSchemas = z.toJSONSchema(outputs, { ...common, io: 'output' }).schemas;
  const schemas: Record<string, unknown> = {};
  const sides = [...Object.entries(outSchemas).map((e) => [...e, false] as const), ...Object.entries(inSchemas).map((e) => [...e, true] as const)];
  for (const [name, s, input] of sides) {
    const t = input ? defaultsToWords(tidy(s as Record<string, unknown>)) : tidy(s as Record<string, unknown>);
    if (name in schemas && JSON.stringify(schemas[name]) !== JSON.stringify(t)) {
      // The same schema reads differently as input and output (a default or a transform).
      schemas[`${name}Input`] = t;
    } else schemas[name] = t;
  }

  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of served) {
    const op = r.operationId ?? operationIdFor(r);
    const onApi = r.path === '/api' || r.path.startsWith('/api/');
    const p = onApi ? openApiPath(r.path.slice(4)) : openApiPath(r.path);
    const item = (paths[p] ??= {});
    // Routes outside /api (health checks) are served from the site root.
    if (!onApi) item.servers = [{ url: base || '/' }];

    const parameters: unknown[] = [];
    const pathNames = [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    for (const name of pathNames) {
      const s = r.params?.shape[name] as z.ZodType | undefined;
      parameters.push({ name, in: 'path', required: true, schema: s ? tidy(z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>) : { type: 'string' } });
    }
    for (const [name, s] of Object.entries(r.query?.shape ?? {})) {
      const schema = s as z.ZodType;
      const json = tidy(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>);
      const { description, ...rest } = json;
      parameters.push({
        name,
        in: 'query',
        required: !schema.safeParse(undefined).success,
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
    for (const [name, h] of Object.entries(r.headers ?? {})) {
      parameters.push({
        name,
        in: 'header',
        required: h.required ?? false,
        description: h.description,
        schema: h.schema ? tidy(z.toJSONSchema(h.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>) : { type: 'string' },
      });
    }

    const responses: Record<string, unknown> = {};
    for (const [status, resp] of Object.entries(r.responses)) {
      const name = responseNames.get(`${op} ${status}`);
      responses[status] = {
        description: resp.description,
        ...(resp.headers
          ? { headers: Object.fromEntries(Object.entries(resp.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }])) }
          : {}),
        ...(name ? { content: { 'application/json': { schema: ref(name) } } } : {}),
      };
    }

    const bodyName = bodyNames.get(r);
    item[r.method] = {
      operationId: op,
      summary: r.summary,
      ...(r.description ? { description: r.description } : {}),
      tags: r.tags,
      security: SECURITY[r.auth],
      ...(parameters.length ? { parameters } : {}),
      ...(bodyName ? { requestBody: { required: true, content: { 'application/json': { schema: ref(bodyName) } } } } : {}),
      responses,
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'StablePay API',
      version: '1.0.0',
      description:
        'Hosted stablecoin payments: create a payment, send the customer to its checkout_url, confirm the outcome ' +
        'from webhooks or by reading the payment. Developer endpoints authenticate with a secret key ' +
        '(`Authorization: Bearer sk_live_...`); app endpoints also accept the session cookie.',
    },
    servers: [{ url: `${base}/api` }],
    tags: [...new Set(served.flatMap((r) => r.tags))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A secret key: `sk_live_` followed by 32+ base62 characters.' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'sp_session', description: 'Session cookie set by /auth/signup and /auth/login.' },
      },
    },
  };
}
