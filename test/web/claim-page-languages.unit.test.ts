import { describe, expect, it } from 'vitest';
import { claimPage, type ClaimView } from '../../src/web/pages/claim.js';
import { CLAIM_LANGUAGES } from '../../src/claims/claim-language.js';

/** Issue 26: the claim page explains the money in the sender's chosen language, any of the eight. */
const view = (language: ClaimView['language']): ClaimView => ({
  senderName: 'Wanjiru',
  amountText: '1,000 KES',
  usdcText: '7.75 USDC',
  contactKind: 'phone',
  maskedContact: '+2547•••••678',
  expiresOn: '5 Dec 2026',
  status: 'open',
  language,
  testMode: false,
});

const FIRST_LINE: Record<string, string> = {
  en: 'Wanjiru sent you 1,000 KES.',
  fr: 'Wanjiru vous a envoyé 1,000 KES.',
  sw: 'Wanjiru amekutumia 1,000 KES.',
  pt: 'Wanjiru enviou 1,000 KES para você.',
  es: 'Wanjiru te envió 1,000 KES.',
  hi: 'Wanjiru ne aapko 1,000 KES bheje hain.',
  pcm: 'Wanjiru don send 1,000 KES give you.',
  tl: 'Pinadalhan ka ni Wanjiru ng 1,000 KES.',
};

describe('claim page languages', () => {
  it('speaks all eight corridor languages', () => {
    expect([...CLAIM_LANGUAGES].sort()).toEqual(Object.keys(FIRST_LINE).sort());
  });

  for (const lang of CLAIM_LANGUAGES) {
    it(`${lang}: who sent what, in that language, with the page's lang attribute`, () => {
      const html = claimPage(view(lang), { action: '/claim/tok' });
      expect(html).toContain(`<html lang="${lang}">`);
      expect(html).toContain(FIRST_LINE[lang]!.replace(/'/g, '&#39;'));
      if (lang !== 'en') expect(html).not.toContain('sent you 1,000 KES');
    });
  }
});
