import { createHmac } from 'node:crypto';
import { computeSignature } from './verify.js';
import { SECRET_PREFIX } from './secrets.js';

/**
 * The `service-signature` header for one delivery attempt: a fresh timestamp and one v1
 * value per secret (current first, then the previous one during a rotation overlap), as
 * Stripe does, so receivers holding either secret verify.
 */
export function signatureHeader(rawBody: string, secrets: readonly string[], nowMs = Date.now()): string {
  if (secrets.length === 0) throw new Error('no signing secret');
  const t = Math.floor(nowMs / 1000);
  return [`t=${t}`, ...secrets.map((s) => `v1=${computeSignature(s, t, rawBody)}`)].join(',');
}

/**
 * The Standard Webhooks key of a `whsec_` secret: the spec (and its `standardwebhooks` and
 * `svix` libraries) reads the part after the prefix as base64. New secrets are base64 of 24
 * random bytes; older ones are 40 base62 characters, which are valid base64 too (30 bytes),
 * so every secret a merchant holds verifies as shown.
 */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/**
 * Standard Webhooks headers (https://www.standardwebhooks.com): `webhook-id` (the event id, the
 * same on every retry), `webhook-timestamp` (unix seconds of this attempt) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per valid secret,
 * space-separated, as the spec does during a rotation).
 */
export function standardWebhookHeaders(
  eventId: string,
  rawBody: string,
  secrets: readonly string[],
  nowMs = Date.now(),
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  if (secrets.length === 0) throw new Error('no signing secret');
  const t = String(Math.floor(nowMs / 1000));
  const signed = `${eventId}.${t}.${rawBody}`;
  const signature = secrets
    .map((s) => `v1,${createHmac('sha256', standardWebhooksKey(s)).update(signed).digest('base64')}`)
    .join(' ');
  return { 'webhook-id': eventId, 'webhook-timestamp': t, 'webhook-signature': signature };
}
