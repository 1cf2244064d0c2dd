import type { Lang } from './language.js';

/**
 * Grounding's refusal (422 `not_grounded`, src/agent/grounding): which arguments of a money-moving
 * call are not in the person's own words, in the message's language, whichever engine asked for
 * the call. The `en` row is grounding's original sentence, unchanged.
 */
type Arg = 'amount' | 'currency' | 'recipient' | 'biller' | 'account_number' | 'market' | 'outcome' | 'payment_id';

const NAMES: Readonly<Record<Lang, Readonly<Record<Arg, string>>>> = {
  en: { amount: 'the amount', currency: 'the currency', recipient: 'the recipient', biller: 'the biller', account_number: 'the account or meter number', market: 'the market', outcome: 'the outcome', payment_id: 'the payment id' },
  pcm: { amount: 'the amount', currency: 'the currency', recipient: 'the person wey go receive', biller: 'the biller', account_number: 'the account or meter number', market: 'the market', outcome: 'the outcome', payment_id: 'the payment id' },
  sw: { amount: 'kiasi', currency: 'sarafu', recipient: 'mpokeaji', biller: 'mtoa huduma', account_number: 'namba ya akaunti au mita', market: 'soko', outcome: 'matokeo', payment_id: 'namba ya malipo' },
  fr: { amount: 'le montant', currency: 'la devise', recipient: 'le destinataire', biller: 'le facturier', account_number: 'le numéro de compte ou de compteur', market: 'le marché', outcome: "l'issue", payment_id: "l'identifiant du paiement" },
  pt: { amount: 'o valor', currency: 'a moeda', recipient: 'o destinatário', biller: 'a empresa da conta', account_number: 'o número da conta ou do medidor', market: 'o mercado', outcome: 'o resultado', payment_id: 'o id do pagamento' },
  es: { amount: 'el monto', currency: 'la moneda', recipient: 'el destinatario', biller: 'la empresa a pagar', account_number: 'el número de cuenta o medidor', market: 'el mercado', outcome: 'el resultado', payment_id: 'el id del pago' },
  hi: { amount: 'amount', currency: 'currency', recipient: 'paane wala', biller: 'biller', account_number: 'account ya meter number', market: 'market', outcome: 'outcome', payment_id: 'payment id' },
  tl: { amount: 'ang halaga', currency: 'ang currency', recipient: 'ang tatanggap', biller: 'ang biller', account_number: 'ang account o meter number', market: 'ang market', outcome: 'ang resulta', payment_id: 'ang payment id' },
};

const AND: Readonly<Record<Lang, string>> = { en: 'and', pcm: 'and', sw: 'na', fr: 'et', pt: 'e', es: 'y', hi: 'aur', tl: 'at' };

const SENTENCE: Readonly<Record<Lang, (list: string, many: boolean) => string>> = {
  en: (l, many) =>
    `I didn't do that: ${l} ${many ? 'are' : 'is'} not in your own words (quoted or forwarded text doesn't count). Nothing was sent. Write exactly what to do, e.g. "send 5,000 KES to @amina".`,
  pcm: (l) =>
    `I no do am: ${l} no dey for your own words (quoted or forwarded message no count). Nothing comot. Write exactly wetin make I do, like "send 5,000 NGN give @amaka".`,
  sw: (l, many) =>
    `Sikufanya hivyo: ${l} ${many ? 'havimo' : 'hakimo'} kwenye maneno yako mwenyewe (maandishi yaliyonukuliwa au kusambazwa hayahesabiki). Hakuna kilichotumwa. Andika hasa cha kufanya, mfano "tuma 5,000 KES kwa @amina".`,
  fr: (l, many) =>
    `Je ne l'ai pas fait : ${l} ${many ? 'ne sont pas' : "n'est pas"} dans vos propres mots (un texte cité ou transféré ne compte pas). Rien n'a été envoyé. Écrivez exactement quoi faire, par ex. « envoie 5 000 XOF à @moussa ».`,
  pt: (l, many) =>
    `Não fiz isso: ${l} não ${many ? 'estão' : 'está'} nas suas próprias palavras (texto citado ou encaminhado não conta). Nada foi enviado. Escreva exatamente o que fazer, por ex. "manda 50 reais pra @ana".`,
  es: (l, many) =>
    `No lo hice: ${l} no ${many ? 'están' : 'está'} en tus propias palabras (un texto citado o reenviado no cuenta). No se envió nada. Escribe exactamente qué hacer, p. ej. "envía 500 pesos a @juan".`,
  hi: (l) =>
    `Maine yeh nahi kiya: ${l} aapke apne shabdon mein nahi hai (quote ya forward kiya text nahi ginta). Kuch nahi bheja gaya. Saaf likhiye kya karna hai, jaise "@priya ko 500 rupaye bhejo".`,
  tl: (l) =>
    `Hindi ko ginawa: wala sa sarili mong salita ${l} (hindi kasama ang quoted o forwarded na text). Walang naipadala. Isulat nang eksakto ang gagawin, hal. "padala 500 pesos kay @jose".`,
};

export function notGroundedReply(missing: readonly string[], lang: Lang = 'en'): string {
  const names = missing.map((m) => NAMES[lang][m as Arg] ?? m);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} ${AND[lang]} ${names[names.length - 1]}` : (names[0] ?? '');
  return SENTENCE[lang](list, names.length > 1);
}
