/**
 * A merchant's webhook receiver (plain node:http, no framework).
 *
 *   WEBHOOK_SECRET=whsec_... PORT=4242 npx tsx examples/webhook-receiver.ts
 *
 * then set https://<your host>/webhooks as the endpoint (PUT /api/webhook-endpoint) or as a
 * payment's `webhook_url`. What it does, in the order that matters:
 *   1. reads the RAW body (the signature covers the exact bytes; never re-serialise JSON);
 *   2. verifies `service-signature` with the secret and answers 400 if it does not match;
 *   3. answers 2xx at once, so no retry is triggered, and does the work afterwards;
 *   4. ignores duplicates: delivery is at-least-once, so the same event can arrive twice.
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';
import { verifyWebhookSignature } from '../src/webhooks/verify.js';

export interface PaymentEvent {
  id: string;
  type:
    | 'payment.settled'
    | 'payment.expired'
    | 'payment.failed'
    | 'payment.canceled'
    | 'payment.refunded'
    | 'refund.succeeded'
    | 'refund.failed';
  created: number;
  data: {
    id: string;
    reference: string;
    amount: number;
    currency: string;
    status: string;
    metadata: Record<string, unknown>;
    tx_hash?: string;
    amount_refunded?: number;
    refund?: { id: string; amount: number; currency: string; status: string; tx_hash: string | null };
  };
}

const MAX_BODY = 1024 * 1024;

export function createWebhookReceiver(secret: string, onEvent: (event: PaymentEvent) => Promise<void>): http.Server {
  // Use a unique index in your database instead: this set forgets on restart.
  const seen = new Set<string>();
  return http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/webhooks') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const header = req.headers['service-signature'];
      if (typeof header !== 'string' || !verifyWebhookSignature(raw, header, secret)) {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid signature');
        return;
      }
      let event: PaymentEvent;
      try {
        event = JSON.parse(raw.toString('utf8')) as PaymentEvent;
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('invalid JSON');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');

      // The event id (also the `webhook-id` header) is the same on every retry and differs
      // between events: two partial refunds of one payment are two `refund.succeeded` events.
      const key = event.id;
      if (seen.has(key)) return;
      seen.add(key);
      // Slow work (fulfilment, emails) happens after the answer.
      setImmediate(() => {
        onEvent(event).catch((err) => console.error('webhook handler failed', key, err));
      });
    });
  });
}

async function fulfil(event: PaymentEvent): Promise<void> {
  switch (event.type) {
    case 'payment.settled':
      console.log(`paid: ${event.data.reference || event.data.id} ${event.data.amount} ${event.data.currency} (tx ${event.data.tx_hash ?? '-'})`);
      break;
    case 'payment.expired':
    case 'payment.failed':
    case 'payment.canceled':
      console.log(`not paid (${event.data.status}): ${event.data.reference || event.data.id}`);
      break;
    case 'refund.succeeded':
    case 'refund.failed':
      console.log(`refund ${event.data.refund?.status}: ${event.data.refund?.amount} ${event.data.currency} of ${event.data.reference || event.data.id}`);
      break;
    case 'payment.refunded':
      console.log(`fully refunded: ${event.data.reference || event.data.id}`);
      break;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error('Set WEBHOOK_SECRET to the whsec_... secret from POST /api/webhook-secret');
    process.exit(1);
  }
  const port = Number(process.env.PORT ?? 4242);
  createWebhookReceiver(secret, fulfil).listen(port, () => console.log(`webhook receiver on http://localhost:${port}/webhooks`));
}
