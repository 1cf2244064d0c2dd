/** Placeholder replaced by the OpenAPI generator. */
export function buildOpenApiDocument(): unknown {
  return { openapi: '3.1.0', info: { title: 'StablePay API', version: '1.0.0' }, paths: {} };
}
