import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/webhooks/sender.js';

/** Retry-After on a 429/503 (RFC 9110 10.2.3): both forms, and what is not usable (issue 15, item 4). */
describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-27T10:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, relative to now; a past date means now', () => {
    expect(parseRetryAfter('Fri, 27 Nov 2026 10:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('caps a very long wait, and ignores what it cannot read', () => {
    expect(parseRetryAfter(String(7 * 86_400), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});
