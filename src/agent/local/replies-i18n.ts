import type { GateReason } from './gate.js';
import type { Lang } from './language.js';

/**
 * The local engine's own words in the language of the message (English when none was
 * detected): the gate's answers, refusals and the commonest questions. Tool outcomes keep
 * their exact English summaries; the lead sentence before them is localised.
 */

type Texts = Readonly<Record<Lang, string>>;

const GATE: Readonly<Record<Exclude<GateReason, 'malformed_amount'>, Texts>> = {
  prompt_injection: {
    en: "I can't do that. I only follow your own requests, from your own wallet, within your limits. Nothing was done.",
    pcm: 'I no fit do am. Na only your own request I dey follow, from your own wallet. Nothing happen.',
    sw: 'Siwezi kufanya hivyo. Nafuata maombi yako tu, kutoka pochi yako mwenyewe. Hakuna kilichofanyika.',
    fr: "Je ne peux pas faire ça. Je n'agis que sur vos propres demandes, depuis votre portefeuille. Rien n'a été fait.",
    pt: 'Não posso fazer isso. Só sigo os seus pedidos, da sua própria carteira. Nada foi feito.',
    es: 'No puedo hacer eso. Solo sigo tus propias solicitudes, desde tu propia cartera. No se hizo nada.',
    hi: 'Main yeh nahi kar sakta. Main sirf aapki apni request, aapke apne wallet se karta hoon. Kuch nahi hua.',
    tl: 'Hindi ko magagawa iyan. Ang sarili mong request lang ang sinusunod ko, mula sa sarili mong wallet. Walang ginawa.',
  },
  other_account: {
    en: "I can only send from your own wallet, never from someone else's account. Nothing was sent.",
    pcm: 'Na only from your own wallet I fit send, no be another person account. I no send anything.',
    sw: 'Naweza kutuma kutoka pochi yako tu, si akaunti ya mtu mwingine. Hakuna kilichotumwa.',
    fr: "Je ne peux envoyer que depuis votre propre portefeuille, jamais depuis le compte de quelqu'un d'autre. Rien n'a été envoyé.",
    pt: 'Só posso enviar da sua própria carteira, nunca da conta de outra pessoa. Nada foi enviado.',
    es: 'Solo puedo enviar desde tu propia cartera, nunca desde la cuenta de otra persona. No se envió nada.',
    hi: 'Main sirf aapke apne wallet se bhej sakta hoon, kisi aur ke account se nahi. Kuch nahi bheja gaya.',
    tl: 'Sa sarili mong wallet lang ako puwedeng magpadala, hindi sa account ng iba. Walang naipadala.',
  },
  negation: {
    en: "Okay, I won't do anything; nothing was sent or paid.",
    pcm: 'No wahala, I no go send or pay anything.',
    sw: 'Sawa, sitatuma wala kulipa chochote.',
    fr: "D'accord, je n'envoie ni ne paie rien.",
    pt: 'Tudo bem, não vou enviar nem pagar nada.',
    es: 'De acuerdo, no enviaré ni pagaré nada.',
    hi: 'Theek hai, main kuch nahi bhejunga ya pay karunga.',
    tl: 'Sige, wala akong ipapadala o babayaran.',
  },
  question: {
    en: 'Nothing was sent. To see what a transfer costs, ask e.g. "how much does @amina get if I send 5000?"; to send, say "send 5000 to @amina".',
    pcm: 'I no send anything. To know the cost, ask "how much @amina go get if I send 5000?"; to send, talk "send 5000 to @amina".',
    sw: 'Hakuna kilichotumwa. Kujua gharama, uliza "nikituma 5000 kwa @amina atapata ngapi?"; kutuma, sema "tuma 5000 kwa @amina".',
    fr: 'Rien n\'a été envoyé. Pour connaître le coût : "combien reçoit @amina si j\'envoie 5000 ?" ; pour envoyer : "envoie 5000 à @amina".',
    pt: 'Nada foi enviado. Para saber o custo: "quanto @ana recebe se eu mandar 50?"; para enviar: "manda 50 pra @ana".',
    es: 'No se envió nada. Para saber el costo: "¿cuánto recibe @juan si envío 500?"; para enviar: "envía 500 a @juan".',
    hi: 'Kuch nahi bheja. Cost jaanne ke liye poochiye "agar main 500 bheju to @priya ko kitna milega?"; bhejne ke liye "@priya ko 500 bhejo".',
    tl: 'Walang naipadala. Para malaman ang bayad: "magkano matatanggap ni @liza kung magpadala ako ng 500?"; para magpadala: "padala 500 kay @liza".',
  },
  reversed_direction: {
    en: 'That sounds like money coming to you, so I did nothing. To send money, say e.g. "send 500 to @amina".',
    pcm: 'E be like say na money wey dey come meet you, so I no do anything. To send, talk "send 500 to @amina".',
    sw: 'Hiyo inaonekana ni pesa unayopokea, kwa hiyo sikufanya chochote. Kutuma, sema "tuma 500 kwa @amina".',
    fr: "On dirait de l'argent que vous recevez, donc je n'ai rien fait. Pour envoyer : \"envoie 500 à @moussa\".",
    pt: 'Parece dinheiro que você vai receber, então não fiz nada. Para enviar: "manda 50 pra @ana".',
    es: 'Parece dinero que vas a recibir, así que no hice nada. Para enviar: "envía 500 a @juan".',
    hi: 'Yeh aapko paise milne ki baat lagti hai, isliye maine kuch nahi kiya. Bhejne ke liye: "@priya ko 500 bhejo".',
    tl: 'Mukhang pera iyan na matatanggap mo, kaya wala akong ginawa. Para magpadala: "padala 500 kay @liza".',
  },
  cancellation: {
    en: "I can't cancel or reverse a transfer or payment here, and I did not send anything. Check your recent activity, or contact support about a sent transfer.",
    pcm: 'I no fit cancel or reverse transfer for here, and I no send anything. Check your recent transactions or contact support.',
    sw: 'Siwezi kughairi au kurudisha transfer hapa, na sijatuma chochote. Angalia historia yako au wasiliana na huduma kwa wateja.',
    fr: "Je ne peux pas annuler un transfert ici, et je n'ai rien envoyé. Consultez votre historique ou contactez le support.",
    pt: 'Não consigo cancelar uma transferência aqui, e não enviei nada. Veja seu histórico ou fale com o suporte.',
    es: 'No puedo cancelar una transferencia aquí, y no envié nada. Revisa tu historial o contacta a soporte.',
    hi: 'Main yahan transfer cancel nahi kar sakta, aur maine kuch nahi bheja. Apni history dekhiye ya support se baat kijiye.',
    tl: 'Hindi ko ma-cancel ang transfer dito, at wala akong ipinadala. Tingnan ang history mo o kontakin ang support.',
  },
  conditional: {
    en: "I can't make a payment depend on something happening; I only pay right away when you ask. Nothing was sent. (A prediction market can do bets on outcomes.)",
    pcm: 'I no fit make payment wait for something to happen; na only now-now I dey pay. I no send anything.',
    sw: 'Siwezi kufanya malipo yategemee jambo fulani; nalipa tu papo hapo ukiniambia. Hakuna kilichotumwa.',
    fr: "Je ne peux pas faire dépendre un paiement d'une condition ; je ne paie qu'immédiatement, sur demande. Rien n'a été envoyé.",
    pt: 'Não consigo fazer um pagamento depender de uma condição; só pago na hora, quando você pede. Nada foi enviado.',
    es: 'No puedo hacer que un pago dependa de una condición; solo pago al momento cuando me lo pides. No se envió nada.',
    hi: 'Main payment ko kisi shart par nahi rok sakta; main sirf abhi pay karta hoon jab aap kahte hain. Kuch nahi bheja.',
    tl: 'Hindi ko magagawang nakadepende sa kondisyon ang bayad; ngayon lang ako nagbabayad kapag sinabi mo. Walang naipadala.',
  },
  reported_speech: {
    en: 'Nothing was sent. If you want me to send it, say it directly, e.g. "send 5000 to @amina".',
    pcm: 'I no send anything. If you want make I send am, talk am straight: "send 5000 to @amina".',
    sw: 'Hakuna kilichotumwa. Ukitaka nitume, sema moja kwa moja, mfano "tuma 5000 kwa @amina".',
    fr: 'Rien n\'a été envoyé. Si vous voulez que j\'envoie, dites-le directement : "envoie 5000 à @moussa".',
    pt: 'Nada foi enviado. Se quiser que eu envie, diga diretamente: "manda 50 pra @ana".',
    es: 'No se envió nada. Si quieres que lo envíe, dilo directamente: "envía 500 a @juan".',
    hi: 'Kuch nahi bheja. Agar aap chahte hain ki main bheju, seedha kahiye: "@priya ko 500 bhejo".',
    tl: 'Walang naipadala. Kung gusto mong ipadala ko, sabihin nang diretso: "padala 500 kay @liza".',
  },
  past_tense: {
    en: 'That sounds like something already done, so I did nothing. Ask "show my recent activity" to check it, or say "send …" to send again.',
    pcm: 'E be like say e don happen already, so I no do anything. Ask "show my transactions" to check am.',
    sw: 'Inaonekana tayari imefanyika, kwa hiyo sikufanya chochote. Uliza "nionyeshe malipo yangu" kuangalia.',
    fr: 'Cela semble déjà fait, donc je n\'ai rien fait. Demandez "montre mon historique" pour vérifier.',
    pt: 'Parece que isso já foi feito, então não fiz nada. Peça "mostra meu extrato" para conferir.',
    es: 'Parece que eso ya se hizo, así que no hice nada. Pide "muestra mi historial" para revisarlo.',
    hi: 'Lagta hai yeh pehle ho chuka hai, isliye maine kuch nahi kiya. Check karne ke liye "meri history dikhao" kahiye.',
    tl: 'Mukhang nagawa na iyan, kaya wala akong ginawa. Sabihin ang "ipakita ang history ko" para tingnan.',
  },
  scheduled: {
    en: "I can't schedule payments for later; I only pay right away. Nothing was sent. Send the message again when you're ready.",
    pcm: 'I no fit schedule payment for later; na now-now I dey pay. I no send anything.',
    sw: 'Siwezi kupanga malipo ya baadaye; nalipa papo hapo tu. Hakuna kilichotumwa.',
    fr: "Je ne peux pas programmer un paiement ; je ne paie qu'immédiatement. Rien n'a été envoyé.",
    pt: 'Não consigo agendar pagamentos; só pago na hora. Nada foi enviado.',
    es: 'No puedo programar pagos; solo pago al momento. No se envió nada.',
    hi: 'Main payment baad ke liye schedule nahi kar sakta; sirf abhi pay karta hoon. Kuch nahi bheja.',
    tl: 'Hindi ako makakapag-schedule ng bayad; ngayon lang ako nagbabayad. Walang naipadala.',
  },
  repeated: {
    en: 'I make one payment per message, once. Nothing was sent. Send the total as one amount, or send each payment in its own message.',
    pcm: 'Na one payment per message I dey do, one time. I no send anything. Send the total as one amount, or send each one for im own message.',
    sw: 'Nafanya malipo moja kwa kila ujumbe, mara moja. Hakuna kilichotumwa. Tuma jumla kama kiasi kimoja, au kila malipo kwa ujumbe wake.',
    fr: "Je fais un seul paiement par message, une seule fois. Rien n'a été envoyé. Envoyez le total en un montant, ou chaque paiement dans son propre message.",
    pt: 'Faço um pagamento por mensagem, uma vez. Nada foi enviado. Mande o total como um valor só, ou cada pagamento na sua própria mensagem.',
    es: 'Hago un solo pago por mensaje, una vez. No se envió nada. Envía el total como un solo monto, o cada pago en su propio mensaje.',
    hi: 'Main ek message mein ek hi payment, ek baar karta hoon. Kuch nahi bheja. Total ek amount mein bhejiye, ya har payment alag message mein.',
    tl: 'Isang bayad lang bawat mensahe, isang beses. Walang naipadala. Ipadala ang kabuuan bilang isang halaga, o bawat bayad sa sariling mensahe.',
  },
  correction: {
    en: 'You changed the amount in that message, so I did nothing. Send it again with the one amount you mean, e.g. "send 300 to @amina".',
    pcm: 'You change the amount for the same message, so I no do anything. Send am again with the one amount wey you want, like "send 300 to @chidi".',
    sw: 'Umebadilisha kiasi ndani ya ujumbe huo, kwa hiyo sikufanya chochote. Tuma tena ukiwa na kiasi kimoja unachotaka, k.m. "tuma 300 kwa @amina".',
    fr: "Vous avez changé le montant dans ce message, donc je n'ai rien fait. Renvoyez-le avec le seul montant voulu, par ex. \"envoie 300 à @moussa\".",
    pt: 'Você mudou o valor na mesma mensagem, então não fiz nada. Mande de novo só com o valor certo, por ex. "manda 300 pra @ana".',
    es: 'Cambiaste el monto en el mismo mensaje, así que no hice nada. Envíalo otra vez con el monto que quieres, por ej. "envía 300 a @juan".',
    hi: 'Aapne usi message mein amount badal diya, isliye maine kuch nahi kiya. Sirf sahi amount ke saath dobara bhejiye, jaise "@priya ko 300 bhejo".',
    tl: 'Binago mo ang halaga sa parehong mensahe, kaya wala akong ginawa. Ipadala ulit na may iisang halaga, hal. "padala 300 kay @liza".',
  },
  alternative_amounts: {
    en: 'Which amount do you mean: {q}? I did nothing. Send it again with the one amount, e.g. "send 50 to @amina".',
    pcm: 'Which amount you mean: {q}? I no do anything. Send am again with only one amount, like "send 5k to @chidi".',
    sw: 'Unamaanisha kiasi kipi: {q}? Sikufanya chochote. Tuma tena ukiwa na kiasi kimoja tu, k.m. "tuma 500 kwa @zawadi".',
    fr: "Quel montant voulez-vous dire : {q} ? Je n'ai rien fait. Renvoyez le message avec un seul montant, par ex. \"envoie 20 000 à @aminata\".",
    pt: 'Qual valor você quer: {q}? Não fiz nada. Mande de novo com um valor só, por ex. "manda 100 pra @joana".',
    es: '¿Qué monto quieres: {q}? No hice nada. Envíalo otra vez con un solo monto, por ej. "envía 200 a @juan".',
    hi: 'Kaunsa amount chahiye: {q}? Maine kuch nahi kiya. Sirf ek amount ke saath dobara bhejiye, jaise "@priya ko 500 bhejo".',
    tl: 'Alin ang halaga: {q}? Wala akong ginawa. Ipadala ulit na may iisang halaga, hal. "padala 300 kay @liza".',
  },
  statement: {
    en: 'Noted, but I did nothing. If you want to pay it now, say e.g. "send 80 cedis to @yaw".',
    pcm: 'I hear you, but I no do anything. If you wan pay now, talk "send 3k to @chidi".',
    sw: 'Nimesikia, lakini sikufanya chochote. Ukitaka kulipa sasa, sema "tuma 800 kwa @zawadi".',
    fr: 'Noté, mais je n\'ai rien fait. Pour payer maintenant : "envoie 15 000 à @aminata".',
    pt: 'Entendi, mas não fiz nada. Para pagar agora: "manda 50 pra @ana".',
    es: 'Entendido, pero no hice nada. Para pagar ahora: "envía 500 a @juan".',
    hi: 'Samajh gaya, par maine kuch nahi kiya. Abhi pay karna hai to kahiye "@priya ko 500 bhejo".',
    tl: 'Okay, pero wala akong ginawa. Para magbayad ngayon: "padala 500 kay @liza".',
  },
};

