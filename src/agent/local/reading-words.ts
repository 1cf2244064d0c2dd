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
to on with of the a an my at in into this that
kwa kwenye ya la wa
a au aux al pra pro para pa p de do da del du des le les lui el los las um uma un una une o os as no na em en sur dans
ko ke ki ka pe par mein wale wala wali
kay kina si ng sa
give
`);

/** Words that name the role of an argument: the bill's kind, the market, the side. */
export const ROLE_WORDS = words(`
airtime data bundle bundles token tokens units unit meter electricity light bill line number credit prepaid postpaid smartcard decoder subscription
market poll outcome side option soko mercado marche mercados
`);

/** Words that open a purpose phrase: "for school fees", "pour le loyer", "ya chakula", "make she buy food". */
export const PURPOSE_MARKERS = words('for pour para pra pro ya make pambayad bilang as');

/** Words a purpose phrase cannot hold: they change what moves, from whom, to whom or when, or say it is not meant. */
export const PURPOSE_STOPS = words(`
send transfer pay give bet stake wager wire remit take
from account acct wallet compte conta cuenta akaunti khata
me moi mim mi mujhe mimi ako akin sakin
not no never dont pas nao nunca mat nahi usi wag huwag hindi
if when unless once until si se quand quando cuando kama ikiwa agar jab kung pag kapag
who what why how which quoi quem quien kaun kya nini gani sino ano bakit
lol lmao lmfao rofl haha hahaha hehe jk joke joking kidding mdr ptdr kkkk kkk kkkkk jaja jajaja natania utani mazaak mazak charot biro joke
and et e y aur at
tomorrow later next tonight kesho baadaye demain amanha manana kal parso bukas mamaya
`);

/** Verbs of taking money from someone: with "me" in the leftovers, the direction is reversed. */
export const TAKE_VERBS = words('take collect grab get pull withdraw prends prendre retire pega pegue tira saca sacar quita chukua toa nikaal nikal nikalo kunin kuha kumuha');

/** The writer as the object ("send it to me", "manda pra mim", "mándamelos", "mujhe bhej do"). */
export const FIRST_PERSON_OBJECTS = words('me moi mim mi mujhe mimi ako akin sakin mandamelos mandamelo mandame envoie-moi envoiemoi unitumie nitumie');
