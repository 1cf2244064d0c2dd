/** Word lists the speech-act gate (gate.ts) and its readings of unmeant moves (gate-unmeant.ts) share. */

export const words = (spec: string) => new Set(spec.split(/\s+/).filter(Boolean));

/** Verbs that move money, as typed (inflected forms included), across the eight languages. */
export const MONEY_VERBS = words(`
send sending sent snd sned transfer transfers transferring wire remit pay paying give giving buy buying bet stake drop load recharge top
tuma tumia nitumie mtumie tumie kutuma utume atumie peleka lipa lipia kulipa nunua nunulia kununua weka
envoie envoyer envoyez envoies envoi transfere transferer vire virer payer paie payez paye acheter achete mise miser parie parier
envia enviar envie manda mandar mande transferir transfira pagar pague paga comprar compra compre aposta apostar
enviale mandale mandes envies pagues compres apuesta apostar deposita pasa pasale pases pasar
bhejo bhej bhejna bhejdo bhejde bhejiye bharo bhar kharido lagao
padala ipadala magpadala pakipadala bayad bayaran magbayad pakibayad bili bumili pusta
`);

/** A Swahili negative imperative or subjunctive: "usitume", "usilipe", "usinunue", "usimtumie". */
export const SW_NEGATIVE = /^usi(?:m|wa)?(?:tum|lip|nunu|pelek|wek|tuma|tengen|fany|und)/;
