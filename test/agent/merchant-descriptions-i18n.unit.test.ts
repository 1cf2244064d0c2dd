import { describe, expect, it } from 'vitest';
import { pendingDescription } from '../../src/agent/local/pending-descriptions-i18n.js';

/**
 * The merchant tools' held descriptions (refund, capture, void) in every language the local
 * engine speaks, from the figures their previews carry: the payment id and both amounts are kept
 * exactly, no English sentence is left, and a preview missing a figure keeps the English one.
 */
const LANGS = ['pcm', 'sw', 'fr', 'pt', 'es', 'hi', 'tl'] as const;
const ENGLISH = /\b(Refund|Capture|Release|of payment|held for|back to the payer|settlement wallet\.)\b/;
const details = { payment_id: 'pay_7Hq2kLm9', amount: '12.5', currency: 'EUR', stablecoin_amount_base_units: '13750000' };

describe('merchant tools: held descriptions in the person language', () => {
  for (const tool of ['refund_payment', 'capture_payment', 'void_payment']) {
    for (const lang of LANGS) {
      it(`${tool} in ${lang}`, () => {
        const text = pendingDescription(tool, details, lang)!;
        expect(text).toContain('pay_7Hq2kLm9');
        expect(text).toContain('12.5 EUR (13.75 USDC)');
        // Pidgin shares English words ("Refund", "wallet"): its own grammar marks it instead.
        if (lang === 'pcm') expect(text).toMatch(/\bwey\b/);
        else expect(text).not.toMatch(ENGLISH);
      });
    }
  }

  it("a refund's reason is carried as written, quoted", () => {
    expect(pendingDescription('refund_payment', { ...details, reason: 'colis abîmé' }, 'fr')).toMatch(/Motif : « colis abîmé »\.$/);
  });

  it('English, and details missing a figure, keep the tool sentence', () => {
    expect(pendingDescription('refund_payment', details, 'en')).toBeUndefined();
    expect(pendingDescription('capture_payment', { ...details, stablecoin_amount_base_units: undefined }, 'sw')).toBeUndefined();
  });
});
