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
  return outcome.reply.endsWith(note) ? outcome : { ...outcome, reply: `${outcome.reply} ${note}` };
}

/**
 * The chat widget acts for the signed-in person, always in live mode (docs/test-mode.md), even
 * while the app shows test data (`sp_mode=test`): its replies then say so, so nobody takes a real
 * transfer for a test one (h16tour). A test key's held action confirmed there says test money instead.
 */
const LIVE_IN_TEST_VIEW: Readonly<Record<Lang, string>> = {
  en: 'Live mode: the assistant uses your real money, even while the app shows test data.',
  pcm: 'Live mode: the assistant dey use your real money, even as the app dey show test data.',
  sw: 'Hali halisi: msaidizi anatumia pesa zako halisi, hata programu ikionyesha data ya majaribio.',
  fr: "Mode réel : l'assistant utilise votre argent réel, même quand l'app affiche les données de test.",
  pt: 'Modo real: o assistente usa o seu dinheiro real, mesmo com o app mostrando dados de teste.',
  es: 'Modo real: el asistente usa tu dinero real, aunque la app muestre datos de prueba.',
  hi: 'Live mode: assistant aapka asli paisa istemal karta hai, chahe app test data dikha raha ho.',
  tl: 'Live mode: totoong pera mo ang ginagamit ng assistant, kahit test data ang ipinapakita ng app.',
};

/** A chat turn's outcome while the app shows test data: the live-mode note after its reply. */
export function markLiveInTestView(outcome: TurnOutcome, message: string): TurnOutcome {
  const note = LIVE_IN_TEST_VIEW[outcome.lang ?? detectLanguage(message)];
  return outcome.reply.endsWith(note) ? outcome : { ...outcome, reply: `${outcome.reply} ${note}` };
}
