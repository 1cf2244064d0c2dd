import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseSignatureHeader, verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { signatureHeader } from '../../src/webhooks/signing.js';

const secret = 'whsec_test_secret_value';
const body = JSON.stringify({ id: 'evt_1', type: 'payment.settled', data: { id: 'pay_1' } });
const sign = (t: number, s = secret, b = body) => createHmac('sha256', s).update(`${t}.${b}`).digest('hex');
const now = () => Math.floor(Date.now() / 1000);

describe('verifyWebhookSignature', () => {
  it('accepts a fresh, correct signature for a string or Buffer body', () => {
    const t = now();
    const header = `t=${t},v1=${sign(t)}`;
    expect(verifyWebhookSignature(body, header, secret)).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header, secret)).toBe(true);
  });

  it('accepts any one of several v1 values (rotation overlap) and ignores unknown schemes', () => {
    const t = now();
    expect(verifyWebhookSignature(body, `t=${t},v0=abc,v1=${sign(t, 'whsec_other')},v1=${sign(t)}`, secret)).toBe(true);
  });

  it('rejects a tampered body, a wrong secret, stale or future timestamps, and malformed headers', () => {
    const t = now();
    expect(verifyWebhookSignature(body + ' ', `t=${t},v1=${sign(t)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t},v1=${sign(t)}`, 'whsec_wrong')).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t - 301},v1=${sign(t - 301)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t - 301},v1=${sign(t - 301)}`, secret, 600)).toBe(true);
    expect(verifyWebhookSignature(body, `t=${t + 3600},v1=${sign(t + 3600)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `v1=${sign(t)}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t}`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t},v1=zz`, secret)).toBe(false);
    expect(verifyWebhookSignature(body, '', secret)).toBe(false);
    expect(verifyWebhookSignature(body, `t=${t},v1=${sign(t)}`, '')).toBe(false);
  });

  it('matches the server-side header builder', () => {
    const header = signatureHeader(body, [secret, 'whsec_previous'], Date.now());
    expect(parseSignatureHeader(header)?.signatures).toHaveLength(2);
    expect(verifyWebhookSignature(body, header, secret)).toBe(true);
    expect(verifyWebhookSignature(body, header, 'whsec_previous')).toBe(true);
  });
});
