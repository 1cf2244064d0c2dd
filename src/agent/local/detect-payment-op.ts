import { analyse, type Analysis, type ParseContext } from './analysis.js';
import type { DraftCall } from './draft.js';
import { check } from './gate.js';
import { fold } from './lexicon-i18n.js';
import type { Lang } from './language.js';
import { quotedIndices } from './reading.js';
import { QUOTED_INSTRUCTION } from './replies-held.js';
import { gateReply } from './replies-i18n.js';

/**
 * The merchant's own payments, by id (docs/local-engine.md "Refund, capture, void"): "refund
 * pay_abc123", "refund 5 USDC of payment pay_abc123, customer returned it", "capture 0.75 of
 * pay_x", "void the hold on pay_x", "release the authorization on pay_x", and common forms in the
 * other seven languages. Its own complete reading (rule 1 of docs/agent.md): the verb, exactly one
 * payment id in the person's own words, at most one amount, the words of its small closed list,
 * the fillers, and for a refund a reason after a comma or a reason word (data, never read as an
 * instruction). Anything left over holds the call for confirmation; an id inside quoted text is
 * refused; two ids or none are asked about.
 */

export type PaymentOp = 'refund_payment' | 'capture_payment' | 'void_payment';
type Op = PaymentOp;

/** Verbs, folded lower-case, every language together ("i-refund" is "irefund": hyphens drop). */
const VERBS: Readonly<Record<Op, ReadonlySet<string>>> = {
  refund_payment: new Set([
    'refund', 'reimburse', 'irefund', 'parefund', // en, pcm, tl ("pa-refund": the request form)
    'rembourse', 'rembourser', 'remboursez', 'remboursea', // fr
    'reembolsa', 'reembolsar', 'reembolse', 'reembolses', 'devuelvas', 'devuelve', 'devolver', 'devuelvele', // es
    'estorna', 'estornar', 'estorne', 'devolva', 'devolve', 'devolver', // pt
    'rudisha', 'rejesha', 'mrudishie', 'mrejeshee', // sw
    'wapas', // hi ("paise wapas karo")
    'ibalik', 'isauli', // tl
  ]),
  capture_payment: new Set(['capture', 'icapture', 'pacapture', 'capturer', 'capturez', 'captura', 'capturar', 'capture', 'encaisse', 'encaisser', 'cobra', 'cobrar']),
  void_payment: new Set(['void', 'ivoid', 'pavoid', 'release', 'irelease', 'annule', 'annuler', 'libere', 'liberer', 'anula', 'anular', 'libera', 'liberar', 'achilia', 'ondoa']),
};

/** Words that only tie the sentence together, every language (the payment, its hold, articles, "karo"). */
const TIES = new Set([
  // en, pcm
  'the', 'a', 'of', 'on', 'for', 'from', 'payment', 'pay', 'hold', 'held', 'authorization', 'authorisation', 'auth', 'amount', 'funds', 'money',
  'it', 'this', 'that', 'order', 'full', 'fully', 'all', 'entire', 'whole', 'back', 'refund', 'in', 'make', 'una', 'di', 'dey', 'everything', 'its', 'id',
  // fr
  'le', 'la', 'l', 'les', 'du', 'de', 'des', 'paiement', 'sur', 'montant', 'lautorisation', 'autorisation', 'blocage', 'fonds', 'tout', 'totalement', 'en', 'entier',
  // es, pt
  'el', 'los', 'las', 'del', 'pago', 'autorizacion', 'retencion', 'monto', 'todo', 'o', 'os', 'do', 'da', 'pagamento', 'autorizacao', 'bloqueio', 'valor', 'no', 'na',
  // sw
  'malipo', 'ya', 'kwa', 'pesa', 'yote', 'kiasi', 'hela', 'kushikiliwa', 'zilizoshikiliwa',
  // hi
  'ka', 'ki', 'ke', 'karo', 'kar', 'do', 'kardo', 'karna', 'dijiye', 'kijiye', 'kariye', 'poora', 'pura', 'paise', 'paisa', 'hold', 'se',
  // tl
  'ang', 'sa', 'ng', 'yung', 'bayad', 'lahat', 'nang', 'mo', 'na',
]);

/** The one who paid: placed only right before the payment's id ("le client de pay_x"). */
const PAYERS = new Set(['customer', 'client', 'cliente', 'clienta', 'mteja', 'grahak', 'buyer', 'kustomer', 'comprador', 'compradora', 'acheteur']);

