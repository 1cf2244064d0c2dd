import { currencyAt } from './amounts.js';
import type { Analysis } from './analysis.js';
import type { Draft } from './draft.js';
import { fold } from './lexicon-i18n.js';
import { greetingIndices, greetingLead } from './fillers.js';
import { isHypothetical } from './gate-phrases.js';
import { pickAmount } from './slots.js';
import { asksWhetherItHappened } from './sent-question.js';
import { wordTable } from '../../lib/word-table.js';

/**
 * The read-only questions: "what did I pay this month" (list_activity) and "how much is
 * 100 USD in NGN" / "what does @x get if I send 5k" (quote_transfer). Found by their own
 * words rather than by intent scores, so a question about money never scores as a send.
 */

const ACTIVITY_NOUNS = new Set([
  'transactions', 'transaction', 'activity', 'activities', 'history', 'historique', 'historial', 'historico', 'extrato', 'movimientos',
  'transacciones', 'transacoes', 'transações', 'transaksyon', 'historia', 'statement', 'mouvements', 'operations', 'opérations',
  'miamala', 'muamala', 'movimentacoes', 'movimentações', 'releve', 'relevé', 'txns', 'txn',
]);
const ACTIVITY_PHRASES = [
  /\bwhat did i (pay|send|spend|buy)\b/, /\bwhat (have|did) i (paid|sent|spent|bought)\b/, /\bmy (recent |last )?payments\b/, /\bmalipo yangu\b/,
  /qu.est.ce que j.ai (paye|envoye|depense)/, /\bo que (eu )?(paguei|enviei|gastei)\b/, /\bque (pague|envie|gaste)\b/, /\bmaine\b.*\b(bheja|bheje|pay kiya|kharch|bhara)/,
  /\bano (ang )?(mga )?(binayaran|pinadala|ginastos) ko\b/, /\bwetin i (don )?(pay|send|spend)\b/,
];
const QUESTION_WORDS = new Set(['how', 'what', 'whats', 'combien', 'quanto', 'quanta', 'cuanto', 'cuanta', 'ngapi', 'gani', 'kitna', 'kitne', 'kitni', 'magkano', 'ilan', 'wetin']);
const FEE_WORDS = new Set(['fee', 'fees', 'charge', 'charges', 'cost', 'costs', 'rate', 'frais', 'taux', 'taxa', 'tarifa', 'comision', 'comissao', 'ada', 'gharama']);
/** "how much will @x get if…": what arrives, a price question even when put as a condition. */
const RECEIVES = new Set(['get', 'gets', 'receive', 'receives', 'recoit', 'reçoit', 'recebe', 'recibe', 'atapata', 'milega', 'milenge', 'matatanggap', 'makukuha']);
/** Asking to be told: "get the rate", "tell me the fee", "check the charges", "know the cost". */
const FEE_ASKING = new Set(['get', 'know', 'tell', 'check', 'see', 'confirm', 'give']);
const RECIPIENT_KINDS = new Set(['mention', 'phone', 'email', 'address', 'account_id']);
/** Corridor countries (folded names in the eight languages) and the currency a transfer there arrives in. */
const COUNTRY_CURRENCY: Readonly<Record<string, string>> = wordTable({
  mexico: 'MXN', mexique: 'MXN', brasil: 'BRL', brazil: 'BRL', bresil: 'BRL', nigeria: 'NGN', naija: 'NGN', kenya: 'KES', kenia: 'KES',
  ghana: 'GHS', senegal: 'XOF', philippines: 'PHP', filipinas: 'PHP', pilipinas: 'PHP', ufilipino: 'PHP', india: 'INR', inde: 'INR', bharat: 'INR',
  usa: 'USD', marekani: 'USD', amerika: 'USD', america: 'USD',
});
const TO_COUNTRY = new Set(['to', 'pro', 'pra', 'para', 'a', 'al', 'au', 'en', 'kwa', 'sa', 'ko', 'no', 'na', 'pour', 'into']);


export function detectActivity(a: Analysis): boolean {
  const text = fold(a.text.toLowerCase());
  // "did you send the 5k to @amaka?", "umetuma?", "c'est passé ?": whether it happened, never a send (sent-question.ts).
  if (asksWhetherItHappened(a.text)) return true;
  if (a.money.length) return false;
  const norms = a.tokens.map((t) => fold(t.norm));
  if (norms.some((w) => ACTIVITY_NOUNS.has(w)) || a.lemmas.includes('history') || ACTIVITY_PHRASES.some((re) => re.test(text))) return true;
  return showsWhatWasDone(a, norms);
}

