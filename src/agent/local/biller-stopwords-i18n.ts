import { fold } from './lexicon-i18n.js';

/**
 * Words that are never the name of a biller the catalogue does not know, in every corridor
 * language: articles, possessives, prepositions and pronouns ("pour ma facture", "para sa bill
 * ko", "bijli ka bill"), family and home words ("la facture de ma mère"), and bill verbs. The
 * word in front of "meter"/"bill" is taken as an unknown biller's name only when it is none of
 * these; otherwise the engine asks which biller, quoting nothing (issue 20: no junk in a question).
 */
const WORDS = `
  i it him them us mum mom dad brother sister wife husband house home mine
  abeg dis dat una wey give make
  yangu yako yake yetu yenu yao ya wa la za kwa na hii hiyo ile bili mama baba nyumba lipa lipia nilipie nunua nunulia ninunulie weka
  pour ma mon mes ta ton tes sa son ses le les de du des un une au aux a notre votre leur stp svp mere pere frere soeur maison paye paie payer regle achete acheter recharge
  minha meu minhas meus da do das dos o as os pra para pro uma um sua seu nossa nosso mae pai casa paga pague pagar compra comprar recarrega recarga
  mi mis tu tus su sus el los las del nuestra nuestro mama papa paga pagar pagame compra comprar recarga
  mera meri mere ka ki ke ko apna apni apne ghar yeh ye woh wo bhar bharo kar karo bijli paani kharido kharid recharge
  ang ng yung iyong ko mo ka sa ni kay mga ito yan yun bayad bayaran pakibayad nanay tatay bahay po naman lang bili bilhin loadan paload
`;
const STOP = new Set(WORDS.split(/\s+/).filter(Boolean));

export function neverABiller(word: string): boolean {
  return STOP.has(fold(word.toLowerCase()));
}
