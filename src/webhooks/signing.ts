import { computeSignature } from './verify.js';

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
