/**
 * The service's receipt signing key (docs/receipts.md): an ES256 (P-256) key pair. From
 * RECEIPT_SIGNING_KEY (a private JWK as JSON; set the same one on every instance sharing a
 * database) or else generated once into DATA_DIR/secrets.json (mode 0600) with the other
 * server-only keys. Only the public half is ever published (/.well-known/jwks.json).
 */
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import { getOrCreateSecret } from '../chain/wallet-secrets.js';

export const RECEIPT_ALG = 'ES256';

export interface ReceiptKey {
  kid: string;
  privateKey: CryptoKey | Uint8Array;
  /** The public JWK as published: kty, crv, x, y, kid, alg, use. */
  publicJwk: JWK;
}

function newPrivateJwk(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return JSON.stringify(privateKey.export({ format: 'jwk' }));
}

export async function loadReceiptKey(opts: { dataDir: string; configured?: string }): Promise<ReceiptKey> {
  const text = opts.configured ?? (await getOrCreateSecret(opts.dataDir, 'receiptSigningKey', newPrivateJwk));
  let jwk: JWK;
  try {
    jwk = JSON.parse(String(text)) as JWK;
  } catch {
    throw new Error('the receipt signing key must be a private EC P-256 JWK as JSON');
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d || !jwk.x || !jwk.y) throw new Error('the receipt signing key must be a private EC P-256 JWK');
  const pub: JWK = { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y };
  const kid = await calculateJwkThumbprint(pub);
  return { kid, privateKey: await importJWK({ ...jwk, alg: RECEIPT_ALG }, RECEIPT_ALG), publicJwk: { ...pub, kid, alg: RECEIPT_ALG, use: 'sig' } };
}
