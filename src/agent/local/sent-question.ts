import { isHypothetical } from './gate-phrases.js';
import { fold } from './lexicon-i18n.js';

/**
 * A yes/no question whether a send or a payment already happened: "did you send the 5k to
 * @amaka?", "have I paid @bola?", "how far? you don send am?", "umetuma?", "tu as envoyé… ?",
 * "já mandou…?", "¿ya mandaste…?", "bhej diya?", "napadala mo na ba…?". It asks about the
 * activity; it never asks for a send, however much it names an amount and a person
 * (docs/local-engine.md, "Questions about a past send"). Found by the verb's completed form in a
 * question's shape: the auxiliary put first (en), the person asked about before a completed
 * form (pcm "you don send", fr "tu as envoyé", pt "já mandou", es "mandaste", sw "umetuma"),
 * the completed-form helper (hi "diya", tl "na ba"), with a question mark after it (or a
 * question particle of the same language: sw "je", hi "kya", tl "ba", fr "est-ce que").
 *
 * A statement with a tag ("I sent R200 to @rico yesterday right?", "I don pay @amaka abi you no
 * see am?") is no such question: the gate answers it as already done.
 */
/** The question particles that may stand for the question mark, each with its own language's forms. */
const SW = /^je\b/;
const FR = /\best-ce\s+que\b/;
const HI = /\bkya\b/;
const TL = /\bba\b/;

