import { describe, expect, it } from 'vitest';
import { readFile, stat } from 'node:fs/promises';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, jwtVerify, createLocalJWKSet } from 'jose';
import { loadReceiptKey } from '../../src/receipts/signing-key.js';
import { tempDir } from '../helpers/service.js';

describe('receipt signing key', () => {
  it('is generated once into secrets.json (mode 0600) and found again; only the public half is published', async () => {
    const dir = await tempDir('sp-rk-');
    const a = await loadReceiptKey({ dataDir: dir });
    const b = await loadReceiptKey({ dataDir: dir });
    expect(b.kid).toBe(a.kid);
    expect(a.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: a.kid });
    expect(a.publicJwk).not.toHaveProperty('d');
    const secrets = JSON.parse(await readFile(`${dir}/secrets.json`, 'utf8')) as { receiptSigningKey: string };
    expect(JSON.parse(secrets.receiptSigningKey)).toHaveProperty('d');
    expect((await stat(`${dir}/secrets.json`)).mode & 0o777).toBe(0o600);
    const jws = await new SignJWT({ x: 1 }).setProtectedHeader({ alg: 'ES256', kid: a.kid }).sign(a.privateKey);
    await expect(jwtVerify(jws, createLocalJWKSet({ keys: [b.publicJwk] }))).resolves.toBeTruthy();
  });

  it('RECEIPT_SIGNING_KEY (one key for every instance) wins over the file; a malformed one stops the start', async () => {
    const dir = await tempDir('sp-rk-');
    const jwk = JSON.stringify(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }));
    const one = await loadReceiptKey({ dataDir: dir, configured: jwk });
    const two = await loadReceiptKey({ dataDir: await tempDir('sp-rk-'), configured: jwk });
    expect(two.kid).toBe(one.kid);
    expect(one.kid).not.toBe((await loadReceiptKey({ dataDir: dir })).kid);
    await expect(loadReceiptKey({ dataDir: dir, configured: '{"kty":"oct"}' })).rejects.toThrow('P-256');
  });
});
