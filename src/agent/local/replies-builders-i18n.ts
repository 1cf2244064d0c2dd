import type { Lang } from './language.js';
import { replies } from './replies.js';

/**
 * The rest of the builders' questions (bills, markets, amounts, recipients) in the message's
 * language; ./replies-questions-i18n.ts holds the commonest ones and looks here too. Keyed by
 * the English text the builders produce; `{x}` / `{y}` are the parts they fill in, kept verbatim.
 */

export type Tr = Readonly<Record<Exclude<Lang, 'en'>, string>>;

const tr = (pcm: string, sw: string, fr: string, pt: string, es: string, hi: string, tl: string): Tr => ({ pcm, sw, fr, pt, es, hi, tl });

export const MORE_FIXED: ReadonlyArray<[string, Tr]> = [
  [replies.amountPositive, tr(
    'The amount must pass zero.', 'Kiasi lazima kiwe zaidi ya sifuri.', 'Le montant doit être supérieur à zéro.', 'O valor precisa ser maior que zero.',
    'El monto debe ser mayor que cero.', 'Amount zero se zyada hona chahiye.', 'Dapat mas malaki sa zero ang halaga.')],
  [replies.amountTooLarge, tr(
    'That amount too big for me to handle one time.', 'Kiasi hicho ni kikubwa mno kwa mara moja.', 'Ce montant est trop élevé pour une seule opération.',
    'Esse valor é alto demais para uma única operação.', 'Ese monto es demasiado grande para una sola operación.', 'Yeh amount ek baar mein bahut zyada hai.',
    'Masyadong malaki ang halagang iyan para sa isang transaksyon.')],
  [replies.billNeedsAll, tr(
    'To pay bill, tell me the biller, the meter/smartcard/phone number and the amount, like "pay my IKEDC meter 45123456789 with 3000 naira".',
    'Kulipa bili, niambie mtoa huduma, namba ya mita/kadi/simu na kiasi, mfano "lipa KPLC mita 37191234567 shilingi 1500".',
    'Pour payer une facture, donnez le fournisseur, le numéro de compteur/carte/téléphone et le montant, par ex. « paie Senelec compteur 1234567890 5000 FCFA ».',
    'Para pagar uma conta, diga a empresa, o número do medidor/cartão/telefone e o valor, por ex. "paga a conta de luz 1234567890 de 150 reais".',
    'Para pagar un servicio, dime la empresa, el número de medidor/tarjeta/teléfono y el monto, p. ej. "paga la luz CFE 123456789012 con 500 pesos".',
    'Bill bharne ke liye biller, meter/card/phone number aur amount bataiye, jaise "BSES meter 123456789 ka 1500 rupaye bhar do".',
    'Para magbayad ng bill, sabihin ang biller, ang meter/card/phone number at ang halaga, hal. "bayaran ang Meralco 1234567890 ng 2000".')],
  [replies.marketNeedsQuestion, tr(
    'Wetin the market go ask? Like "create a market: e go rain for Lagos on Friday?"',
    'Soko liulize nini? Mfano "unda soko: itanyesha Nairobi Ijumaa?"',
    'Quelle question pour le marché ? Par ex. « crée un marché : va-t-il pleuvoir à Dakar vendredi ? »',
    'Qual a pergunta do mercado? Por ex. "cria um mercado: vai chover em São Paulo na sexta?"',
    '¿Qué pregunta tendrá el mercado? P. ej. "crea un mercado: ¿lloverá en CDMX el viernes?"',
    'Market kya poochega? Jaise "market banao: kya Friday ko Mumbai mein baarish hogi?"',
    'Ano ang itatanong ng market? Hal. "gumawa ng market: uulan ba sa Maynila sa Biyernes?"')],
  [replies.marketQuestionLength, tr(
    'Market question need 5 to 200 characters.', 'Swali la soko linahitaji herufi 5 hadi 200.', 'La question du marché doit faire entre 5 et 200 caractères.',
    'A pergunta do mercado precisa ter de 5 a 200 caracteres.', 'La pregunta del mercado debe tener entre 5 y 200 caracteres.', 'Market ka sawaal 5 se 200 characters ka hona chahiye.',
    'Dapat 5 hanggang 200 characters ang tanong ng market.')],
  [replies.marketOutcomeCount, tr(
    'Market need between 2 and 10 options.', 'Soko linahitaji chaguo kati ya 2 na 10.', 'Un marché doit avoir entre 2 et 10 issues.',
    'Um mercado precisa de 2 a 10 opções.', 'Un mercado necesita entre 2 y 10 opciones.', 'Market mein 2 se 10 options hone chahiye.',
    'Kailangan ng market ng 2 hanggang 10 pagpipilian.')],
  [replies.marketClosePast, tr(
    'That closing time don pass. When staking go close?', 'Muda huo wa kufunga umeshapita. Dau zifungwe lini?', 'Cette date de clôture est déjà passée. Quand les mises doivent-elles fermer ?',
    'Esse horário de fechamento já passou. Quando as apostas devem fechar?', 'Esa hora de cierre ya pasó. ¿Cuándo deben cerrar las apuestas?', 'Yeh closing time nikal chuka hai. Bets kab band honi chahiye?',
    'Lumipas na ang oras ng pagsasara. Kailan dapat magsara ang taya?')],
  [replies.resolveNeedsMarket, tr(
    'Which market I go resolve? Like "resolve mkt_abc123 as Yes".', 'Niamue soko lipi? Mfano "amua mkt_abc123 kama Ndiyo".', 'Quel marché dois-je trancher ? Par ex. « résous mkt_abc123 : Oui ».',
    'Qual mercado devo encerrar? Por ex. "resolve mkt_abc123 como Sim".', '¿Qué mercado resuelvo? P. ej. "resuelve mkt_abc123 como Sí".', 'Kaunsa market resolve karna hai? Jaise "mkt_abc123 ko Haan pe resolve karo".',
    'Aling market ang iresolba ko? Hal. "resolve mkt_abc123 bilang Oo".')],
  [replies.cancelNeedsMarket, tr(
    'Which market I go cancel? Like "cancel mkt_abc123".', 'Nighairi soko lipi? Mfano "ghairi mkt_abc123".', 'Quel marché dois-je annuler ? Par ex. « annule mkt_abc123 ».',
    'Qual mercado devo cancelar? Por ex. "cancela mkt_abc123".', '¿Qué mercado cancelo? P. ej. "cancela mkt_abc123".', 'Kaunsa market cancel karna hai? Jaise "mkt_abc123 cancel karo".',
    'Aling market ang ika-cancel ko? Hal. "cancel mkt_abc123".')],
];

