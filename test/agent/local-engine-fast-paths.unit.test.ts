/**
 * The local engine's shortcuts (issue 23, agent turn) answer exactly what the long way does:
 * a zone validated once stays valid and an invalid one is never remembered as valid; UTC's
 * parts without Intl are Intl's; an ASCII word skips NFKD and folds to itself.
 */
import { describe, expect, it } from 'vitest';
import { partsInZone, safeTimeZone } from '../../src/agent/local/dates.js';
import { fold } from '../../src/agent/local/lexicon-i18n.js';

describe('local engine fast paths', () => {
  it('safeTimeZone: a valid zone is kept (also the second time), an invalid one is UTC every time', () => {
    for (let i = 0; i < 2; i++) {
      expect(safeTimeZone('Africa/Lagos')).toBe('Africa/Lagos');
      expect(safeTimeZone('America/New_York')).toBe('America/New_York');
      expect(safeTimeZone('Not/AZone')).toBe('UTC');
      expect(safeTimeZone('')).toBe('UTC');
      expect(safeTimeZone(undefined)).toBe('UTC');
    }
  });

  it("partsInZone('UTC') without Intl equals Intl's reading of the same instant (Etc/UTC)", () => {
    const instants = [0, 951_782_400_000, 1_773_223_200_000, 1_773_223_199_999, 4_102_444_799_000, 253_402_300_799_000];
    for (let k = 0; k < 500; k++) instants.push(Math.floor(Math.random() * 8_000_000_000_000));
    for (const ms of instants) expect(partsInZone(new Date(ms), 'UTC')).toEqual(partsInZone(new Date(ms), 'Etc/UTC'));
    // Outside four-digit years it takes the Intl path, as before.
    expect(partsInZone(new Date(Date.UTC(20000, 0, 1)), 'UTC').year).toBe(20000);
  });

  it('fold: ASCII words are unchanged, accented ones lose their marks', () => {
    for (const w of ['send', "don't", '@amina_ng', '500', 'ke$ha', '']) expect(fold(w)).toBe(w.normalize('NFKD').replace(/[\u0300-\u036f]/g, ''));
    expect(fold('envía')).toBe('envia');
    expect(fold('mañana')).toBe('manana');
    expect(fold('ﬁ')).toBe('fi'); // NFKD compatibility decomposition still applies to non-ASCII
  });
});
