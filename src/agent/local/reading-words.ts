/**
 * The closed word lists of the complete-reading check (reading.ts). Words are folded (no
 * accents, lower case) or lemmas (lexicon.ts folds every language's verbs onto English ones).
 * A word belongs here only if it cannot change what moves, from whom, to whom or when.
 */
const words = (spec: string): ReadonlySet<string> => new Set(spec.split(/\s+/).filter(Boolean));

/** Lemmas of verbs that ask for the money-moving action itself (any intent). */
export const VERB_LEMMAS = words('send transfer pay give buy wire remit tip bet stake put wager recharge top up topup load place back');

/** Prepositions, articles and possessives that link the roles ("to", "kwa", "à", "pra", "ko", "kay", "sa"). */
export const CONNECTORS = words(`
to on with of the a an my at in into this that is it its worth about
kwa kwenye ya la wa za cha vya ile hiyo
a au aux al ao aos pra pro para pa p de do da del du des le les lui el lo los las um uma un una une o os as no na em en sur dans
ko ke ki ka pe par mein wale wala wali
kay kina si ng sa dun doon yung iyong
give
meu minha mon ma mes mera meri mere yangu wangu langu zangu changu cest
`);

/**
 * Openers of a request put as a question ("could you send…?", "pouvez-vous envoyer… ?",
 * "unaweza kutuma…?", "pwede mo bang…?"): with one of them, a final "?" is the request's own mark.
 */
export const POLITE_REQUESTS = [
  'can you', 'could you', 'would you', 'can u', 'could u', 'pls can', 'peux tu', 'peux-tu', 'pouvez vous', 'pouvez-vous', 'pourrais-tu', 'pourrais tu',
  'puedes', 'podrias', 'podrías', 'pode', 'você pode', 'voce pode', 'consegue', 'unaweza', 'naomba', 'kar sakte', 'bhej sakte', 'pwede', 'you fit',
  'will you', 'tu peux', 'vous pouvez', 'tu pourrais', 'vous pourriez', 'pourriez-vous', 'pourriez vous', 'poderia', 'tem como', 'puede', 'podria', 'podría', 'me ayudas',
  'mnaweza', 'ungeweza', 'waweza', 'me haces el favor', 'hazme el favor', 'me hace el favor', 'sakte ho', 'sakte hain', 'sakti ho', 'sakti hain', 'sakoge', 'sakogi', 'puwede',
];

/** Words that name the role of an argument: the bill's kind (electricity in the languages: "kuryente", "umeme", "bijli", "luz"), the market, the side. */
export const ROLE_WORDS = words(`
airtime data bundle bundles token tokens units unit meter electricity light bill line number credit prepaid postpaid smartcard decoder subscription
kuryente umeme bijli luz electricite electricidade electricidad
market poll outcome side option soko mercado marche mercados
win wins won winner answer result resolved
`);

/** Words that name a bill's account: only for a bill ("acc 7654321", "account number"). */
export const BILL_WORDS = words('account acc acct meter iuc smartcard no customer');

/** A relation before the recipient ("my sister @ngozi", "to my mum +2547…"): placed only right before it. */
export const RELATIONS = words(`
husband wife mum mom mama mother dad papa father brother sister bro sis boss friend uncle aunt son daughter cousin neighbour neighbor
mari femme mere pere frere soeur ami amie cousin cousine tante oncle
marido mulher esposa esposo mae pai irmao irma chefe amigo amiga prima primo tia tio
hermano hermana madre padre jefe amigo amiga tia tio mami papi
mume mke baba kaka dada rafiki bosi shangazi mjomba mamangu
pati patni bhai behen didi mummy maa ammi abbu dost
asawa nanay tatay kuya ate amo kaibigan tita tito pinsan
landlord landlady tailor driver mechanic
`);

/** Words that open a purpose phrase: "for school fees", "pour le loyer", "ya chakula", "make she buy food". */
export const PURPOSE_MARKERS = words('for pour para pra pro ya za make pambayad pambili bayad bilang as note memo ref reference narration description');

/** Words a purpose phrase cannot hold: they change what moves, from whom, to whom or when, or say it is not meant. */
export const PURPOSE_STOPS = words(`
send transfer pay give bet stake wager wire remit take
from account acct wallet compte conta cuenta akaunti khata
me moi mim mi mujhe mimi ako akin sakin
not no never dont pas nao nunca mat nahi usi wag huwag hindi
if when unless once until si se quand quando cuando kama ikiwa agar jab kung pag kapag
who what why how which quoi quem quien kaun kya nini gani sino ano bakit
lol lmao lmfao rofl haha hahaha hehe jk joke joking kidding mdr ptdr kkkk kkk kkkkk jaja jajaja natania utani mazaak mazak charot biro joke
tomorrow later next tonight kesho baadaye demain amanha manana kal parso bukas mamaya
check confirm verify crosscheck
`);

/** Verbs of taking money from someone: with "me" in the leftovers, the direction is reversed. */
export const TAKE_VERBS = words('take collect grab get pull withdraw prends prendre retire pega pegue tira saca sacar quita chukua toa nikaal nikal nikalo kunin kuha kumuha');

/** The writer as the object ("send it to me", "manda pra mim", "mándamelos", "mujhe bhej do"). */
export const FIRST_PERSON_OBJECTS = words('me moi mim mi mujhe mimi ako akin sakin mandamelos mandamelo mandame envoie-moi envoiemoi unitumie nitumie');
