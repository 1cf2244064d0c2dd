import { onlyTimesOfAPurpose, PAST_DAYS, pastTimesOfAnOccasion, politeIfWithItsOwnVerb, sinceTimes, timesOfANoun, timesOfAThirdPersonClause } from './gate-occasion.js';
import type { Analysis } from './analysis.js';
import { fold } from './lexicon-i18n.js';
import { alternativeAmounts, hasPhrase, isCorrection, isHypothetical, isJoking, isRetracted, SCAM_BAIT } from './gate-phrases.js';
import { MONEY_VERBS, SW_NEGATIVE, words } from './gate-words.js';
import { isNotNeeded, shareOfAnAmount } from './gate-unmeant.js';

export { hasPhrase };
import { POLITE_REQUESTS } from './reading-words.js';
import type { Token } from './tokenize.js';

/**
 * The speech-act gate: money moves only on an unambiguous instruction by the caller, from
 * the caller, now (a plain imperative, or its polite question form "can you send…").
 * Everything else that talks about money gets a named reason here and never becomes a
 * money-moving tool call: a question about amounts or fees (answered with a quote), a
 * statement, past tense, reported speech, the other direction ("X sent me"), a condition,
 * a date, a cancellation, a negation, another person's account, embedded instructions,
 * or a number that is not one exact amount.
 *
 * `screen` runs before intents are scored (reasons that hold whatever the message asks);
 * `check` runs on messages whose best intent moves money.
 */

export type GateReason =
  | 'prompt_injection'
  | 'other_account'
  | 'negation'
  | 'malformed_amount'
  | 'question'
  | 'reversed_direction'
  | 'cancellation'
  | 'conditional'
  | 'reported_speech'
  | 'past_tense'
  | 'scheduled'
  | 'repeated'
  | 'correction'
  | 'alternative_amounts'
  | 'statement';

export type GateVerdict = { reason: GateReason; quoted?: string };


// ------------------------------------------------------------------------ screen

const OVERRIDE = words(`
ignore ignorez ignorer ignora ignorar ignores disregard forget override bypass skip oublie oubliez olvida olvidar esquece esqueca esqueça
puuza sahau bhool bhul bhoolo bhulo kalimutan balewalain
`);
const RULES = words(`
instruction instructions rules rule prompt prompts guardrails limits limit checks confirmation
consignes regles règles instrucciones instrucción reglas instruções instrucoes instrucões regras limites límites
maagizo maelekezo sheria masharti niyam nirdesh instructions patakaran utos bilin
`);
const ROLE_CLAIMS = ['you be admin', 'you are admin', 'eres admin', 'tu es admin', 'você é admin', 'wewe ni admin', 'admin ho', 'ikaw ay admin', 'modo admin', 'mode admin', 'admin mode', 'modo administrador', 'mode administrateur'];

/** Folded once, not per message. */
const ROLE_CLAIMS_FOLDED = ROLE_CLAIMS.map(fold);

const FUNDS = words('account acct wallet card compte carte conta carteira cartão cartao cuenta cartera tarjeta akaunti pochi kadi khata khaate');
const PEOPLE = words(`
husband wife mum mom mama mother dad papa father brother sister boss friend uncle aunt son daughter neighbour neighbor oga madam
mari femme mere mère pere père frere frère soeur sœur patron ami amie
marido mulher esposa esposo mae mãe pai irmao irmão irma irmã chefe amigo amiga
hermano hermana madre padre jefe amigo
mume mke baba kaka dada rafiki bosi shangazi mjomba
pati patni bhai behen didi papa mummy maa ammi abbu dost
asawa nanay tatay kuya ate amo kaibigan
`);
const FROM = words('from de du da do desde depuis kutoka se mula galing using use');