/** A refund's reason starts at one of these (or after a comma): what follows is the reason, as data. */
const REASON_WORDS = new Set(['because', 'since', 'reason', 'cause', 'car', 'raison', 'motif', 'porque', 'motivo', 'razon', 'sababu', 'kyunki', 'kyuki', 'kyonki', 'kasi', 'dahil', 'sake', 'pq', 'porq', 'coz', 'cuz', 'bcoz', 'bcos', 'bc']);

/** Negations in the command part, every language ("no" only right before the verb: it is also Portuguese "in the"). */
const NEGATIONS = new Set(['not', 'dont', 'never', 'pas', 'jamais', 'nao', 'nunca', 'mat', 'nahi', 'nahin', 'huwag', 'wag', 'usi', 'sitaki']);

/** Gate verdicts that mean the message is not an instruction for now (the rest do not apply to these tools). */
const NOT_NOW = new Set(['question', 'conditional', 'reported_speech', 'past_tense', 'scheduled', 'repeated', 'correction', 'alternative_amounts', 'statement']);

const HOLD_WORDS = new Set(['hold', 'authorization', 'authorisation', 'auth', 'lautorisation', 'autorisation', 'autorizacion', 'autorizacao', 'bloqueio', 'retencion', 'blocage']);
const CANCEL_WORDS = new Set(['cancel', 'cancela', 'cancelar', 'annule', 'annuler', 'futa']);

const HARMLESS = new Set([',', '.', '!', ':', ';', '-', '–', '—', '…']);

const PAYMENT_ID = /^pay_[0-9a-z]+$/i;

export type PaymentOpResult =
  | { kind: 'tool'; call: DraftCall; hold?: string[] }
  | { kind: 'none'; reply: string; reason?: string }
  | { kind: 'refuse'; reply: string; reason: string };

const WHICH_PAYMENT: Readonly<Record<Lang, string>> = {
  en: 'Which payment? Write its id (pay_...), e.g. "refund pay_8fK2...".',
  pcm: 'Which payment? Write the id (pay_...), like "refund pay_8fK2...".',
  sw: 'Malipo yapi? Andika namba yake (pay_...), mfano "rudisha pay_8fK2...".',
  fr: 'Quel paiement ? Écrivez son identifiant (pay_...), par ex. « rembourse pay_8fK2... ».',
  pt: 'Qual pagamento? Escreva o id (pay_...), por ex. "estorna pay_8fK2...".',
  es: '¿Qué pago? Escribe su id (pay_...), p. ej. "reembolsa pay_8fK2...".',
  hi: 'Kaunsa payment? Uska id likhiye (pay_...), jaise "pay_8fK2... refund karo".',
  tl: 'Aling payment? Isulat ang id (pay_...), hal. "i-refund ang pay_8fK2...".',
};

function opAt(word: string): Op | undefined {
  for (const op of Object.keys(VERBS) as Op[]) if (VERBS[op].has(word)) return op;
  return undefined;
}

/**
 * A refund, capture or void of the caller's payment, or undefined when the message is not one.
 * `only`: the one operation asked about (each of the three tools detects its own; the verb
 * decides which one a message is, so at most one of them answers).
 */
