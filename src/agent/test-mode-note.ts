import { detectLanguage, type Lang } from './local/language.js';
import type { TurnOutcome } from './turn-outcomes.js';

/**
 * What every reply to a test-mode caller (a test key, a test key's held action) says after its own
 * words, in the reply's language (h16tour: "Sent 5 USD to @amina." to a test key read exactly like
 * a live transfer).
 */
const NOTE: Readonly<Record<Lang, string>> = {
  en: 'Test mode: test money only, no real money moved.',
  pcm: 'Test mode: na test money, no real money move.',
  sw: 'Hali ya majaribio: pesa za majaribio tu, hakuna pesa halisi iliyohamishwa.',
  fr: "Mode test : argent de test uniquement, aucun argent réel n'a bougé.",
  pt: 'Modo de teste: só dinheiro de teste, nenhum dinheiro real foi movimentado.',
  es: 'Modo de prueba: solo dinero de prueba, no se movió dinero real.',
  hi: 'Test mode: sirf test paisa, koi asli paisa nahi gaya.',
  tl: 'Test mode: pang-test na pera lang, walang totoong perang gumalaw.',
};

export const testModeNote = (lang: Lang = 'en'): string => NOTE[lang];

/**
 * The outcome with the test-mode note after its reply (once), in the reply's language (else the
 * language of the person's `message`); a live outcome unchanged.
 */
export function markMode(outcome: TurnOutcome, livemode: boolean | undefined, message?: string): TurnOutcome {
  if (livemode !== false) return outcome;
  const note = testModeNote(outcome.lang ?? (message ? detectLanguage(message) : 'en'));
  return outcome.reply.includes(note) ? outcome : { ...outcome, reply: `${outcome.reply} ${note}` };
}
