/**
 * The bazaar discovery listing (specs/extensions/bazaar.md; `@x402/extensions/bazaar`'s
 * `listResources` reads it): the payment sessions merchants marked `discoverable`, while they
 * can be paid, each as a DiscoveryResource whose `resource` is its x402_url, whose `accepts` are
 * exactly what that URL's 402 asks for, and whose `extensions.bazaar` is the same declaration the
 * 402 carries (built with the extension's own `declareDiscoveryExtension`).
 */
import type { Address } from 'viem';
import { z } from 'zod';
import { BAZAAR, declareDiscoveryExtension, type DiscoveryResource, type DiscoveryResourcesResponse } from '@x402/extensions/bazaar';
import type { Store } from '../store/index.js';
import { Payments, stablecoinText, type Payment } from '../payments/payments.js';
import { X402_VERSION, networkOf, type ExactEvmPort } from './exact-evm.js';
import type { PaymentRequirements } from './x402-schemas.js';
import { sessionRequirements, x402UrlFor } from './session.js';
import { PAYMENT_IDENTIFIER } from './payment-identifier.js';
import { declarePaymentIdentifierExtension } from '@x402/extensions/payment-identifier';

/** Query of `GET /api/x402/discovery/resources`: the extension's ListDiscoveryResourcesParams. */
export const DiscoveryQuery = z
  .object({
    type: z.string().max(20).optional(),
    payTo: z.string().max(128).optional(),
    scheme: z.string().max(64).optional(),
    network: z.string().max(64).optional(),
    extensions: z.string().max(64).optional().describe('Only resources declaring this extension key.'),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(100_000).default(0),
  })
  .strict();
export type DiscoveryQuery = z.infer<typeof DiscoveryQuery>;

/** What a settled session answers, as the bazaar `output.example`. */
const OUTPUT_EXAMPLE = { ok: true, id: 'pay_0000000000000000000000', status: 'settled', tx_hash: '0x' + '0'.repeat(64) };

/** The bazaar declaration of a session's x402_url: GET, no input, the JSON it answers once paid. */
export function sessionBazaar(): Record<string, unknown> {
  // `method` is a route-level field the resource-server middleware fills in; we serve the route ourselves.
  return declareDiscoveryExtension({ method: 'GET', output: { example: OUTPUT_EXAMPLE } } as never);
}

/** A session the public listing shows: marked discoverable, and live (a test-mode session is never offered to real agents). */
function listed(p: Pick<Payment, 'discoverable' | 'livemode'>): boolean {
  return p.discoverable === true && p.livemode !== false;
}

/** Extensions a session's 402 declares: payment-identifier always, bazaar when it is listed. */
export function sessionExtensions(p: Pick<Payment, 'discoverable' | 'livemode'>): Record<string, unknown> {
  return { [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false), ...(listed(p) ? sessionBazaar() : {}) };
}

export interface DiscoveryDeps {
  store: Store;
  port: Pick<ExactEvmPort, 'chainId' | 'tokenAddress' | 'eip712Domain'>;
  publicUrl: string;
  recipientFor(p: Payment): Promise<Address | undefined>;
  merchantName(p: Payment): Promise<string>;
  /**
   * A manual-capture session's `auth-capture` requirement (what its x402_url asks for), when the
   * chain has the escrow; without it such a session is paid `exact`, as its x402_url does.
   */
  manualRequirements?(p: Payment, payTo: Address, nowMs: number): PaymentRequirements | undefined;
}

/** The listing service the door calls (built by the composition root). */
export class Discovery {
  constructor(private readonly deps: DiscoveryDeps) {}

  list(q: DiscoveryQuery, nowMs = Date.now()): Promise<DiscoveryResourcesResponse> {
    return listDiscoverable(this.deps, q, nowMs);
  }
}

async function listDiscoverable(deps: DiscoveryDeps, q: DiscoveryQuery, nowMs: number): Promise<DiscoveryResourcesResponse> {
  const rows = await deps.store.table(Payments).findMany({ status: 'pending', discoverable: true }, { order: 'desc' });
  const network = networkOf(deps.port);
  const items: DiscoveryResource[] = [];
  // Filters that rule out every session answer at once; the rest need the session.
  const none = (q.type !== undefined && q.type !== 'http') || (q.network !== undefined && q.network !== network);
  if (!none) {
    for (const p of rows) {
      if (!listed(p)) continue;
      const payTo = await deps.recipientFor(p);
      if (!payTo) continue;
      if (q.payTo !== undefined && q.payTo.toLowerCase() !== payTo.toLowerCase()) continue;
      // The same requirement the x402_url answers (src/api/x402-pay.router.ts): auth-capture for a manual session.
      const manual = p.captureMethod === 'manual' && deps.manualRequirements;
      const requirements = manual ? deps.manualRequirements!(p, payTo, nowMs) : sessionRequirements(deps.port, { payTo, amount: BigInt(p.stablecoinAmount), expiresAt: p.expiresAt }, nowMs);
      if (!requirements) continue; // expired or closing: no longer payable
      if (q.scheme !== undefined && q.scheme !== requirements.scheme) continue;
      const extensions = sessionExtensions(p);
      if (q.extensions !== undefined && !(q.extensions in extensions)) continue;
      const name = await deps.merchantName(p);
      items.push({
        resource: x402UrlFor(deps.publicUrl, p.id),
        type: 'http',
        x402Version: X402_VERSION,
        accepts: [requirements as DiscoveryResource['accepts'][number]],
        lastUpdated: p.updatedAt,
        description: `${name}: ${p.description ?? `payment ${p.id}`} (${stablecoinText(p)} USDC)`,
        mimeType: 'application/json',
        serviceName: name.slice(0, 100),
        extensions,
      });
    }
  }
  return { x402Version: X402_VERSION, items: items.slice(q.offset, q.offset + q.limit), pagination: { limit: q.limit, offset: q.offset, total: items.length } };
}

export { BAZAAR };
