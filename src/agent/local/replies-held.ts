import type { Lang } from './language.js';

/**
 * The local engine's words for a money-moving call it understood but did not act on at once
 * (reading.ts): what it understood, what it could not place, and that a person must confirm;
 * and for a request it read inside quoted or forwarded text. In the message's language.
 */

type Texts = Readonly<Record<Lang, string>>;

const HELD: Texts = {
  en: 'I have not done this yet: I could not place every word of your message ({left}). Here is what I understood:',
  pcm: 'I never do am yet: some words for your message no clear me ({left}). Na wetin I understand be this:',
  sw: 'Sijafanya bado: sikuelewa kila neno la ujumbe wako ({left}). Hivi ndivyo nilivyoelewa:',
  fr: "Je ne l'ai pas encore fait : je n'ai pas compris chaque mot de votre message ({left}). Voici ce que j'ai compris :",
  pt: 'Ainda não fiz: não entendi todas as palavras da sua mensagem ({left}). Foi isto que entendi:',
  es: 'Todavía no lo hice: no entendí todas las palabras de tu mensaje ({left}). Esto es lo que entendí:',
  hi: 'Maine abhi kuch nahi kiya: aapke message ke kuch shabd samajh nahi aaye ({left}). Maine yeh samjha:',
  tl: 'Hindi ko pa ito ginawa: may mga salita sa mensahe mo na hindi ko naintindihan ({left}). Ito ang naintindihan ko:',
};

const CONFIRM: Texts = {
  en: 'Confirm to go ahead, or cancel.',
  pcm: 'Confirm make I do am, or cancel.',
  sw: 'Thibitisha niendelee, au ghairi.',
  fr: 'Confirmez pour continuer, ou annulez.',
  pt: 'Confirme para continuar, ou cancele.',
  es: 'Confirma para continuar, o cancela.',
  hi: 'Aage badhne ke liye confirm kijiye, ya cancel kijiye.',
  tl: 'I-confirm para ituloy, o i-cancel.',
};

export const QUOTED_INSTRUCTION: Texts = {
  en: 'That request is inside quoted or forwarded text, so I treat it as information, not as your instruction. Nothing was sent. If you want to pay, write the request in your own words.',
  pcm: 'That request dey inside quote or forward message, so I no take am as your own instruction. I no send anything. If you wan pay, write am with your own mouth.',
  sw: 'Ombi hilo liko ndani ya ujumbe ulionukuliwa au kutumwa upya, kwa hiyo silichukui kama agizo lako. Hakuna kilichotumwa. Ukitaka kulipa, andika ombi kwa maneno yako.',
  fr: "Cette demande est dans un texte cité ou transféré : je la traite comme une information, pas comme votre instruction. Rien n'a été envoyé. Pour payer, écrivez la demande avec vos propres mots.",
  pt: 'Esse pedido está num texto citado ou encaminhado, então trato como informação, não como sua instrução. Nada foi enviado. Se quiser pagar, escreva o pedido com suas palavras.',
  es: 'Esa solicitud está en un texto citado o reenviado, así que la trato como información, no como tu instrucción. No se envió nada. Si quieres pagar, escribe la solicitud con tus palabras.',
  hi: 'Yeh request quote ya forward kiye gaye message ke andar hai, isliye main ise aapka instruction nahi maanta. Kuch nahi bheja. Pay karna hai to apne shabdon mein likhiye.',
  tl: 'Ang request na iyan ay nasa loob ng quoted o forwarded na mensahe, kaya impormasyon lang iyan, hindi utos mo. Walang naipadala. Kung gusto mong magbayad, isulat ito sa sarili mong salita.',
};

/** "pesos" read as the recipient's own pesos ({cur}: MXN or PHP), a named inference the person confirms. */
const PESOS: Texts = {
  en: 'I have not done this yet: you wrote "pesos" without saying which, so I used {name} ({cur}), the currency {to} receives. Here is what I understood:',
  pcm: 'I never do am yet: you write "pesos" but you no talk which one, so I use {name} ({cur}), na the money {to} dey receive. Na wetin I understand be this:',
  sw: 'Sijafanya bado: uliandika "pesos" bila kusema ni zipi, kwa hiyo nimetumia {name} ({cur}), sarafu anayopokea {to}. Hivi ndivyo nilivyoelewa:',
  fr: "Je ne l'ai pas encore fait : vous avez écrit « pesos » sans préciser lesquels, j'ai donc pris {name} ({cur}), la devise que reçoit {to}. Voici ce que j'ai compris :",
  pt: 'Ainda não fiz: você escreveu "pesos" sem dizer quais, então usei {name} ({cur}), a moeda que {to} recebe. Foi isto que entendi:',
  es: 'Todavía no lo hice: escribiste "pesos" sin decir cuáles, así que usé {name} ({cur}), la moneda que recibe {to}. Esto es lo que entendí:',
  hi: 'Maine abhi kuch nahi kiya: aapne "pesos" likha par kaunse nahi bataya, isliye maine {name} ({cur}) liye, jo {to} ko milte hain. Maine yeh samjha:',
  tl: 'Hindi ko pa ito ginawa: "pesos" ang isinulat mo pero hindi mo sinabi kung alin, kaya {name} ({cur}) ang ginamit ko, ang perang natatanggap ni {to}. Ito ang naintindihan ko:',
};
const PESO_NAMES: Readonly<Record<'MXN' | 'PHP', Texts>> = {
  MXN: { en: 'Mexican pesos', pcm: 'Mexican pesos', sw: 'pesos za Mexico', fr: 'des pesos mexicains', pt: 'pesos mexicanos', es: 'pesos mexicanos', hi: 'Mexican pesos', tl: 'Mexican pesos' },
  PHP: { en: 'Philippine pesos', pcm: 'Philippine pesos', sw: 'pesos za Ufilipino', fr: 'des pesos philippins', pt: 'pesos filipinos', es: 'pesos filipinos', hi: 'Philippine pesos', tl: 'piso ng Pilipinas' },
};

export function pesosHeldReply(lang: Lang, currency: 'MXN' | 'PHP', recipient: string, description: string): string {
  const lead = PESOS[lang].replace('{name}', PESO_NAMES[currency][lang]).replace('{cur}', currency).replace('{to}', recipient);
  return `${lead}\n${description}\n${CONFIRM[lang]}`;
}

/** The whole reply of a held call: why it waits, what was understood (the agent's description), confirm or cancel. */
export function heldReply(lang: Lang, leftover: readonly string[], description: string): string {
  const left = leftover.map((w) => `"${w}"`).join(', ');
  return `${HELD[lang].replace('{left}', left)}\n${description}\n${CONFIRM[lang]}`;
}
