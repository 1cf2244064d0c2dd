/**
 * Webhook signature verification for merchants' receivers. Depends on node:crypto only, so
 * a receiver can import (or copy) this file alone.
 *
 * Header: `service-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`;
 * during a secret rotation the header carries one `v1=` per valid secret.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'service-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface ParsedSignature {
  timestamp: number;
  /** Every v1 value, lower-case hex. */
  signatures: string[];
}

/** Hex HMAC-SHA256 of "<timestamp>.<raw body>" under `secret`. */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(rawBody)
    .digest('hex');
}

/** Parses the header; undefined when it has no timestamp or no v1 value. Unknown schemes are ignored. */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const key = part.slice(0, i).trim();
    const value = part.slice(i + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-fA-F]{64}$/.test(value)) signatures.push(value.toLowerCase());
  }
  return timestamp === undefined || signatures.length === 0 ? undefined : { timestamp, signatures };
}

/**
 * True when one of the header's v1 values is the HMAC of this exact raw body under `secret`
 * and the timestamp is within `toleranceSeconds` of now (replays of old deliveries fail).
 * Pass the raw bytes as received: a re-serialised JSON body will not verify.
 */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
): boolean {
  if (typeof header !== 'string' || typeof secret !== 'string' || secret === '') return false;
  const parsed = parseSignatureHeader(header);
  if (!parsed) return false;
  const now = Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(computeSignature(secret, parsed.timestamp, rawBody), 'hex');
  let match = false;
  // Compare against every value without stopping early, each in constant time.
  for (const sig of parsed.signatures) {
    if (timingSafeEqual(expected, Buffer.from(sig, 'hex'))) match = true;
  }
  return match;
}