const MALFORMED: Texts = {
  en: 'I couldn\'t read "{q}" as an amount, so nothing was done. Please write it in plain digits, e.g. 5000 or 12.50.',
  pcm: 'I no understand "{q}" as amount, so I no do anything. Abeg write am for plain number, like 5000.',
  sw: 'Sikuelewa "{q}" kama kiasi, kwa hiyo sikufanya chochote. Tafadhali andika kwa tarakimu, mfano 5000.',
  fr: 'Je n\'ai pas compris "{q}" comme un montant, donc rien n\'a été fait. Écrivez-le en chiffres, par ex. 5000.',
  pt: 'Não entendi "{q}" como valor, então nada foi feito. Escreva em números, por ex. 5000 ou 12,50.',
  es: 'No entendí "{q}" como monto, así que no se hizo nada. Escríbelo en números, p. ej. 5000 o 12.50.',
  hi: '"{q}" ko amount ke roop mein nahi samajh paaya, isliye kuch nahi kiya. Seedhe number likhiye, jaise 5000.',
  tl: 'Hindi ko naintindihan ang "{q}" bilang halaga, kaya walang ginawa. Isulat sa numero, hal. 5000.',
};

export function gateReply(reason: GateReason, lang: Lang, quoted?: string): string {
  if (reason === 'malformed_amount') return MALFORMED[lang].replace('{q}', quoted ?? '');
  return GATE[reason][lang].replace('{q}', quoted ?? '');
}