export function detectPaymentOp(a: Analysis, ctx: ParseContext, only?: Op): PaymentOpResult | undefined {
  const t = a.tokens;
  const norms = t.map((x) => fold(x.norm));
  const verbs = norms.map((w, i) => (t[i]!.kind === 'word' ? opAt(w) : undefined));
  const holdWord = norms.some((w) => HOLD_WORDS.has(w));
  const cancelAt = holdWord ? norms.findIndex((w) => CANCEL_WORDS.has(w)) : -1;
  // "cancel the hold / the authorization on pay_x" is a void.
  const found = verbs.findIndex((v) => v !== undefined);
  const verbAt = found >= 0 ? found : cancelAt;
  if (cancelAt >= 0 && found < 0) verbs[cancelAt] = 'void_payment';
  const ids = t.map((x, i) => ({ x, i })).filter(({ x }) => x.kind === 'word' && PAYMENT_ID.test(x.text));
  if (verbAt < 0) return undefined;
  const op = verbs[verbAt]!;
  if (only && op !== only) return undefined;
  // "release" / "cancel" / "annule" with no hold word and no payment id is someone else's intent.
  if (!ids.length) {
    const first = t.findIndex((x, i) => x.kind === 'word' && !a.fillers.has(i));
    // Only a request that opens with the verb is asked about ("refund my last payment").
    return first === verbAt && (op === 'refund_payment' || norms.includes('payment') || norms.includes('hold')) ? { kind: 'none', reply: WHICH_PAYMENT[a.lang] } : undefined;
  }
  if (t.some((x) => x.kind === 'mention' || x.kind === 'phone' || x.kind === 'market_id' || x.kind === 'email')) return undefined;
  if (new Set(ids.map(({ x }) => x.text)).size > 1) return { kind: 'none', reply: WHICH_PAYMENT[a.lang] };
  const id = ids[0]!;
  const quoted = quotedIndices(a);
  if (quoted.has(id.i)) return { kind: 'refuse', reply: QUOTED_INSTRUCTION[a.lang], reason: 'quoted_instruction' };

  const placed = new Set<number>([...a.fillers, id.i, verbAt]);

  // A refund's reason: after a reason word, or after the first comma past the verb and the id.
  let reasonFrom = -1;
  if (op === 'refund_payment') {
    const after = Math.max(verbAt, id.i);
    for (let i = after + 1; i < t.length; i++) {
      // Portuguese/Spanish "que" right after the id opens its reason ("devolve pay_x que o cliente desistiu").
      const opens = REASON_WORDS.has(norms[i]!) || (norms[i] === 'que' && i === id.i + 1 && i + 1 < t.length);
      if (opens || (t[i]!.text === ',' && i + 1 < t.length) || (t[i]!.text === '-' && i + 1 < t.length)) {
        reasonFrom = opens ? i : i + 1;
        break;
      }
    }
  }
  const end = reasonFrom >= 0 ? reasonFrom : t.length;
  const money = a.money.filter((m) => !m.negative && m.first < end);
  const mention = money.length === 1 ? money[0] : undefined;
  if (mention) for (let i = mention.first; i < mention.end; i++) placed.add(i);
  const leftover: string[] = [];
  for (let i = 0; i < end; i++) {
    if (placed.has(i)) continue;
    const x = t[i]!;
    if (x.kind === 'punct' && HARMLESS.has(x.text)) continue;
    if (x.kind === 'word' && (TIES.has(norms[i]!) || verbs[i] === op)) continue;
    // "rembourse le client de pay_x", "refund the customer for pay_x": who paid the payment named, right before its id.
    if (x.kind === 'word' && PAYERS.has(norms[i]!) && i < id.i && t.slice(i + 1, id.i).every((y, k) => TIES.has(norms[i + 1 + k]!) || y.kind === 'punct')) continue;
    leftover.push(x.text);
  }
  // A second amount, a void with an amount, or anything else unplaced: held below.
  if (money.length > 1 || (op === 'void_payment' && money.length)) for (const m of money) leftover.push(t[m.index]!.text);
  // An amount in a reason is the reason's ("customer returned 2 of 3"), but a quote or a second id is not.
  const reasonText = reasonFrom >= 0 ? a.text.slice(t[reasonFrom]!.start).replace(/^(because|since|reason|cause|car|raison|motif|porque|motivo|razon|razón|sababu|kyunki|kyuki|kyonki|kasi|dahil|sake)\b[:\s]*/i, '').trim() : '';

  // The command part must be an instruction for now (not "did you refund…?", "if they return it…").
  const command = reasonFrom >= 0 ? a.text.slice(0, t[reasonFrom]!.start) : a.text;
  if (norms.some((w, i) => i < end && (NEGATIONS.has(w) || (w === 'no' && i + 1 === verbAt)))) return { kind: 'none', reply: gateReply('negation', a.lang), reason: 'negation' };
  if (t.some((x, i) => i < end && x.text === '?')) return { kind: 'none', reply: gateReply('question', a.lang), reason: 'question' };
  const v = check(analyse(command, ctx), { intent: op });
  if (v && NOT_NOW.has(v.reason)) return { kind: 'none', reply: gateReply(v.reason, a.lang, v.quoted), reason: v.reason };
  // "refund half of pay_x", "refund 50% of pay_x": the share is the merchant's to compute, never the whole refunded.
  if (v?.reason === 'malformed_amount') return { kind: 'refuse', reply: gateReply(v.reason, a.lang, v.quoted), reason: 'invalid_amount' };

  const input: Record<string, unknown> = { payment_id: id.x.text };
  if (mention && op !== 'void_payment') {
    input.amount = mention.amount;
    if (mention.currency) input.currency = mention.currency;
  }
  if (op === 'refund_payment' && reasonText) input.reason = reasonText.slice(0, 300);
  const call: DraftCall = { name: op, input };
  return leftover.length ? { kind: 'tool', call, hold: leftover } : { kind: 'tool', call };
}
