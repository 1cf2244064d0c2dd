import type { Lang } from './language.js';

/**
 * The last line of a held action (a preview or a people-facing channel's Confirm step) in the
 * message's language: confirm or cancel, and when it expires. The `en` row is the agent's own
 * sentence (src/agent/turn-outcomes.ts pendingResult), unchanged.
 */
const ASK: Readonly<Record<Lang, (n: number) => string>> = {
  en: (n) => `Confirm to go ahead, or cancel. This expires in ${n} minute${n === 1 ? '' : 's'}.`,
  pcm: (n) => `Confirm make I do am, or cancel. E go expire for ${n} minute${n === 1 ? '' : 's'} time.`,
  sw: (n) => `Thibitisha niendelee, au ghairi. Muda wake unaisha baada ya dakika ${n}.`,
  fr: (n) => `Confirmez pour continuer, ou annulez. Expire dans ${n} minute${n === 1 ? '' : 's'}.`,
  pt: (n) => `Confirme para continuar, ou cancele. Expira em ${n} minuto${n === 1 ? '' : 's'}.`,
  es: (n) => `Confirma para continuar, o cancela. Vence en ${n} minuto${n === 1 ? '' : 's'}.`,
  hi: (n) => `Aage badhne ke liye confirm kijiye, ya cancel kijiye. Yeh ${n} minute mein expire ho jayega.`,
  tl: (n) => `I-confirm para ituloy, o i-cancel. Mag-e-expire ito sa loob ng ${n} minuto.`,
};

/** "This expires in N minutes." alone, after a spend policy's approval note. */
const EXPIRES: Readonly<Record<Lang, (n: number) => string>> = {
  en: (n) => `This expires in ${n} minute${n === 1 ? '' : 's'}.`,
  pcm: (n) => `E go expire for ${n} minute${n === 1 ? '' : 's'} time.`,
  sw: (n) => `Muda wake unaisha baada ya dakika ${n}.`,
  fr: (n) => `Expire dans ${n} minute${n === 1 ? '' : 's'}.`,
  pt: (n) => `Expira em ${n} minuto${n === 1 ? '' : 's'}.`,
  es: (n) => `Vence en ${n} minuto${n === 1 ? '' : 's'}.`,
  hi: (n) => `Yeh ${n} minute mein expire ho jayega.`,
  tl: (n) => `Mag-e-expire ito sa loob ng ${n} minuto.`,
};

export function pendingExpires(lang: Lang, minutes: number): string {
  return EXPIRES[lang](minutes);
}

export function pendingAsk(lang: Lang, minutes: number): string {
  return ASK[lang](minutes);
}

/**
 * Telegram's Confirm step says when the action expires as a clock time ("14:32 UTC"), since the
 * message stays in the chat; the same words as ASK otherwise. The `en` row is the door's own sentence.
 */
const ASK_AT: Readonly<Record<Lang, (at: string) => string>> = {
  en: (at) => `Confirm to go ahead, or cancel. This expires at ${at}.`,
  pcm: (at) => `Confirm make I do am, or cancel. E go expire by ${at}.`,
  sw: (at) => `Thibitisha niendelee, au ghairi. Muda wake unaisha saa ${at}.`,
  fr: (at) => `Confirmez pour continuer, ou annulez. Expire à ${at}.`,
  pt: (at) => `Confirme para continuar, ou cancele. Expira às ${at}.`,
  es: (at) => `Confirma para continuar, o cancela. Vence a las ${at}.`,
  hi: (at) => `Aage badhne ke liye confirm kijiye, ya cancel kijiye. Yeh ${at} par expire ho jayega.`,
  tl: (at) => `I-confirm para ituloy, o i-cancel. Mag-e-expire ito nang ${at}.`,
};

/** "Confirm or cancel; it expires at <clock time>" in the language; English for a language the engine did not read. */
export function pendingAskAt(lang: Lang | undefined, at: string): string {
  return ASK_AT[lang ?? 'en'](at);
}