/** The bill question "What's the {label} for {biller}?" (its label is translated: account-labels-i18n.ts). */
export const BILL_ACCOUNT_QUESTION = /^What's the (.+) for (.+)\?$/;

/** One or two variable parts, kept verbatim: [English pattern, translations with {x} and {y}]. */
export const MORE_VARIABLE: ReadonlyArray<[RegExp, Tr]> = [
  [/^Please write (.+) in international format with the country code/, tr(
    'Abeg write {x} with country code, like +2348012345678, make e reach the correct person.',
    'Tafadhali andika {x} kwa muundo wa kimataifa wenye msimbo wa nchi, mfano +254712345678, ili nimtumie mtu sahihi.',
    "Écrivez {x} au format international avec l'indicatif du pays, par ex. +221771234567, pour que j'envoie à la bonne personne.",
    'Escreva {x} no formato internacional com o código do país, por ex. +5511912345678, para eu enviar à pessoa certa.',
    'Escribe {x} en formato internacional con el código de país, p. ej. +5215512345678, para enviarlo a la persona correcta.',
    '{x} ko country code ke saath likhiye, jaise +919812345678, taaki sahi insaan ko jaaye.',
    'Isulat ang {x} sa international format na may country code, hal. +639171234567, para sa tamang tao mapunta.')],
  [/^I need (.+)'s Telegram @username/, tr(
    'I need {x} Telegram @username, phone number, email, acct_… id or 0x address.',
    'Nahitaji @username ya Telegram ya {x}, namba ya simu, barua pepe, acct_… au anwani ya 0x.',
    "J'ai besoin du @username Telegram de {x}, de son numéro, e-mail, identifiant acct_… ou adresse 0x.",
    'Preciso do @usuário do Telegram de {x}, telefone, e-mail, id acct_… ou endereço 0x.',
    'Necesito el @usuario de Telegram de {x}, su teléfono, correo, id acct_… o dirección 0x.',
    'Mujhe {x} ka Telegram @username, phone number, email, acct_… id ya 0x address chahiye.',
    'Kailangan ko ang Telegram @username ni {x}, numero, email, acct_… id o 0x address.')],
  [BILL_ACCOUNT_QUESTION, tr(
    'Wetin be the {x} for {y}?', '{x} ya {y} ni ipi?', 'Quel est le {x} pour {y} ?', 'Qual é o {x} para {y}?', '¿Cuál es el {x} para {y}?', '{y} ka {x} kya hai?', 'Ano ang {x} para sa {y}?')],
  [/^How much should I pay (.+)\?$/, tr(
    'How much I go pay {x}?', 'Nilipe {x} kiasi gani?', 'Combien dois-je payer à {x} ?', 'Quanto devo pagar para {x}?', '¿Cuánto le pago a {x}?', '{x} ko kitna pay karna hai?', 'Magkano ang babayaran ko sa {x}?')],
  [/^What was the winning outcome of (.+)\? /, tr(
    'Which side win for {x}?', 'Jibu lipi lilishinda kwenye {x}?', 'Quelle issue a gagné dans {x} ?', 'Qual resultado venceu em {x}?', '¿Qué resultado ganó en {x}?', '{x} mein kaunsa outcome jeeta?', 'Aling sagot ang nanalo sa {x}?')],
];
