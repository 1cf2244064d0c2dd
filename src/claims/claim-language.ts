/**
 * The claim page's language: the sender's chosen language (`Account.language`), else the one
 * their country speaks most among the page's languages, else English (docs/claims.md).
 */
import { CORRIDOR_LANGUAGES } from '../lib/languages.js';

/** The page speaks every corridor language. */
export const CLAIM_LANGUAGES = CORRIDOR_LANGUAGES;
export type ClaimLanguage = (typeof CLAIM_LANGUAGES)[number];

const BY_COUNTRY: Record<string, ClaimLanguage> = {
  KE: 'sw', TZ: 'sw', UG: 'sw',
  FR: 'fr', SN: 'fr', CI: 'fr', CM: 'fr', BJ: 'fr', TG: 'fr', ML: 'fr', BF: 'fr', NE: 'fr', GA: 'fr', CD: 'fr', CG: 'fr', RW: 'fr',
  BR: 'pt', PT: 'pt', AO: 'pt', MZ: 'pt',
  MX: 'es', CO: 'es', AR: 'es', PE: 'es', CL: 'es', GT: 'es', ES: 'es',
  IN: 'hi',
  NG: 'pcm',
  PH: 'tl',
};

export function claimLanguage(sender: { language?: string; country?: string }): ClaimLanguage {
  const chosen = sender.language?.toLowerCase();
  if (chosen && (CLAIM_LANGUAGES as readonly string[]).includes(chosen)) return chosen as ClaimLanguage;
  return (sender.country && BY_COUNTRY[sender.country.toUpperCase()]) || 'en';
}
