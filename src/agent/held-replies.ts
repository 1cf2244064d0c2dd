/**
 * A person's short answer to the action the bot just held for them ("yes", "ok", "👍", "sawa",
 * "oui", "cancel", "no", "hapana", "wait"), typed instead of tapping a button. Not a reading of a
 * request (the local parser's ground): the conversation's. A typed answer never carries an action
 * out (Confirm runs only from its button or page, with the stored arguments); it cancels the
 * latest held action (which moves nothing) or shows it again with its buttons. A closed list per
 * language, whole messages only: anything more is an ordinary turn.
 */

/** Go on / not yet: the held action is shown again with Confirm and Cancel, nothing runs. */
const SHOW_AGAIN = [
  // en, pcm
  'yes', 'y', 'yeah', 'yep', 'yup', 'ok', 'okay', 'okey', 'k', 'kk', 'sure', 'confirm', 'confirmed', 'go', 'go ahead', 'do it', 'proceed', 'send it', 'pay it',
  'wait', 'hold on', 'one sec', 'later', 'not yet', 'oya', 'na so', 'correct',
  // fr, sw, es, pt, hi, tl
  'oui', 'ouais', "d'accord", 'daccord', 'vas-y', 'attends',
  'ndio', 'ndiyo', 'sawa', 'poa', 'ngoja', 'subiri',
  'si', 'sí', 'dale', 'vale', 'claro', 'espera',
  'sim', 'pode', 'beleza', 'espere', 'peraí',
  'haan', 'haa', 'ha', 'ji', 'theek hai', 'thik hai', 'ruko',
  'oo', 'opo', 'sige', 'teka', 'sandali',
  '👍', '✅', '👌', '🙏',
];

/** No / cancel: the latest held action of this chat is cancelled (moves nothing). */
const CANCEL = [
  'no', 'nope', 'nah', 'cancel', 'cancel it', 'cancel that', 'stop', "don't", 'dont', 'abort', 'never mind', 'nevermind', 'forget it', 'leave am', 'cancel am',
  'non', 'annule', 'annuler', 'laisse tomber',
  'hapana', 'acha', 'ghairi', 'sitisha',
  'cancela', 'cancelar', 'déjalo',
  'não', 'nao', 'cancele',
  'nahi', 'nahin', 'mat karo', 'rehne do',
  'hindi', 'huwag', 'wag', 'kanselahin', 'ayaw',
  '❌', '👎', '🛑', '✖',
];

const norm = (s: string) =>
  s
    .normalize('NFC')
    .toLowerCase()
    .replace(/[\uFE0F\u200D]|\p{Emoji_Modifier}/gu, '')
    .replace(/[.!,;:\s]+$/u, '')
    .replace(/^[\s]+/u, '')
    .replace(/\s+/gu, ' ');

const SHOWN = new Set(SHOW_AGAIN.map(norm));
const CANCELLED = new Set(CANCEL.map(norm));

/** What a whole message answers about a held action, or undefined when it is anything else. */
export function heldReply(message: string): 'show' | 'cancel' | undefined {
  const m = norm(message);
  if (CANCELLED.has(m)) return 'cancel';
  if (SHOWN.has(m)) return 'show';
  return undefined;
}
