import type { Lang } from './language.js';

/**
 * Words of the corridor languages folded onto the English lemmas the intent scorer and the
 * slot builders already read ("tuma" -> send, "solde" -> balance, "kay" -> to). Keys are
 * accent-free lower case. Only the table of the detected language applies, so "a" is "to"
 * in Spanish and stays an article in English.
 */

function table(spec: string): Readonly<Record<string, string>> {
  // No prototype: "constructor" is not a word of any table (src/lib/word-table.ts).
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const line of spec.split('\n')) {
    const [lemma, words] = line.split(':');
    if (!lemma || !words) continue;
    for (const w of words.trim().split(/\s+/)) if (w) out[w] = lemma.trim();
  }
  return out;
}

const COMMON = `
send: transfer transfere transferir transfira transfiere transfiera
balance: saldo solde salio
market: mercado marche soko
markets: mercados marches masoko
link: lien liga enlace
`;

const LEMMAS: Readonly<Record<Lang, Readonly<Record<string, string>>>> = {
  en: {},
  pcm: table(`
send: sen drop run
give: dash
recharge: load
please: abeg biko
dont: no
how: how
balance: balance
`),
  sw: table(`
${COMMON}
send: tuma nitumie mtumie tumie tumia mtumia nitumia ntumie tumana peleka nipe mpe kutuma utume umtumie umtumia mtumiye sendia msendie nisendie msendia
airtime: credo kredo credit
pay: lipa lipia nilipie lipie kulipa kulipia
buy: nunua ninunulie nunulia kununua
to: kwa
on: kwenye
please: tafadhali tafadhari plz pls
balance: salio baki
bet: beti bashiri
put: weka
create: unda anzisha tengeneza fungua
new: mpya
resolve: tatua maliza amua
show: onyesha nionyeshe
open: wazi
request: omba ombi nidai dai
payment: malipo
airtime: airtime mjazo
bundle: bando bundles
electricity: stima umeme
token: tokeni
yes: ndio ndiyo
no: hapana
how: vipi
much: ngapi
history: historia
`),
  fr: table(`
${COMMON}
send: envoie envoyer envoyez envoies envoi envoye vire virer virez transfere transferer transfert virement
pay: payer paie payez paye regle regler reglez
buy: acheter achete achetez
to: a
for: pour
on: sur
from: de du depuis
please: stp svp
bet: pari paris parie parier pariez mise miser misez
put: mets mettre mettez met place placer placez
create: cree creer creez ouvre
resolve: resous resoudre resolvez tranche trancher
new: nouveau nouvelle
show: montre montrez affiche afficher
list: liste lister
open: ouverts ouvert ouverte ouvertes
request: demande demander reclamer
payment: paiement
airtime: credit unites
bundle: forfait
electricity: electricite courant
bill: facture
yes: oui
no: non
history: historique
`),
  pt: table(`
${COMMON}
send: envia enviar envie manda mandar mande pix transferencia
pay: pagar pague paga
recharge: recarrega recarregar recarregue
buy: comprar compra compre
to: para pra pro
on: em no na
from: da do de
please: favor
bet: aposta apostar aposte apostas
create: cria criar crie abre abrir
resolve: resolver resolva resolve
new: novo nova
put: coloca colocar coloque bota boto botar poe põe poem ponha
show: mostra mostrar mostre
list: lista listar liste
open: abertos aberto abertas aberta
request: cobranca cobrar cobre pedir pede
payment: pagamento
airtime: recarga creditos credito
data: dados
bill: conta fatura boleto
electricity: luz energia
yes: sim
no: nao
history: historico extrato
`),
  es: table(`
${COMMON}
send: envia enviar envie enviale manda mandar mande mandale deposita depositale transferencia pasa pasale pasar
recharge: recarga recargar recarga
pay: pagar paga pague
buy: comprar compra compre
to: a para
on: en por
from: de desde
please: porfa porfavor
bet: apuesta apuestas apostar apuesto apueste
put: pon poner ponle mete meter metele
create: crea crear cree abre abrir
resolve: resolver resuelve resuelva
new: nuevo nueva
show: muestra mostrar muestrame ensename
list: lista listar
open: abiertos abierto abiertas abierta
request: cobrar cobra cobro pedir pide solicitar solicita
payment: pago
airtime: aire saldo_celular tiempo_aire
data: datos
bill: factura recibo
electricity: luz
yes: si
no: no
history: historial movimientos
`),
  hi: table(`
send: bhejo bhej bhejna bhejdo bhejde bhejiye bhijwa bhejni
pay: bharo bhar bhardo chukao chuka
buy: kharido kharid lelo
to: ko
on: pe par
from: se
please: plz pls
balance: balance bakaya
bet: lagao laga lagado
put: rakh rakho rakhdo
create: banao bana banado
new: naya nayi
resolve: resolve
show: dikhao dikha dikhado batao bata
load: daal daalo dal dalo dalwa dalwao
request: maango mango mangwao
yes: haan haa ha
no: nahi nai
dont: mat
how: kitna kitne
history: history
`),
  tl: table(`
send: padala ipadala magpadala pakipadala padalhan ipasa pasa pakisend pasend patransfer pakitransfer
pay: bayad bayaran magbayad pakibayad bayaran
buy: bili bumili pabili bilhan
to: kay kina
on: sa
please: paki pls
bet: pusta taya itaya tumaya pataya ipusta ipataya
put: lagay ilagay maglagay lagyan
create: gawa gumawa gawin
new: bago
show: ipakita pakita
which: anong alin
airtime: load paload pakiload loadan
request: singil maningil singilin
yes: oo opo
no: hindi
dont: wag huwag
how: magkano
history: history
`),
};