/** "show", "nionyeshe", "mostra", "muéstrame", "montre-moi", "dikhao", "ipakita": asking to be shown. */
const SHOW_WORDS = new Set(['show', 'list', 'montremoi', 'montre', 'affiche', 'mostra', 'mostrame', 'ensename', 'muestrame', 'ensenar', 'dikhao', 'dikha', 'dikhana', 'pakita', 'ipakita', 'patingin', 'onyesha', 'nionyeshe', 'nioneshe']);
/**
 * Verbs of money that already went out or came in, in the first person past ("sent", "don send",
 * "nimetuma", "gastei", "pagué", "envoyé", "bheja", "pinadala"): what an activity list shows.
 */
const DONE_MONEY = new Set([
  'sent', 'spent', 'paid', 'received', 'bought', 'spend', 'nimetuma', 'nilituma', 'nimelipa', 'nililipa', 'nimetumia', 'nilitumia', 'nimepokea', 'nilipokea',
  'gastei', 'enviei', 'paguei', 'recebi', 'mandei', 'transferi', 'gaste', 'pague', 'envie', 'mande', 'recibi', 'transferi', 'envoye', 'paye', 'depense', 'recu',
  'bheja', 'bheje', 'bheji', 'bhara', 'bhare', 'kharch', 'kharcha', 'kharche', 'pinadala', 'binayaran', 'ginastos', 'natanggap', 'nagastos', 'nagpadala',
]);

/**
 * "show me everything that went out this week", "abeg show me all the money wey I don send",
 * "nionyeshe pesa zote nimetuma mwezi huu", "me mostra tudo que eu gastei": asked to be shown
 * what was already sent, spent or received, with no amount and nobody to pay, is the activity list.
 */
function showsWhatWasDone(a: Analysis, norms: readonly string[]): boolean {
  if (a.tokens.some((t) => RECIPIENT_KINDS.has(t.kind))) return false;
  if (!norms.some((w, i) => SHOW_WORDS.has(w) || a.lemmas[i] === 'show')) return false;
  const pidginDone = norms.some((w, i) => (w === 'don' || w === 'done') && ['send', 'spend', 'pay', 'buy', 'receive', 'collect'].includes(norms[i + 1] ?? ''));
  const wentOut = norms.some((w, i) => w === 'went' && (norms[i + 1] === 'out' || norms[i + 1] === 'through'));
  return pidginDone || wentOut || norms.some((w) => DONE_MONEY.has(w));
}

/**
 * A question about what a transfer would give. `force`: the gate has already read the
 * message as a question about an amount, so only an amount is needed.
 */
