import { Router } from 'express';
import { buildOpenApiDocument } from './openapi.js';

export function openapiRouter(): Router {
  const r = Router();
  let doc: unknown;
  r.get('/openapi.json', (_req, res) => {
    doc ??= buildOpenApiDocument();
    res.json(doc);
  });
  return r;
}