export const FEES_ANSWER: Texts = {
  en: 'A transfer costs 0.5% of the amount (at most 2 USDC), converted at the day\'s rate. Ask "how much does @amina get if I send 5000?" for an exact quote.',
  pcm: 'Transfer fee na 0.5% of the amount (e no pass 2 USDC). Ask "how much @amina go get if I send 5000?" for exact quote.',
  sw: 'Ada ya kutuma ni 0.5% ya kiasi (isiyozidi 2 USDC). Uliza "nikituma 5000 kwa @amina atapata ngapi?" kupata bei kamili.',
  fr: 'Un transfert coûte 0,5 % du montant (2 USDC au plus). Demandez "combien reçoit @moussa si j\'envoie 5000 ?" pour un devis exact.',
  pt: 'Uma transferência custa 0,5% do valor (no máximo 2 USDC). Pergunte "quanto @ana recebe se eu mandar 50?" para uma cotação exata.',
  es: 'Una transferencia cuesta 0.5% del monto (máximo 2 USDC). Pregunta "¿cuánto recibe @juan si envío 500?" para una cotización exacta.',
  hi: 'Transfer fee amount ka 0.5% hai (zyada se zyada 2 USDC). Exact quote ke liye poochiye "500 bheju to @priya ko kitna milega?".',
  tl: 'Ang bayad sa transfer ay 0.5% ng halaga (hanggang 2 USDC). Itanong ang "magkano matatanggap ni @liza kung magpadala ako ng 500?".',
};

