import { afterEach, describe, expect, it } from 'vitest';
import { redirectUrlFor } from '../../src/checkout-sessions/redirect-url.js';

/** What redirectFor did before (and still does off the fast path): WHATWG URL and searchParams.set. */
function viaUrl(redirectUrl: string, id: string, status: string): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('payment_id', id);
  url.searchParams.set('status', status);
  return url.toString();
}

const URLS = [
  'https://shop.example/done',
  'https://shop.example/done?',
  'https://shop.example/done#thanks',
  'https://shop.example/done?order=42#thanks',
  'https://shop.example/done?status=old&payment_id=x&status=older&a=1',
  'https://shop.example/done?payment_id=first&keep=%20a+b&q=caf%C3%A9',
  'https://shop.example/d%C3%B6ne?x=ä ö&y=a%2Bb',
  'https://shop.example:8443/a/../b/./c?x',
  'http://[::1]:3000/back?x=1',
  'HTTPS://Shop.Example/Done?Q=1',
  'https://user:pw@shop.example/done?x=y',
  'https://shop.example/done?x=zQpaymentIdMark7q',
  'https://shop.example/zQstatusMark7q/zQstatusMark7q',
  'https://shop.example/done?a=&&b',
  'custom-app://callback/path?x=1',
  'https://xn--caf-dma.example/done',
  'https://café.example/done',
];
const IDS = ['pay_4f9c2a1b', 'pay_x-y.z', '', 'pay with space', 'pay/é&=?#', "pay'*~!()"];
const STATUSES = ['settled', 'failed', 'pending', 'canceled', 'a b', '&'];

describe('redirectUrlFor', () => {
  const RealURL = globalThis.URL;
  afterEach(() => {
    globalThis.URL = RealURL;
  });

  it('gives the string URL and searchParams.set give, for every URL, id and status shape', () => {
    for (const u of URLS) {
      for (const id of IDS) {
        for (const status of STATUSES) {
          // Twice: the first builds the template, the second uses it.
          expect(redirectUrlFor(u, id, status)).toBe(viaUrl(u, id, status));
          expect(redirectUrlFor(u, id, status)).toBe(viaUrl(u, id, status));
        }
      }
    }
  });

  it('throws as URL does on a URL that does not parse', () => {
    for (const bad of ['not a url', '', '/relative/only', 'https://']) {
      expect(() => redirectUrlFor(bad, 'pay_1', 'settled')).toThrow(TypeError);
      expect(() => redirectUrlFor(bad, 'pay_1', 'settled')).toThrow(TypeError);
    }
  });

  it('parses a merchant redirect URL once, not once per answer', () => {
    let built = 0;
    globalThis.URL = class extends RealURL {
      constructor(...args: ConstructorParameters<typeof RealURL>) {
        super(...args);
        built++;
      }
    } as typeof URL;
    const u = `https://shop.example/once-${Date.now()}?order=7`;
    for (let i = 0; i < 50; i++) expect(redirectUrlFor(u, `pay_${i}`, 'settled')).toBe(`https://shop.example/once-${u.split('once-')[1]!.split('?')[0]}?order=7&payment_id=pay_${i}&status=settled`);
    expect(built).toBe(1);
  });
});
