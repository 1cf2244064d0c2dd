import type { Lang } from './language.js';
import { HELP_TEXT, NOT_UNDERSTOOD, replies } from './replies.js';
import { BILL_ACCOUNT_QUESTION, MORE_FIXED, MORE_VARIABLE } from './replies-builders-i18n.js';
import { accountLabel } from './account-labels-i18n.js';

/**
 * The parser's own questions ("how much?", "to whom?", "which market?") in the message's
 * language. Keyed by the English text the builders produce, so a builder keeps one source of
 * truth; a reply without a translation here stays in English.
 */

type Tr = Readonly<Record<Exclude<Lang, 'en'>, string>>;

const FIXED: ReadonlyArray<[string, Tr]> = [
  // A greeting or "help" in another language ("bro niaje, uko poa?", "bonjour"): what the service does, in it.
  [HELP_TEXT, {
    pcm: 'I fit send money, pay bills, run prediction markets, make payment links and show your balance. Try "send 5k to @amaka", "pay my IKEDC meter 45123456789 with 3000 naira" or "wetin remain for my wallet?".',
    sw: 'Naweza kutuma pesa, kulipa bili, masoko ya utabiri, viungo vya malipo na kukuonyesha salio. Jaribu "tuma 500 kwa @zawadi", "lipa KPLC token 1000 meter 37123456789" au "salio langu ni ngapi?".',
    fr: "Je peux envoyer de l'argent, payer des factures, gérer des marchés de prédiction, créer des liens de paiement et afficher votre solde. Essayez « envoie 5000 à @moussa » ou « c'est combien mon solde ? ».",
    pt: 'Posso enviar dinheiro, pagar contas, criar mercados de previsão, links de pagamento e mostrar seu saldo. Tente "manda 50 pra @ana" ou "quanto tenho na conta?".',
    es: 'Puedo enviar dinero, pagar servicios, crear mercados de predicción, links de cobro y mostrar tu saldo. Prueba "envía 500 a @juan" o "¿cuánto saldo tengo?".',
    hi: 'Main paise bhej sakta hoon, bill bhar sakta hoon, prediction market, payment link bana sakta hoon aur balance dikha sakta hoon. Try: "@priya ko 500 bhejo" ya "mera balance kitna hai?".',
    tl: 'Kaya kong magpadala ng pera, magbayad ng bills, gumawa ng prediction market at payment link, at ipakita ang balance mo. Subukan: "padala 500 kay @liza" o "magkano laman ng wallet ko?".',
  }],
  [NOT_UNDERSTOOD, {
    pcm: 'Sorry, I no understand. I fit send money, pay bills, run prediction markets, make payment links and show your balance. Try "send 5k to @amaka".',
    sw: 'Samahani, sijaelewa. Naweza kutuma pesa, kulipa bili, masoko ya utabiri, viungo vya malipo na salio. Jaribu "tuma 500 kwa @zawadi".',
    fr: "Désolé, je n'ai pas compris. Je peux envoyer de l'argent, payer des factures, gérer des marchés de prédiction, créer des liens de paiement et afficher votre solde. Essayez « envoie 5000 à @moussa ».",
    pt: 'Desculpe, não entendi. Posso enviar dinheiro, pagar contas, criar mercados de previsão, links de pagamento e mostrar seu saldo. Tente "manda 50 pra @ana".',
    es: 'Perdón, no entendí. Puedo enviar dinero, pagar servicios, crear mercados de predicción, links de cobro y mostrar tu saldo. Prueba "envía 500 a @juan".',
    hi: 'Maaf kijiye, samajh nahi aaya. Main paise bhej sakta hoon, bill bhar sakta hoon, prediction market, payment link aur balance dikha sakta hoon. Try: "@priya ko 500 bhejo".',
    tl: 'Pasensya, hindi ko naintindihan. Kaya kong magpadala ng pera, magbayad ng bills, gumawa ng prediction market at payment link, at ipakita ang balance mo. Subukan: "padala 500 kay @liza".',
  }],
  [replies.transferNeedsBoth, {
    pcm: 'To send money, tell me how much and who, like "send 5k to @amaka".',
    sw: 'Kutuma pesa, niambie kiasi na mpokeaji, mfano "tuma 500 kwa @zawadi".',
    fr: "Pour envoyer de l'argent, dites-moi combien et à qui, par ex. « envoie 5000 à @moussa ».",
    pt: 'Para enviar dinheiro, diga quanto e para quem, por ex. "manda 50 pra @ana".',
    es: 'Para enviar dinero, dime cuánto y a quién, p. ej. "envía 500 a @juan".',
    hi: 'Paise bhejne ke liye batayiye kitna aur kisko, jaise "@priya ko 500 bhejo".',
    tl: 'Para magpadala, sabihin kung magkano at kanino, hal. "padala 500 kay @liza".',
  }],
  [replies.transferOneRecipient, {
    pcm: 'Na one person at a time I fit send to. Which one go collect am?',
    sw: 'Naweza kutuma kwa mtu mmoja tu kwa wakati mmoja. Nimtumie nani?',
    fr: "Je n'envoie qu'à une personne à la fois. Laquelle doit recevoir ce transfert ?",
    pt: 'Só envio para uma pessoa por vez. Quem deve receber?',
    es: 'Solo envío a una persona a la vez. ¿Quién debe recibirlo?',
    hi: 'Main ek baar mein ek hi insaan ko bhej sakta hoon. Kisko bhejna hai?',
    tl: 'Isang tao lang ang kaya kong padalhan bawat beses. Sino ang tatanggap?',
  }],
  [replies.stakeNeedsMarket, {
    pcm: 'Which market? Give the id (mkt_…) or words from the question.',
    sw: 'Soko gani? Toa kitambulisho chake (mkt_…) au maneno ya swali lake.',
    fr: 'Quel marché ? Donnez son identifiant (mkt_…) ou des mots de sa question.',
    pt: 'Qual mercado? Diga o id (mkt_…) ou palavras da pergunta.',
    es: '¿Qué mercado? Da su id (mkt_…) o palabras de su pregunta.',
    hi: 'Kaunsa market? Uska id (mkt_…) ya sawaal ke shabd batayiye.',
    tl: 'Aling market? Ibigay ang id (mkt_…) o mga salita mula sa tanong.',
  }],
  [replies.billNeedsBiller, {
    pcm: 'Which biller I go pay? Like IKEDC, DStv, GOtv or MTN airtime.',
    sw: 'Nilipe bili gani? Mfano KPLC, DStv, GOtv au Safaricom airtime.',
    fr: 'Quel fournisseur dois-je payer ? Par ex. DStv, GOtv ou du crédit MTN.',
    pt: 'Qual conta devo pagar? Por ex. DStv, GOtv ou recarga.',
    es: '¿Qué servicio debo pagar? Por ej. DStv, GOtv o tiempo aire.',
    hi: 'Kaunsa bill bharna hai? Jaise DStv, GOtv ya airtime.',
    tl: 'Aling biller ang babayaran ko? Hal. DStv, GOtv o load.',
  }],
  [replies.linkNeedsAmount, {
    pcm: 'How much the payment link go charge? Like "create payment link for 2500 NGN".',
    sw: 'Kiungo cha malipo kitoze kiasi gani? Mfano "tengeneza link ya malipo ya 1500".',
    fr: 'Quel montant pour le lien de paiement ? Par ex. « lien de paiement de 7000 FCFA ».',
    pt: 'Qual valor o link de pagamento deve cobrar? Por ex. "link de pagamento de 80 reais".',
    es: '¿Cuánto debe cobrar el link? Por ej. "link de cobro de 350 pesos".',
    hi: 'Payment link kitne ka banau? Jaise "800 rupaye ka payment link".',
    tl: 'Magkano ang sisingilin ng payment link? Hal. "payment link na 500 pesos".',
  }],
  [replies.noScheduling, {
    pcm: 'I no fit schedule payment for later; na now-now I dey pay. Send am again when you ready.',
    sw: 'Siwezi kupanga malipo ya baadaye; nalipa papo hapo tu. Tuma ujumbe tena ukiwa tayari.',
    fr: "Je ne peux pas programmer un paiement ; je ne paie qu'immédiatement. Renvoyez le message sans la date quand vous serez prêt.",
    pt: 'Não consigo agendar pagamentos; só pago na hora. Mande de novo sem a data quando quiser.',
    es: 'No puedo programar pagos; solo pago al momento. Envía el mensaje sin la fecha cuando quieras.',
    hi: 'Main baad ke liye payment schedule nahi kar sakta; sirf abhi. Taiyaar hon to bina date ke dobara bhejiye.',
    tl: 'Hindi ako makakapag-schedule ng bayad; ngayon lang. Ipadala ulit nang walang petsa kapag handa ka na.',
  }],
];

