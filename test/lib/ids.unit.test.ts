import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from '../../src/lib/ids.js';

describe('ids', () => {
  it('are the prefix and 24 base62 characters, never repeated', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = newId('pay');
      expect(id).toMatch(/^pay_[0-9A-Za-z]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(20_000);
  });

  it('draw every base62 character about equally often (no modulo bias, the pool refills)', () => {
    // 62 * 4,000 characters span many 4 KiB pool refills; a biased or stuck source fails this.
    const counts = new Map<string, number>();
    const text = randomBase62(62 * 4_000);
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    let chi = 0;
    for (const n of counts.values()) chi += (n - 4_000) ** 2 / 4_000;
    // 61 degrees of freedom: the 99.99th percentile is about 112.
    expect(chi).toBeLessThan(120);
  });
});
