import { describe, expect, it } from 'vitest';
import { pendingDescription } from '../../src/agent/local/pending-descriptions-i18n.js';
import { outcomeReply } from '../../src/agent/local/outcome-replies-i18n.js';
import { CORRIDOR_LANGUAGES } from '../../src/lib/languages.js';

/**
 * h17claimfee: a claim's texts, in all eight languages, say what DESIGN section 11 says: on
 * cancel or expiry the amount (its figure) comes back and our fee is kept. Before, every one said
 * all of it (or "it") comes back.
 */
const preview = { claim: true, amount_text: '1,000.00 KES', recipient: 'z•••@example.com', stablecoin_amount: '7.7', fee: '0.038', total_debit: '7.738' };
const sent = { type: 'claim', recipient: '+2547•••••111', amount_text: '1,000.00 KES', stablecoin_amount_base_units: '7700000', status: 'open', expires_at: '2026-12-07T00:00:00.000Z', claim_url: 'https://x.test/claim/abc' };
// The words that say the fee is kept (kept / not given back), per language.
const KEPT: Record<string, RegExp> = {
  en: /our (7\.70 USDC |0\.038 USDC )?fee is kept/,
  pcm: /we go keep (our|the 0\.038 USDC) charge/,
  sw: /ada yetu (ya 0\.038 USDC )?inabaki kwetu/,
  fr: /nos frais (de 0\.038 USDC )?sont conservés/,
  pt: /a nossa tarifa (de 0\.038 USDC )?fica retida/,
  es: /nuestra comisión (de 0\.038 USDC )?se queda/,
  hi: /hamari (0\.038 USDC )?fee nahi lautegi/,
  tl: /hindi na ibabalik ang singil namin/,
};
const ALL_BACK = /all of it comes back|everything go come back|yote yanarudi|tout vous revient|tudo volta|todo vuelve|poora paisa|babalik sa iyo ang lahat/;

describe('claim texts: the amount comes back, our fee is kept (8 languages)', () => {
  for (const lang of CORRIDOR_LANGUAGES) {
    it(`${lang}: the preview and the answer`, () => {
      if (lang !== 'en') {
        const d = pendingDescription('send_transfer', preview, lang)!;
        expect(d).toContain('7.70 USDC');
        expect(d).toMatch(KEPT[lang]!);
        expect(d).not.toMatch(ALL_BACK);
      }
      const r = outcomeReply('send_transfer', sent, lang)!;
      expect(r).toContain(sent.claim_url);
      expect(r.split('7.70 USDC').length - 1, r).toBe(2); // what is held, and what comes back
      expect(r).toMatch(KEPT[lang]!);
    });
  }
});