/** Questions with one variable part: [English pattern, translations with {x}]. */
const VARIABLE: ReadonlyArray<[RegExp, Tr]> = [
  [/^Who should receive (.+)\? Give /, {
    pcm: 'Who go collect {x}? Give Telegram @username or phone number (+234…).', sw: 'Nani apokee {x}? Toa @username ya Telegram au namba ya simu (+254…).',
    fr: 'Qui doit recevoir {x} ? Donnez un @username Telegram ou un numéro (+221…).', pt: 'Quem deve receber {x}? Diga um @usuário do Telegram ou telefone (+55…).',
    es: '¿Quién debe recibir {x}? Da un @usuario de Telegram o un teléfono (+52…).', hi: '{x} kisko bhejna hai? Telegram @username ya phone number (+91…) dijiye.',
    tl: 'Sino ang tatanggap ng {x}? Ibigay ang Telegram @username o numero (+63…).',
  }],
  [/^How much should I send to (\S+)\?/, {
    pcm: 'How much I go send give {x}?', sw: 'Nimtumie {x} kiasi gani?', fr: 'Combien dois-je envoyer à {x} ?', pt: 'Quanto devo mandar pra {x}?',
    es: '¿Cuánto le envío a {x}?', hi: '{x} ko kitna bhejna hai?', tl: 'Magkano ang ipapadala ko kay {x}?',
  }],
  [/^Which outcome do you want to back in (.+)\? /, {
    pcm: 'Which side you wan back for {x}? Like "on yes".', sw: 'Unaunga mkono jibu gani kwenye {x}? Mfano "Ndiyo".', fr: 'Quelle issue soutenez-vous dans {x} ? Par ex. « sur Oui ».',
    pt: 'Em qual resultado você aposta em {x}? Por ex. "no Sim".', es: '¿A qué resultado le apuestas en {x}? P. ej. "al Sí".', hi: '{x} mein kis outcome pe lagana hai? Jaise "Haan pe".',
    tl: 'Aling sagot ang itataya mo sa {x}? Hal. "sa Oo".',
  }],
  [/^How much do you want to stake in (.+)\?$/, {
    pcm: 'How much you wan stake for {x}?', sw: 'Unataka kuweka kiasi gani kwenye {x}?', fr: 'Combien voulez-vous miser sur {x} ?', pt: 'Quanto quer apostar em {x}?',
    es: '¿Cuánto quieres apostar en {x}?', hi: '{x} mein kitna lagana hai?', tl: 'Magkano ang itataya mo sa {x}?',
  }],
];

/** `reply` in `lang` when a translation exists; the English reply otherwise. */
export function localizeQuestion(reply: string, lang: Lang): string {
  if (lang === 'en') return reply;
  for (const [en, tr] of [...FIXED, ...MORE_FIXED]) if (en === reply) return tr[lang];
  for (const [re, tr] of [...VARIABLE, ...MORE_VARIABLE]) {
    const m = re.exec(reply);
    if (!m) continue;
    // The bill question's field label comes from the catalogue in English: it is translated too.
    const x = re === BILL_ACCOUNT_QUESTION ? accountLabel(m[1]!, lang) : m[1]!;
    const text = tr[lang].replace('{x}', x).replace('{y}', m[2] ?? '');
    // A translated label may open the sentence ("Namba ya mita ya …"): capitalised, never an id.
    return re === BILL_ACCOUNT_QUESTION ? `${text[0]!.toUpperCase()}${text.slice(1)}` : text;
  }
  return reply;
}