export function detectQuote(a: Analysis, force = false): Draft | undefined {
  const norms = a.tokens.map((t) => fold(t.norm));
  // "Did my 10k to @amaka go through?" asks about a past transfer, not a price.
  // Pidgin "send 50k reach @zawadi" is "to": "reach" before a person is no arrival.
  if (/\b(did|go through|went through|arrived?|reach(ed)?)\b(?!\s+[@+\d])/i.test(a.text)) return undefined;
  // "can I get the rate for sending 200 cedis to @x", "tell me the charge for 5k to @y": asking to be
  // told a fee is a question without a question word (the fee noun right after "the", "your").
  const askedFee = norms.some((w, i) => FEE_WORDS.has(w) && ['the', 'your', 'ur', 'di'].includes(norms[i - 1] ?? '') && norms.slice(Math.max(0, i - 4), i - 1).some((v) => FEE_ASKING.has(v)));
  // A greeting sentence before the request ("How far bros? Send 5k…") asks after the person, not a price.
  const lead = greetingLead(a.tokens, a.fillers);
  // …and so does a greeting phrase's own question word, with no mark after it ("how una dey i wan beg make una send…").
  const greets = greetingIndices(a.tokens);
  const question = norms.some((w, i) => QUESTION_WORDS.has(w) && !lead.has(i) && !greets.has(i)) || a.tokens.some((t, i) => t.text === '?' && !lead.has(i)) || askedFee;
  // "quote me 100 usd to @amina", "give me a quote for…", "cotação de 500 pro @rafa": a quote asked
  // for by name is a quote, never the send it prices (a hold of that send would be one tap from moving it).
  if (norms.some((w) => QUOTE_WORDS.has(w))) force = true;
  if (!question && !force) return undefined;
  const amount = pickAmount(a);
  if (!amount) return undefined;
  const recipient = a.tokens.find((t) => RECIPIENT_KINDS.has(t.kind));
  // Another currency named away from the amount: "100 USD in NGN", "dola 100 ni shilingi ngapi".
  let toCurrency: string | undefined;
  for (let i = 0; i < a.tokens.length; i++) {
    if (i >= amount.first && i < amount.end) continue;
    if (a.money.some((m) => i >= m.first && i < m.end)) continue;
    const c = currencyAt(a.tokens, i, { localCurrency: a.localCurrency, messageSaysPhp: false, lang: a.lang });
    if (c && c.code !== amount.currency) {
      toCurrency = c.code;
      break;
    }
  }
  // "pro México", "to Kenya", "au Sénégal": a corridor country after "to" names the destination currency.
  if (!toCurrency && !recipient) {
    const at = norms.findIndex((w, i) => COUNTRY_CURRENCY[w] !== undefined && i > 0 && (a.lemmas[i - 1] === 'to' || TO_COUNTRY.has(norms[i - 1]!)));
    const code = at >= 0 ? COUNTRY_CURRENCY[norms[at]!] : undefined;
    if (code && code !== (amount.currency ?? a.localCurrency)) toCurrency = code;
  }
  const fee = norms.some((w) => FEE_WORDS.has(w));
  // "what if I send 5k to @amaka by mistake": a hypothetical asks no price (the gate answers it).
  if (!fee && !norms.some((w) => RECEIVES.has(w)) && isHypothetical(fold(a.text.toLowerCase()))) return undefined;
  if (!force && !recipient && !toCurrency && !fee) return undefined;
  if (!force && !norms.some((w) => QUESTION_WORDS.has(w)) && !fee) return undefined;
  return {
    call: {
      name: 'quote_transfer',
      input: {
        amount: amount.amount,
        ...(amount.currency ? { currency: amount.currency } : {}),
        ...(recipient ? { recipient: recipient.kind === 'phone' ? recipient.norm : recipient.text } : toCurrency ? { to_currency: toCurrency } : {}),
      },
    },
  };
}

/** A quote asked for by name, in the eight languages (folded). */
const QUOTE_WORDS = new Set(['quote', 'quotes', 'quotation', 'devis', 'cotation', 'cotacao', 'cotizacion', 'cotizame', 'cotizar', 'cotiza', 'nukuu', 'kotasyon']);
const SEND_LEMMAS = new Set(['send', 'transfer', 'pay', 'give', 'wire', 'remit']);
const BALANCE_WORDS = new Set(['account', 'compte', 'conta', 'cuenta', 'akaunti', 'wallet', 'pochi', 'paise', 'paisa', 'pesa', 'hela', 'pera', 'money', 'dinero', 'lana', 'dinheiro', 'grana', 'argent', 'kobo', 'owo']);
const HAVE_WORDS = new Set(['have', 'got', 'left', 'dey', 'remain', 'tenho', 'tengo', 'jai', 'ai', 'niko', 'nina', 'hai', 'hain', 'meron', 'natitira', 'laman', 'baki', 'imebaki', 'queda', 'sobra', 'reste', 'tienes', 'tengo']);

/** "how much dey my account?", "niko na pesa ngapi", "combien j'ai sur mon compte", "account mein kitne paise hain". */
export function detectBalance(a: Analysis): boolean {
  if (a.money.length || a.tokens.some((t) => RECIPIENT_KINDS.has(t.kind))) return false;
  const norms = a.tokens.map((t) => fold(t.norm));
  const question = norms.some((w) => QUESTION_WORDS.has(w)) || norms.includes('much');
  const market = a.lemmas.some((l) => l === 'market' || l === 'markets');
  // "how I fit send money to person wey no get account?" asks how to send, not what is left.
  const sending = a.lemmas.some((l) => SEND_LEMMAS.has(l));
  return !market && !sending && question && norms.some((w) => BALANCE_WORDS.has(w) || HAVE_WORDS.has(w)) && !norms.some((w) => FEE_WORDS.has(w));
}