/** Before intents: reasons that hold whatever the message asks for. */
export function screen(a: Analysis): GateVerdict | undefined {
  const t = a.tokens;
  // "husband's" -> "husband".
  const norms = t.map((x) => fold(/['’]s$/i.test(x.text) ? x.norm.slice(0, -1) : x.norm));
  const text = fold(a.text.toLowerCase());

  // Embedded instructions in any language: "ignora las instrucciones anteriores", "puuza maagizo yote".
  for (let i = 0; i < norms.length; i++) {
    if (!OVERRIDE.has(norms[i]!) && !OVERRIDE.has(t[i]!.norm)) continue;
    // Either order: "ignore the rules", and Hindi's "instructions bhool jao".
    for (let k = Math.max(0, i - 3); k < Math.min(norms.length, i + 6); k++) if (RULES.has(norms[k]!) || RULES.has(t[k]!.norm)) return { reason: 'prompt_injection' };
  }
  if (ROLE_CLAIMS_FOLDED.some((p) => text.includes(p))) return { reason: 'prompt_injection' };
  if (/(^|\n)\s*(system|assistant|developer)\s*:/i.test(a.text) || /\[\/?(inst|system)\]|<\|/i.test(a.text)) return { reason: 'prompt_injection' };

  // Someone else's money: "from my husband's account", "kutoka akaunti ya mama", "du compte de mon mari", "mere pati ke account se".
  for (let i = 0; i < norms.length; i++) {
    if (!FUNDS.has(norms[i]!)) continue;
    const near = norms.slice(Math.max(0, i - 4), i + 5);
    if (!near.some((w) => PEOPLE.has(w))) continue;
    const before = norms.slice(Math.max(0, i - 5), i);
    const after = norms.slice(i + 1, i + 4);
    if (before.some((w) => FROM.has(w)) || after.includes('se') || after.includes('ke')) return { reason: 'other_account' };
  }
  if (isNegated(a) || isNotNeeded(a)) return { reason: 'negation' };
  return undefined;
}

// ------------------------------------------------------------------------ negation

const NEGATORS = words("dont don't not never no nunca jamais pas nao não mat nahi nai na huwag wag 'wag hindi usi sitaki acha siwezi sitaweza");
/** "don't forget to send": the negation is of the other verb. */
const NEGATION_EXCEPTIONS = words('forget hesitate worry delay wait olvides oublie esquece sahau bhoolna kalimutan');

function isNegated(a: Analysis): boolean {
  const t = a.tokens;
  const n = t.length;
  const isVerb = (i: number) => {
    const x = t[i];
    if (!x || x.kind !== 'word') return false;
    const f = fold(x.norm);
    // By lemma too: "mandarle", "i-send" are the verbs with a pronoun or an affix glued on.
    return MONEY_VERBS.has(f) || MONEY_VERBS.has(x.norm) || /^n'?(envo|pai|pay|ach)/.test(x.text.toLowerCase()) || ['send', 'pay', 'buy', 'bet'].includes(a.lemmas[i] ?? '');
  };
  for (let i = 0; i < n; i++) {
    const x = t[i]!;
    if (x.kind !== 'word') continue;
    const f = fold(x.norm);
    if (SW_NEGATIVE.test(f)) return true;
    // French elision: "n'envoie pas", "ne paie pas".
    if (/^n'/.test(x.text.toLowerCase()) && isVerb(i)) return true;
    if (!NEGATORS.has(f) && !NEGATORS.has(x.text.toLowerCase())) continue;
    if (f === 'no' && a.lang !== 'pcm' && a.lang !== 'es') {
      // English "no" negates only right before a verb ("no send"); "no, send 500" is a correction.
      if (!isVerb(i + 1)) continue;
    }
    if (f === 'na' && a.lang !== 'hi') continue;
    // An outcome, not a negation: "pe Nahi", "sur Non", "no Não", "Nahi par 300 lagao", "sa Hindi".
    if (a.lemmas.some((l) => l === 'market' || l === 'bet') && (['on', 'to'].includes(a.lemmas[i - 1] ?? '') || ['pe', 'par', 'side'].includes(t[i + 1]?.norm ?? ''))) continue;
    if (f === 'pas' && !t.slice(Math.max(0, i - 3), i).some((_, k) => isVerb(Math.max(0, i - 3) + k))) {
      if (!t.slice(Math.max(0, i - 3), i).some((y) => y.norm === 'ne')) continue;
    }
    // A money verb within three words, no punctuation between, not "don't forget to".
    for (const dir of [1, -1]) {
      for (let k = 1; k <= 3; k++) {
        const j = i + dir * k;
        const y = t[j];
        if (!y || y.kind === 'punct') break;
        if (dir === 1 && y.kind === 'word' && NEGATION_EXCEPTIONS.has(fold(y.norm))) break;
        if (isVerb(j)) {
          // Postposed negation is Hindi ("bhejna nahi", "bhejo mat") and French ("envoie pas").
          if (dir === -1 && !['mat', 'nahi', 'nai', 'na', 'pas', 'not'].includes(f)) break;
          return true;
        }
      }
    }
  }
  // "never mind", "forget it", "stop", "cancel that", "usijali, usitume…".
  const first = t.find((x) => x.kind === 'word');
  const second = first ? t[t.indexOf(first) + 1] : undefined;
  if (first && ['nevermind', 'nvm'].includes(first.norm)) return true;
  if (first?.norm === 'never' && second?.norm === 'mind') return true;
  return false;
}


// ------------------------------------------------------------------------ check

const QUESTION_WORDS = words('how much many what whats which combien quanto quanta cuanto cuánto cuanta ngapi gani kitna kitne kitni magkano ilan wetin');
/** "quels sont les frais…", "qual a taxa…", "…ka charge kya hai": asking words that make a fee word a question without "?". */
const FEE_ASKS = words('quel quels quelle quelles qual quais cual cuales kya kyaa ano');
const FEE_WORDS = words('fee fees charge charges cost costs rate rates frais coût cout taux taxa tarifa comision comisión comissão comissao ada makato gharama charge');
/** Verbs of receiving, for "how much does X receive" and "X sent me". */
const RECEIVE = words('receive receives get gets collect recoit reçoit recebe recibe atapata apokee milega milenge matatanggap makukuha');
const POLITE = POLITE_REQUESTS;

const PAST = words(`
sent paid transferred gave bought wired staked already yesterday ago earlier
envoye envoyé payé acheté transféré hier deja déjà
enviei mandei paguei comprei transferi enviou mandou pagou ontem
envie envié mande mandé pague pagué compre compré transferi transferí envio envió mando mandó pago pagó ayer
nilituma nimetuma nimeshatuma alituma ametuma nililipa nimelipa nimeshalipa nilinunua nimenunua nilimtumia nimemtumia jana tayari
bheja bheje bheji bhara bhare diya kiya chuka chuki pehle
nagpadala pinadala nagbayad binayaran bumili binili kahapon
`);
const PAST_PHRASES = ['last week', 'last month', 'last night', 'i don', 'we don', 'don pay', 'don send', 'did i', 'have sent', 'has sent', 'had sent', 'have paid', "j'ai", 'ja paguei', 'já paguei', 'ya pague', 'ya pagué', 'bhej diya', 'kar diya', 'bhar diya', 'bhej diye', 'de diye', 'diye the', 'diya tha', 'bheja tha', 'bheje the', 'kiya tha'];

/** Tagalog completed-aspect forms of the money verbs ("nag-" / "nakapag-" + the verb, English ones too): "mag-send" is the request. */
const TL_COMPLETED = /^(?:nag|nakapag|nakapagpa)-?(?:send|transfer|padala|bayad|load|remit|gcash|cash-?in|pay|deposit)(?:\b|$)/;
const REPORTED = words('said says told tells asked dit disse falou pediu dijo dice pidio pidió alisema anasema aliniambia ameniambia bola boli bole kaha kehta kehti sabi sinabi');
const REPORTED_PHRASES = ['talk say', 'tell me say', 'say make', 'na so'];

const CONDITIONAL = words(`
if unless incase once when whenever provided si se quand lorsque lorsqu quando cuando kama ikiwa iwapo endapo agar jab kung kapag pag
`);
/** Conditions written as phrases: "as soon as he pays", "dès que", "assim que", "en cuanto", "jaise hi". */
const CONDITIONAL_PHRASES = ['as soon as (?!possible|u can|you can)', 'in case', 'des que', 'une fois que', 'assim que', 'en cuanto', 'una vez que', 'jaise hi'];
/**
 * The caller's own plan, not an instruction: "I'll send…", "I'm going to pay…", "je vais envoyer",
 * "vou mandar", "voy a enviar", "nitatuma", "bhejunga", "magpapadala ako".
 */
const FUTURE_SELF = [
  /\b(i|we) ?('ll|will|shall|wil)\b/, /\b(i|we) ?('m|am|are) (going to|gonna|about to)\b/, /\bi go (send|pay|transfer|buy|give|drop)\b/,
  /\bje (vais|compte|voulais)\b/, /\bj'(enverrai|irai)\b/, /\bje (lui |te )?(enverrai|paierai|transfererai)\b/,
  /\b(eu )?vou (te |lhe )?(mandar|enviar|pagar|transferir|fazer|depositar)\b/, /\b(mandarei|enviarei|pagarei)\b/,
  /\bvoy a\b/, /\b(le |te )?(mandare|enviare|pagare|transferire|depositare)\b/,
  /\bnita(m|wa)?(tum|lip|nunu|pelek|kutum)/, /\btuta(m|wa)?(tum|lip|nunu)/,
  /\b(bhejunga|bhejungi|bhej dunga|bhej dungi|de dunga|de dungi|bhar dunga|bhar dungi|karunga|karungi)\b/,
  /\b(magpapadala|magbabayad|ipapadala|babayaran|bibili)\b/,
];
const CANCEL = words('cancel annule annuler annulez cancela cancelar cancele anula anular ghairi sitisha futa radd kanselahin icancel undo reverse revert desfaz desfazer desfaca deshaz deshacer revierte reverte');

/**
 * "undo that", "annule ça", "desfaz isso", "futa ile transaction ya mwisho", "woh transfer cancel karo":
 * taking back an earlier payment, with no amount and no market named (a market has its own
 * cancel). Answered as a cancellation (nothing here reverses a payment), never read as a listing.
 */
export function isTakeBack(a: Analysis): boolean {
  // A market, or a payment, named by its id has its own cancel and void ("cancel mkt_abc", "cancel the hold on pay_x").
  if (a.money.length || a.lemmas.some((l) => l === 'market' || l === 'markets') || a.tokens.some((x) => (x.kind !== 'word' && x.kind !== 'punct' && x.kind !== 'symbol') || /[_\d]/.test(x.text))) return false;
  return a.tokens.some((x) => x.kind === 'word' && (CANCEL.has(fold(x.norm)) || CANCEL.has(fold(x.norm).replace(/-/g, ''))));
}
/** A count of payments in one message ("twice", "3 times", "x2", "mara mbili", "deux fois", "do baar"). */
const REPEATED: readonly RegExp[] = [
  /\b(twice|thrice)\b/,
  /\b(\d+|two|three|four|five)\s*(times|tyms|x)\b/,
  /(^|\s)x\s?\d+\b/,
  /\bmara\s+(mbili|tatu|nne|tano|\d+)\b/,
  /\b(deux|trois|quatre|cinq|\d+)\s+fois\b/,
  /\b(duas|tres|três|quatro|cinco|\d+)\s+vezes\b/,
  /\b(dos|tres|cuatro|cinco|\d+)\s+veces\b/,
  /\b(do|teen|char|paanch|\d+)\s+(baar|bar|dafa)\b/,
  /\b(dalawang|tatlong|apat na|\d+)\s*beses\b/,
];

const SCHEDULE = words(`
tomorrow tmrw tmr tomoro later tonight weekly monthly daily every schedule monday tuesday wednesday thursday friday saturday sunday weekend
lundi mardi mercredi jeudi vendredi samedi dimanche segunda terca quarta quinta sexta sabado domingo lunes martes miercoles jueves viernes
jumatatu jumanne jumatano alhamisi ijumaa jumamosi jumapili somvar mangalvar budhvar guruvar shukravar shanivar ravivar lunes martes miyerkules huwebes biyernes linggo
demain soir chaque
amanha amanhã depois cada toda todo
manana mañana luego cada
kesho baadaye kila jioni usiku ijayo ujao
parso baad har agle agla
bukas mamaya bawat tuwing
morning evening afternoon noon midnight tonite matin soir manha tarde noite noche asubuhi mchana subah shaam kal umaga hapon gabi
`);
const OWE = words('owe owes owed dois doit devo deve debo debe dena deni nadaiwa nadai utang');
/** First-person objects after a send verb: "sent me", "m'a envoyé", "me mandou", "alinitumia", "magbayad sakin". */
const ME = words('me moi mi mujhe mujhko ako sakin akin');
const SW_TO_ME = /^(?:a|wa|ali|ame|ana|ata|ange)(?:ni)(?:tumi|tum|lip|pe)/;

const MONEY_VERB_LEMMAS = new Set(['send', 'pay', 'give', 'transfer', 'buy', 'bet', 'stake', 'wire', 'remit', 'tip', 'lend', 'move', 'forward', 'put', 'recharge', 'top', 'renew', 'load']);

export type CheckContext = { intent: string };

/** After intents: the message asks for something that moves money; is it an instruction for now? */
export function check(a: Analysis, ctx: CheckContext): GateVerdict | undefined {
  const t = a.tokens;
  // Words inside quotes are a note's or a question's, not the sender's speech act ("note 'thanks for yesterday'").
  const quoted = new Set<number>();
  for (let i = 0; i < t.length; i++) {
    if (t[i]!.text !== '"' && t[i]!.text !== "'") continue;
    const close = t.findIndex((x, j) => j > i && x.text === t[i]!.text);
    if (close < 0) break;
    for (let j = i + 1; j < close; j++) quoted.add(j);
    i = close;
  }
  // Fillers of the closed list ("cuando puedas", "jab time mile", "pag may time ka") are politeness, not conditions.
  const norms = t.map((x, i) => (quoted.has(i) || a.fillers.has(i) ? '' : fold(x.norm)));
  const text = fold(withoutFillers(a).toLowerCase());
  const has = (set: ReadonlySet<string>) => norms.some((w) => set.has(w)) || t.some((x, i) => !quoted.has(i) && !a.fillers.has(i) && set.has(x.norm));

  const odd = a.refusedNumbers[0];
  if (odd && ctx.intent !== 'list_activity') return { reason: 'malformed_amount', quoted: quoteOf(a, odd) };
  const share = shareOfAnAmount(a, quoted);
  if (share) return { reason: 'malformed_amount', quoted: share };
  // "send 3000 to @aisha, no wait, 300 not 3000": the writer changed the amount mid-message; which one is meant is asked, never guessed.
  const own = a.tokens.map((x, i) => (quoted.has(i) ? '' : fold(x.norm)));
  if (isCorrection(a.lang, own, a.money)) return { reason: 'correction' };
  // "send 50 or 60 cedis to @yaw": two amounts offered, none chosen; the question names both.
  const choice = alternativeAmounts(a.lang, own, a.money);
  if (choice) return { reason: 'alternative_amounts', quoted: a.text.slice(t[choice.first]!.start, t[choice.end - 1]!.end) };
  // A scam's bait (a locked account, a prize, a support desk) asks for money on someone else's say-so.
  if (hasPhrase(text, SCAM_BAIT)) return { reason: 'reported_speech' };
  // Fillers kept: Hindi "rehne do" ends in the filler "do".
  if (isRetracted(fold(a.text.toLowerCase()))) return { reason: 'negation' };

  const verbIdx = a.lemmas.findIndex((l) => MONEY_VERB_LEMMAS.has(l));
  const polite = hasPhrase(text, POLITE);
  const questionWord = has(QUESTION_WORDS) || text.includes('how much');
  const fee = has(FEE_WORDS);
  // "what happens if I send 500 to a wrong number?": a hypothetical, not a price question (unless it asks a fee or what arrives).
  if (isHypothetical(text) && !fee && !has(RECEIVE)) return { reason: 'conditional' };
  if (!polite && fee && has(FEE_ASKS)) return { reason: 'question' };
  if (!polite && ((questionWord && (fee || has(RECEIVE) || t.some((x) => x.text === '?') || a.money.length > 0)) || (fee && t.some((x) => x.text === '?')))) return { reason: 'question' };
  if (/\b(did|has|have)\b.*\b(go through|arrive|reach|land)/.test(text) || /go through\?/.test(text)) return { reason: 'question' };

  // The other direction: "@x sent me", "@x m'a envoyé", "@x alinitumia", "@x go send me".
  for (let i = 0; i < t.length; i++) {
    const f = norms[i]!;
    if (SW_TO_ME.test(f) && t.some((x) => x.kind === 'mention' || x.kind === 'phone')) return { reason: 'reversed_direction' };
    if (/^m'/.test(t[i]!.text.toLowerCase()) && MONEY_VERBS.has(fold(t[i]!.text.toLowerCase().slice(2).replace(/'/g, '')))) return { reason: 'reversed_direction' };
    if (/^m'/.test(t[i]!.text.toLowerCase()) && ['a', 'ma'].includes(f) && (PAST.has(norms[i + 1] ?? '') || MONEY_VERBS.has(norms[i + 1] ?? ''))) return { reason: 'reversed_direction' };
    if (f === 'ma' && /^m'a$/i.test(t[i]!.text) && (PAST.has(norms[i + 1] ?? '') || MONEY_VERBS.has(norms[i + 1] ?? ''))) return { reason: 'reversed_direction' };
    if ((MONEY_VERBS.has(f) || PAST.has(f)) && ME.has(norms[i + 1] ?? '') && (i === 0 || t.slice(0, i).some((x) => x.kind === 'mention' || x.kind === 'phone' || x.kind === 'word'))) {
      // "send me" at the very start is an imperative to the agent about the caller's own link/money.
      if (i > 0 && t.slice(0, i).some((x) => x.kind === 'mention' || x.kind === 'phone' || PEOPLE.has(fold(x.norm)) || ['he', 'she', 'they', 'who'].includes(x.norm))) return { reason: 'reversed_direction' };
    }
    if ((f === 'me' || f === 'mi' || f === 'mujhe') && (MONEY_VERBS.has(norms[i + 1] ?? '') || PAST.has(norms[i + 1] ?? '')) && t.slice(0, i).some((x) => x.kind === 'mention' || x.kind === 'phone')) {
      return { reason: 'reversed_direction' };
    }
    if (['received', 'recu', 'reçu', 'recebi', 'recibi', 'recibí', 'nimepokea', 'nilipokea', 'mila', 'mile', 'natanggap'].includes(f)) return { reason: 'reversed_direction' };
  }
  if (/\bpinadalhan\s+ako\b|\bni\s+@/.test(text) && !/\bkay\b/.test(text)) return { reason: 'reversed_direction' };
  // "@juan me va a mandar", "@x go send me", "@x atanitumia": someone else pays the caller.
  const firstMention = t.findIndex((x) => x.kind === 'mention' || x.kind === 'phone');
  if (firstMention >= 0) {
    const meAt = norms.findIndex((w, i) => i > firstMention && (ME.has(w) || /^m'/.test(t[i]!.text.toLowerCase())));
    if (meAt > 0 && norms.slice(meAt, meAt + 5).some((w, k) => MONEY_VERBS.has(w) || MONEY_VERB_LEMMAS.has(a.lemmas[meAt + k] ?? ''))) return { reason: 'reversed_direction' };
  }
  if (/@\w+\s+ne\s+(mujhe|muje)/.test(text)) return { reason: 'reversed_direction' };

  if (has(CANCEL) && ctx.intent !== 'cancel_market') return { reason: 'cancellation' };
  if (hasPhrase(text, CONDITIONAL_PHRASES) || politeIfWithItsOwnVerb(a, MONEY_VERB_LEMMAS)) return { reason: 'conditional' };
  // "al Sí", "no Sim": an outcome after an article or preposition, and an accented "sí", are not "if".
  // "once again", "send it once" are not conditions; "once he pays" is.
  const condAt = (i: number) =>
    CONDITIONAL.has(norms[i]!) &&
    !(norms[i] === 'si' && (t[i]!.text.toLowerCase() === 'sí' || ['al', 'a', 'el', 'en', 'por', 'del', 'un', 'o', 'no'].includes(norms[i - 1] ?? ''))) &&
    !(norms[i] === 'once' && (!norms[i + 1] || ['again', 'more', 'only', 'a', 'per', 'off'].includes(norms[i + 1]!)));
  if (!(a.lang === 'sw' && norms.includes('si') && !norms.includes('kama'))) {
    // Spanish "si" is also a careless "sí"; French/Spanish/Portuguese "si/se" must open a clause.
    // Every candidate counts, not only the first: in "no sé si mandarle…" the "se" of "sé" is no
    // condition in Spanish, the "si" after it is.
    for (let idx = 0; idx < norms.length; idx++) {
      if (!condAt(idx)) continue;
      const word = norms[idx]!;
      const clause = !['si', 'se'].includes(word) || idx < t.length - 2;
      if (clause && !(word === 'se' && a.lang !== 'pt') && !(word === 'si' && !['fr', 'es'].includes(a.lang)) && !(word === 'pag' && a.lang !== 'tl') && !(word === 'jab' && a.lang !== 'hi') && !(word === 'kama' && a.lang !== 'sw')) {
        return { reason: 'conditional' };
      }
    }
  }
  if (has(REPORTED) || hasPhrase(text, REPORTED_PHRASES)) return { reason: 'reported_speech' };
  // Tagalog's completed aspect: "nag-send ako", "nag send ako", "nagtransfer", "nakapag-send" (I sent): done, not asked for.
  if (t.some((x, i) => !quoted.has(i) && (TL_COMPLETED.test(fold(x.text.toLowerCase())) || (fold(x.norm) === 'nag' && MONEY_VERB_LEMMAS.has(a.lemmas[i + 1] ?? ''))))) return { reason: 'past_tense' };
  if (has(PAST) || hasPhrase(text, PAST_PHRASES)) {
    // Portuguese/Spanish "envie"/"mande" are also imperatives; only count them with another past marker.
    const strong = norms.filter((w) => PAST.has(w) && !['envie', 'mande', 'pague', 'compre', 'pago', 'mando', 'envio', 'diya', 'kiya', 'pehle'].includes(w));
    // Written with its accent ("pagué", "mandó") or after "ya"/"já" ("ya le pagué"), the form is the past.
    const accented = t.some((x) => /^(pagu|mand|envi|compr|transfer|deposit|pas)(é|ó|í|ió)$/.test(x.text.toLowerCase()));
    // Swahili "ya" is "of" ("ya chai jana": for yesterday's tea), not Spanish "already".
    const already = norms.some((w, i) => ((w === 'ya' && a.lang !== 'sw') || w === 'ja') && norms.slice(i + 1, i + 4).some((v) => PAST.has(v)));
    // Only past days ("yesterday", "last night") that date the occasion paid for, after the request: no past.
    const onlyDays = strong.every((w) => PAST_DAYS.has(w)) && !accented && !already && !norms.includes('ja') && !norms.includes('diya') && !hasPhrase(text.replace(/\blast (night|week|month|weekend)\b/g, ''), PAST_PHRASES);
    // "…, lo de la cena de ayer", "o jantar de ontem": the past day dates a noun (timesOfANoun), not the payment.
    const nounTimes = timesOfANoun(a, norms, PAST_DAYS, MONEY_VERB_LEMMAS);
    const ofANoun = nounTimes.size > 0 && norms.every((w, i) => !PAST_DAYS.has(w) || nounTimes.has(i));
    if (!(onlyDays && (pastTimesOfAnOccasion(a, norms, verbIdx) || ofANoun)) && (strong.length || accented || already || hasPhrase(text, PAST_PHRASES) || norms.includes('diya'))) return { reason: 'past_tense' };
  }
  // A time after "since" ("since morning", "depuis ce matin") says how long something has lasted, not when to pay.
  const since = sinceTimes(a, norms, SCHEDULE);
  // "kal ka dinner", "la fiesta de mañana": a time that dates a noun, not the payment; "…, they lose every year": a third person's.
  for (const i of [...timesOfANoun(a, norms, SCHEDULE, MONEY_VERB_LEMMAS), ...timesOfAThirdPersonClause(a, norms, SCHEDULE, MONEY_VERB_LEMMAS)]) since.add(i);
  const timeNorms = norms.map((w, i) => (since.has(i) ? '' : w));
  if (timeNorms.some((w, i) => SCHEDULE.has(w) || (!since.has(i) && !quoted.has(i) && !a.fillers.has(i) && SCHEDULE.has(t[i]!.norm))) && !onlyTimesOfAPurpose(a, timeNorms, SCHEDULE, MONEY_VERB_LEMMAS)) return { reason: 'scheduled' };
  // "send 5000 to @emeka twice": one message moves one amount once; a count of payments is asked about, never guessed.
  if (REPEATED.some((re) => re.test(text))) return { reason: 'repeated' };
  if (FUTURE_SELF.some((re) => re.test(text))) return { reason: 'statement' };
  // The writer says it is a joke: not an instruction ("na joke o", "natania tu", "je rigole", "mazaak hai").
  if (isJoking(fold(a.text.toLowerCase()))) return { reason: 'statement' };
  // "I owe @yaw 80 cedis" is a statement; "padala 1k kay @jose, pambayad sa utang" names why.
  const oweAt = norms.findIndex((w) => OWE.has(w));
  if (oweAt >= 0 && !(verbIdx >= 0 && verbIdx < oweAt)) return { reason: 'statement' };
  // Without any verb that moves money the message is a statement ("@yaw 80 cedis for the trip" is
  // still taken as a bare "@handle amount" instruction, the chat shorthand).
  if (verbIdx < 0 && ctx.intent === 'send_transfer' && !isBareShorthand(a)) return { reason: 'statement' };
  return undefined;
}

/** The message without its filler phrases (a word of a phrase is a filler only inside the phrase). */
function withoutFillers(a: Analysis): string {
  let out = '';
  let at = 0;
  a.tokens.forEach((x, i) => {
    if (!a.fillers.has(i) || x.kind === 'symbol') return;
    out += a.text.slice(at, x.start);
    at = x.end;
  });
  return out + a.text.slice(at);
}

/** "@amina 500", "+2547… 1k pls": only a recipient, an amount and politeness. */
function isBareShorthand(a: Analysis): boolean {
  const moneyIdx = new Set<number>();
  for (const m of a.money) for (let i = m.first; i < m.end; i++) moneyIdx.add(i);
  return a.tokens.every((x, i) => moneyIdx.has(i) || ['mention', 'phone', 'email', 'address', 'account_id', 'punct', 'symbol'].includes(x.kind) || ['please', 'pls', 'plz', 'abeg', 'tafadhali', 'asap', 'now', 'to', 'kwa', 'for'].includes(x.norm));
}

/** What was typed, as the user wrote it (with its brackets for "(5)"). */
export function quoteOf(a: Analysis, t: Token): string {
  const typed = a.text.slice(t.start, t.end);
  return t.malformed === 'parenthesised' ? `(${typed})` : typed;
}
