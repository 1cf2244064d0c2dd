import { Router } from 'express';
import { z } from 'zod';
import type { Core } from '../core/core.js';
import { registerRoute } from '../http/openapi.js';
import { DiscoveryQuery } from '../x402/discovery.js';

const DiscoveryResponse = z.object({
  x402Version: z.number().int(),
  items: z.array(
    z.object({
      resource: z.string().describe("The session's x402_url."),
      type: z.literal('http'),
      x402Version: z.number().int(),
      accepts: z.array(z.record(z.string(), z.unknown())).describe('Exactly what the resource answers in its 402.'),
      lastUpdated: z.string(),
      description: z.string().optional(),
      mimeType: z.string().optional(),
      serviceName: z.string().optional(),
      extensions: z.record(z.string(), z.unknown()).optional().describe('`bazaar` (info + schema) and `payment-identifier`, as in the 402.'),
    }),
  ),
  pagination: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
});
const DiscoveryError = z.object({ error: z.string(), message: z.string() });

registerRoute({
  method: 'get',
  path: '/api/x402/discovery/resources',
  operationId: 'x402DiscoveryResources',
  summary: 'x402 bazaar: payment sessions merchants made discoverable',
  description:
    'Public, no key. The bazaar extension\'s discovery listing (read by `withBazaar(client).extensions.bazaar.listResources`): ' +
    'every live (not test-mode) session created with `discoverable: true` while it can be paid, newest first, `limit`/`offset` paginated; ' +
    '`accepts` is what its x402_url answers (`auth-capture` for a manual-capture session).',
  tags: ['x402'],
  auth: 'none',
  query: DiscoveryQuery,
  responses: {
    200: { description: 'One page of resources.', schema: DiscoveryResponse },
    400: { description: 'A query parameter is not valid.', schema: DiscoveryError },
  },
});

/** The public bazaar listing (docs/x402.md "Discovery"); before x402Router, whose routes need a key. */
export function x402DiscoveryRouter(deps: Core): Router {
  const r = Router();
  r.get('/x402/discovery/resources', async (req, res) => {
    const q = DiscoveryQuery.safeParse(req.query);
    if (!q.success) {
      const issue = q.error.issues[0]!;
      res.status(400).json({ error: 'invalid_request', message: `${issue.path.join('.') || 'query'}: ${issue.message}` });
      return;
    }
    const page = await deps.discovery.list(q.data);
    res.set('Cache-Control', 'no-store').json(page);
  });
  return r;
}