const COMPLETED_SEND: ReadonlyArray<readonly [RegExp, RegExp?]> = [
  // en: "did you send", "have I paid", "has the 5k been sent", "was it transferred".
  [/\b(did|have|has|had)\s+(you|u|ya|i|we)\s+((already|ever|even|actually|really|just|finally)\s+)?(send|sent|pay|paid|transfer|transferred|wire|wired|forward|forwarded)\b/],
  [/\b(was|were|has|have)\s+(it|that|this|the|my)\b[^?.!]{0,40}\b(been\s+)?(sent|paid|transferred|wired)\b/],
  // pcm: "you don send am?", "una don pay?", "you never send the money?".
  [/\b(you|u|una|una\s+don)\s+(don|done|never|neva|don\s+already)\s+(send|pay|transfer|sent|paid|drop)\b/],
  // sw: second person perfect or past ("umetuma", "umeshamlipa", "ulimtumia"), or the passive ("imetumwa").
  [/\b(ume|mme|uli|mli)(sha)?(m|wa|ni|tu)?(tuma|tumia|lipa|lipia|hamisha|hamishia)\b/, SW],
  [/\b(ime|zime|ili|zili)(sha)?(tumwa|lipwa|hamishwa)\b/, SW],
  // fr: "tu as envoyé", "t'as payé", "as-tu viré", "vous avez transféré", "est-ce que j'ai envoyé", "a été envoyé".
  [/\b(tu\s+as|t\s?['’]\s?as|as-tu|avez-vous|vous\s+avez|ai-je|est-ce\s+que\s+(tu\s+as|t\s?['’]\s?as|vous\s+avez|j\s?['’]\s?ai))\s+((deja|bien|vraiment|finalement)\s+)?(envoye|paye|vire|transfere|regle|fait\s+le\s+virement)s?\b/, FR],
  [/\b(a|ont)\s+(bien\s+|deja\s+)?ete\s+(envoye|paye|vire|transfere)e?s?\b/, FR],
  // pt: "já mandou", "você enviou", "vc pagou", "eu já paguei", "já foi enviado".
  [/\b(ja|voce|vc|voce\s+ja|vc\s+ja|tu\s+ja|eu\s+ja)\s+(mandou|enviou|pagou|transferiu|mandei|enviei|paguei|transferi|fez\s+o\s+pix|fiz\s+o\s+pix)\b/],
  [/\b(ja\s+)?foi\s+(enviado|mandado|pago|transferido)\b/],
  // es: "mandaste", "¿ya le enviaste?", "¿ya pagué?", "¿ya se envió?".
  [/\b(mandaste|enviaste|pagaste|transferiste|depositaste)\b/],
  [/\bya\s+((le|les|te|se)\s+)?(mande|envie|pague|transferi)\b/],
  // hi: "bhej diya", "pay kar diya", "transfer ho gaya", "tumne bheja".
  [/\b(bhej|bheja|pay\s+kar|transfer\s+kar|bhar|de)\s+(diya|diye|di|chuka|chuke|chuki|diya\s+hai|diye\s+hain)\b/, HI],
  [/\b(transfer|pay|send)\s+ho\s+(gaya|gaye|gayi)\b/, HI],
  [/\b(tumne|aapne|apne|tune|maine)\b[^?.!]{0,40}\b(bheja|bheje|bheji)\b/, HI],
  // tl: "napadala mo na ba", "nagpadala ka na ba", "nabayaran ko na ba", "naipadala na ba".
  [/\b(napadala|naipadala|nagpadala|nabayaran|nagbayad|naibigay|nasend|nai-send|na-send|nakapagpadala|nakapagbayad)\b(\s+(mo|ko|ka|nyo|ninyo|natin|niya|na))*\s+(na\s+)?ba\b/, TL],
];

/**
 * Whether the money arrived or went through, asked of the person or of the money: "c'est passé ?",
 * "elle a bien reçu ?", "imefika?", "pahuncha kya?", "pumasok na ba?", "e don land?", "did it go through?".
 * Same shape: a completed form, then the question's mark or particle. Not Spanish "llegó" nor Portuguese
 * "chegou": "me llegó un mensaje: '…' ¿es real?" is a message that came, asked about (the gate answers it).
 */
const ARRIVED: ReadonlyArray<readonly [RegExp, RegExp?]> = [
  [/\b(did|has|have)\s+(it|that|the\s+money|she|he|they|@\w+)\s+((already|actually|finally)\s+)?(arrive|arrived|reach|reached|land|landed|go\s+through|gone\s+through|went\s+through|receive|received|get\s+it|got\s+it)\b/],
  [/\b(e|it|am|the\s+money)\s+(don|done)\s+(land|reach|enter|drop)\b/],
  [/\b(c\s?['’]?\s?est|il\s+est|elle\s+est|ca\s+est|l\s?['’]?\s?argent\s+est)\s+(bien\s+)?(passe|arrive|parti)e?s?\b/, FR],
  [/\b(a|ont|as)\s+(bien\s+)?recu\b/, FR],
  [/\b(imefika|imeingia|imepita|amepokea|wamepokea|amepata)\b/, SW],
  // …and its not-yet forms: "haijafika?" (has it not arrived?), "hajapokea?" (has she not received?).
  [/\b(haijafika|haijaingia|haijapita|hajapokea|hawajapokea|hajapata)\b/, SW],
  [/\b(pahuncha|pahunchi|pahunche|pahunch\s+(gaya|gayi|gaye)|mil\s+(gaya|gayi|gaye)|aa\s+(gaya|gayi|gaye))\b/, HI],
  [/\b(pumasok|dumating|natanggap)\b/, TL],
  // "bakit wala pa?" (why is it not there yet?), "hindi pa dumarating?": asked of money already sent.
  [/\b(bakit\s+wala\s+pa|hindi\s+pa\s+(dumarating|dumadating|pumapasok|natatanggap))\b/],
];

/**
 * English questions whether one's own money went (or will go) through: "did my 10k to @amaka go
 * through?", "when will the money arrive", "did I already pay DStv?". Asked even with no mark and even
 * inside a condition ("did I pay twice if …?"): they name the writer's own past money.
 */
const OWN_PAST: readonly RegExp[] = [
  /\b(did|have|has) (i|my|we)\b.*\b(go through|went through|arrive|reach|land)/,
  /\bgo through\?/,
  /\bwhen (will|does|did|is) (my|the)\b.*\b(arrive|reach|land|go through|come|clear)/,
  /\b(did|have) (i|we) (already |ever |even )?(pay|paid|send|sent|buy|bought|top|topped|transfer|transferred|renew|renewed)\b.*\?/,
];

/**
 * The one place for "asked whether it happened": a question whether a send or a payment already
 * happened, or whether the money arrived. Answered from the activity, never a send. A condition's
 * "what happens if I sent…" is no such question (the gate answers it), except the writer's own
 * past money asked about in English (OWN_PAST).
 */
export function asksWhetherItHappened(text: string): boolean {
  const folded = fold(text.toLowerCase());
  if (OWN_PAST.some((re) => re.test(folded))) return true;
  return asksWhetherSent(text) && !isHypothetical(folded);
}

/** Whether `text` asks whether a send or payment already happened, or the money arrived (see above). */
export function asksWhetherSent(text: string): boolean {
  const t = fold(text.toLowerCase()).replace(/\s+/g, ' ');
  for (const [re, particle] of [...COMPLETED_SEND, ...ARRIVED]) {
    const m = re.exec(t);
    if (!m) continue;
    // The question's mark comes after the completed form (not a statement before another question).
    const after = t.slice(m.index);
    if (after.includes('?') || particle?.test(t)) return true;
  }
  return false;
}