/** Verbs that move money, from every language's table, for messages whose language was not detected. */
const ANY_VERB: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(LEMMAS).flatMap((t) => Object.entries(t).filter(([w, l]) => ['send', 'pay', 'buy', 'market', 'markets', 'balance', 'history', 'recharge', 'airtime'].includes(l) && w.length >= 4)),
);

export function anyLangVerb(word: string): string | undefined {
  const w = fold(word);
  // A short message may not show its language: "págale 300 a @juan", "i-send mo 500 kay @liza".
  return ANY_VERB[w] ?? verbOnly(cliticStem(w), LEMMAS.es) ?? verbOnly(affixStem(w), LEMMAS.tl);
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Strips accents so "envía", "envia" and "envíá" meet. */
export function fold(word: string): string {
  // ASCII is unchanged by NFKD and has no combining marks: most words skip the normalisation.
  if (!NON_ASCII.test(word)) return word;
  return word.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
}

/** The English lemma of a word of the given language, or undefined when it has none. */
export function lemmaIn(lang: Lang, word: string): string | undefined {
  if (lang === 'en') return undefined;
  const w = fold(word);
  const lemma = LEMMAS[lang][w];
  if (lemma !== undefined) return lemma;
  // Swahili infinitives are the verb after "ku-": "kuweka", "kununulia", "kulipia" read as "weka", "nunulia", "lipia".
  if (lang === 'sw' && w.startsWith('ku') && w.length > 4) return LEMMAS.sw[w.slice(2)] ?? swahiliVerb(w.slice(2));
  if (lang === 'sw') return swahiliVerb(w);
  if (lang === 'es') return verbOnly(cliticStem(w), LEMMAS.es);
  if (lang === 'tl') return verbOnly(affixStem(w), LEMMAS.tl);
  return undefined;
}

/** Lemmas of verbs that ask for an action: only these are read through a clitic or an affix. */
const ACTION_VERBS = new Set(['send', 'pay', 'buy', 'bet', 'put', 'recharge', 'airtime', 'load', 'create', 'show', 'request']);
/** English verbs Taglish wraps in its own affixes ("i-send", "mag-transfer", "i-load"). */
const TL_ENGLISH_VERBS: Readonly<Record<string, string>> = table('send: send transfer share\npay: pay\nairtime: load\nbet: bet stake\nbuy: buy');

function verbOnly(stem: string | undefined, table: Readonly<Record<string, string>>): string | undefined {
  if (!stem) return undefined;
  const lemma = table[stem] ?? (table === LEMMAS.tl ? TL_ENGLISH_VERBS[stem] : undefined);
  return lemma !== undefined && ACTION_VERBS.has(lemma) ? lemma : undefined;
}

/**
 * A Swahili money verb with an object prefix and the applicative ending ("for someone"): "niwekee"
 * (put for me), "mwekee", "wekea", "nilipie", "mnunulie". Only these four stems, only action verbs.
 */
function swahiliVerb(w: string): string | undefined {
  const m = /^(?:ni|m|mu|tu|wa)?(wek|tum|lip|nunul|nunu)(?:ia|ie|ea|ee|ieni|eeni)$/.exec(w);
  if (!m) return undefined;
  const base = ({ wek: 'weka', tum: 'tuma', lip: 'lipa', nunul: 'nunua', nunu: 'nunua' } as Record<string, string>)[m[1]!]!;
  return verbOnly(base, LEMMAS.sw);
}

/**
 * Spanish verbs carry their object pronoun glued on: "apuéstale", "enviarle", "págale", "transfiérele",
 * "cómpraselo". The third-person clitics only ("me"/"te"/"nos" would make the writer the recipient).
 */
function cliticStem(w: string): string | undefined {
  const m = /^(.{3,}?)(?:se)?(?:les|le|los|las|lo|la)$/.exec(w);
  if (!m) return undefined;
  // "transfierele" -> "transfiere"; an infinitive keeps its -r ("enviarle" -> "enviar").
  return m[1];
}

/**
 * Taglish future and imperative affixes on a verb: "i-send", "isend", "mag-send", "magtransfer",
 * "paki-load". The completed aspect ("nag-send", "nagpadala") is the past and is not read as a verb.
 */
function affixStem(w: string): string | undefined {
  const m = /^(?:paki|mag|pa|i)-?(.{3,})$/.exec(w);
  return m?.[1]?.replace(/-/g, '');
}