export const PESO_QUESTION: Texts = {
  en: 'Which pesos do you mean: Mexican (MXN) or Philippine (PHP)? Say e.g. "200 MXN".',
  pcm: 'Which pesos: Mexican (MXN) or Philippine (PHP)? Talk "200 MXN".',
  sw: 'Pesos zipi: za Mexico (MXN) au Ufilipino (PHP)? Sema "200 MXN".',
  fr: 'Quels pesos : mexicains (MXN) ou philippins (PHP) ? Dites par ex. "200 MXN".',
  pt: 'Quais pesos: mexicanos (MXN) ou filipinos (PHP)? Diga por ex. "200 MXN".',
  es: '¿Qué pesos: mexicanos (MXN) o filipinos (PHP)? Di por ej. "200 MXN".',
  hi: 'Kaun se pesos: Mexican (MXN) ya Philippine (PHP)? Kahiye "200 MXN".',
  tl: 'Aling pesos: Mexican (MXN) o Philippine (PHP)? Sabihin hal. "200 PHP".',
};

/** "bucks", "P500" from an account they name nothing certain for: which currency? */
export const CURRENCY_QUESTION: Texts = {
  en: 'Which currency do you mean? Write its code, e.g. "20 USD" or "20 ZAR".',
  pcm: 'Which money you mean? Write the code, like "20 USD" or "20 NGN".',
  sw: 'Ni sarafu gani? Andika msimbo wake, k.m. "20 USD" au "20 KES".',
  fr: 'Quelle devise voulez-vous dire ? Écrivez son code, par ex. "20 USD" ou "20 XOF".',
  pt: 'Qual moeda você quer dizer? Escreva o código, por ex. "20 USD" ou "20 BRL".',
  es: '¿Qué moneda quieres decir? Escribe su código, por ej. "20 USD" o "20 MXN".',
  hi: 'Kaunsi currency? Uska code likhiye, jaise "20 USD" ya "20 INR".',
  tl: 'Anong currency ang ibig mo? Isulat ang code, hal. "20 USD" o "20 PHP".',
};

/** Lead sentence of a reply in a language other than English, before the exact summary. */
export const DONE_LEAD: Readonly<Record<Lang, string>> = {
  en: '',
  pcm: 'E don happen. ',
  sw: 'Imefanyika. ',
  fr: 'C\'est fait. ',
  pt: 'Feito. ',
  es: 'Listo. ',
  hi: 'Ho gaya. ',
  tl: 'Tapos na. ',
};
