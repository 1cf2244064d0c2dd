import { formatAmount } from '../../lib/money.js';
import type { Lang } from './language.js';

/**
 * The activity list (list_activity) phrased in each language from its structured entries: the
 * tool's English summary and every other language's reply come from the same entries, so no
 * line is left in English because its text had a shape a translation did not expect (until
 * h13fix the English summary was rewritten with regular expressions, and any other line stayed
 * English). Amounts, dates, names and references are carried over verbatim.
 */
export interface ActivityEntry {
  kind: 'transfer' | 'bill' | 'stake' | 'payment';
  id: string;
  /** ISO 8601. */
  at: string;
  /** The record's own status, as its module names it. */
  status: string;
  /** Money that left the account, or came into it. */
  direction: 'out' | 'in';
  /** Exact decimal text, no grouping ("5000.00", "10.5"); `currency` its code (USDC for the stablecoin). */
  amount: string;
  currency: string;
  /** Who the money went to or came from (a label, a masked phone, a biller), when known. */
  counterparty?: string;
  /** A transfer made by claim link (docs/claims.md). */
  claim_link?: boolean;
  /** What it was for: the bill's account number, the stake's outcome, the payment link's description. */
  reference?: string;
  /** The entry in English (older clients read it). */
  text: string;
}

/** What the phrasing reads of an entry. */
export type PhrasedEntry = Omit<ActivityEntry, 'id' | 'text'>;

type Texts = Readonly<Record<Lang, string>>;

const HEAD: Texts = { en: 'Your recent activity:', pcm: 'Wetin you don do recently:', sw: 'Shughuli zako za karibuni:', fr: 'Vos opérations récentes :', pt: 'Suas movimentações recentes:', es: 'Tus movimientos recientes:', hi: 'Aapki haal ki activity:', tl: 'Mga huling transaksyon mo:' };
const NONE: Texts = { en: 'You have no activity yet.', pcm: 'You never do anything yet.', sw: 'Bado huna shughuli yoyote.', fr: "Vous n'avez encore aucune opération.", pt: 'Você ainda não tem movimentações.', es: 'Todavía no tienes movimientos.', hi: 'Abhi tak koi activity nahi hai.', tl: 'Wala ka pang transaksyon.' };

/** One template per shape of entry: {a} the amount, {c} the counterparty, {r} the reference. */
const SHAPES = {
  sentByLink: { en: 'Sent {a} to {c} by claim link', pcm: 'You send {a} give {c} through claim link', sw: 'Ulituma {a} kwa {c} kwa kiungo cha kudai', fr: 'Envoyé {a} à {c} par lien de retrait', pt: 'Enviado {a} para {c} por link de resgate', es: 'Enviaste {a} a {c} por link de cobro', hi: '{c} ko {a} claim link se bheje', tl: 'Nagpadala ng {a} kay {c} sa claim link' },
  receivedByLink: { en: 'Received {a} from {c} (claim link)', pcm: 'You collect {a} from {c} (claim link)', sw: 'Ulipokea {a} kutoka kwa {c} (kiungo cha kudai)', fr: 'Reçu {a} de {c} (lien de retrait)', pt: 'Recebido {a} de {c} (link de resgate)', es: 'Recibiste {a} de {c} (link de cobro)', hi: '{c} se {a} mile (claim link)', tl: 'Natanggap ang {a} mula kay {c} (claim link)' },
  sent: { en: 'Sent {a} to {c}', pcm: 'You send {a} give {c}', sw: 'Ulituma {a} kwa {c}', fr: 'Envoyé {a} à {c}', pt: 'Enviado {a} para {c}', es: 'Enviaste {a} a {c}', hi: '{c} ko {a} bheje', tl: 'Nagpadala ng {a} kay {c}' },
  receivedFrom: { en: 'Received {a} from {c}', pcm: 'You collect {a} from {c}', sw: 'Ulipokea {a} kutoka kwa {c}', fr: 'Reçu {a} de {c}', pt: 'Recebido {a} de {c}', es: 'Recibiste {a} de {c}', hi: '{c} se {a} mile', tl: 'Natanggap ang {a} mula kay {c}' },
  received: { en: 'Received {a}', pcm: 'You collect {a}', sw: 'Ulipokea {a}', fr: 'Reçu {a}', pt: 'Recebido {a}', es: 'Recibiste {a}', hi: '{a} mile', tl: 'Natanggap ang {a}' },
  bill: { en: 'Paid {a} to {c} ({r})', pcm: 'You pay {a} give {c} ({r})', sw: 'Ulilipa {a} kwa {c} ({r})', fr: 'Payé {a} à {c} ({r})', pt: 'Pago {a} para {c} ({r})', es: 'Pagaste {a} a {c} ({r})', hi: '{c} ko {a} bhare ({r})', tl: 'Nagbayad ng {a} sa {c} ({r})' },
  stake: { en: 'Staked {a} on "{r}"', pcm: 'You stake {a} for "{r}"', sw: 'Uliweka dau la {a} kwa "{r}"', fr: 'Misé {a} sur "{r}"', pt: 'Apostado {a} em "{r}"', es: 'Apostaste {a} a "{r}"', hi: '"{r}" pe {a} lagaye', tl: 'Tumaya ng {a} sa "{r}"' },
  link: { en: 'Payment link {a}', pcm: 'Link wey you take collect {a}', sw: 'Kiungo cha malipo {a}', fr: 'Lien de paiement {a}', pt: 'Link de pagamento {a}', es: 'Link de pago {a}', hi: '{a} ka bhugtaan link', tl: 'Link ng bayad na {a}' },
  linkFor: { en: 'Payment link {a} ({r})', pcm: 'Link wey you take collect {a} ({r})', sw: 'Kiungo cha malipo {a} ({r})', fr: 'Lien de paiement {a} ({r})', pt: 'Link de pagamento {a} ({r})', es: 'Link de pago {a} ({r})', hi: '{a} ka bhugtaan link ({r})', tl: 'Link ng bayad na {a} ({r})' },
} as const satisfies Record<string, Texts>;
export type ActivityShape = keyof typeof SHAPES;

const IN_PROGRESS: Texts = { en: 'in progress', pcm: 'e dey go', sw: 'inashughulikiwa', fr: 'en cours', pt: 'em andamento', es: 'en curso', hi: 'chal raha hai', tl: 'isinasagawa' };
const CANCELED: Texts = { en: 'canceled', pcm: 'dem don cancel am', sw: 'imeghairiwa', fr: 'annulé', pt: 'cancelado', es: 'cancelado', hi: 'cancel hua', tl: 'kinansela' };
/** Every status the listed modules give their records (transfers, claim links, bills, stakes, payments). */
export const ACTIVITY_STATUS: Readonly<Record<string, Texts>> = {
  quoted: { en: 'quoted', pcm: 'na only quote', sw: 'bei tu', fr: 'devis seulement', pt: 'só cotado', es: 'solo cotizado', hi: 'sirf quote', tl: 'quote lang' },
  submitted: IN_PROGRESS,
  processing: IN_PROGRESS,
  settled: { en: 'settled', pcm: 'e don land', sw: 'imekamilika', fr: 'réglé', pt: 'concluído', es: 'completado', hi: 'pura hua', tl: 'tapos na' },
  completed: { en: 'completed', pcm: 'e don complete', sw: 'imekamilika', fr: 'terminé', pt: 'concluído', es: 'completado', hi: 'pura hua', tl: 'tapos na' },
  paid: { en: 'paid', pcm: 'e don pay', sw: 'imelipwa', fr: 'payé', pt: 'pago', es: 'pagado', hi: 'bhar diya', tl: 'bayad na' },
  pending: { en: 'pending', pcm: 'e still dey process', sw: 'inasubiri', fr: 'en attente', pt: 'pendente', es: 'pendiente', hi: 'baaki hai', tl: 'naghihintay pa' },
  failed: { en: 'failed', pcm: 'e fail', sw: 'imeshindwa', fr: 'échoué', pt: 'falhou', es: 'falló', hi: 'fail hua', tl: 'pumalya' },
  expired: { en: 'expired', pcm: 'e don expire', sw: 'imeisha muda', fr: 'expiré', pt: 'expirado', es: 'vencido', hi: 'expire hua', tl: 'nag-expire na' },
  funding: { en: 'funding', pcm: 'dem dey put money inside', sw: 'inawekewa pesa', fr: 'approvisionnement en cours', pt: 'recebendo fundos', es: 'recibiendo fondos', hi: 'paise daale ja rahe hain', tl: 'nilalagyan ng pondo' },
  open: { en: 'open', pcm: 'dem never collect am', sw: 'wazi', fr: 'ouvert', pt: 'aberto', es: 'abierto', hi: 'khula hai', tl: 'bukas' },
  claiming: { en: 'claiming', pcm: 'dem dey collect am', sw: 'inadaiwa sasa', fr: 'retrait en cours', pt: 'resgate em andamento', es: 'cobro en curso', hi: 'claim ho raha hai', tl: 'kine-claim' },
  claimed: { en: 'claimed', pcm: 'dem don collect am', sw: 'imedaiwa', fr: 'retiré', pt: 'resgatado', es: 'cobrado', hi: 'claim hua', tl: 'na-claim na' },
  returning: { en: 'returning', pcm: 'e dey come back', sw: 'inarudi', fr: 'retour en cours', pt: 'voltando', es: 'volviendo', hi: 'wapas aa raha hai', tl: 'bumabalik' },
  canceled: CANCELED,
  cancelled: CANCELED,
  refunding: { en: 'refunding', pcm: 'dem dey refund am', sw: 'inarejeshwa', fr: 'remboursement en cours', pt: 'reembolsando', es: 'reembolsándose', hi: 'refund ho raha hai', tl: 'nire-refund' },
  refunded: { en: 'refunded', pcm: 'dem don refund am', sw: 'imerudishwa', fr: 'remboursé', pt: 'reembolsado', es: 'reembolsado', hi: 'refund hua', tl: 'na-refund' },
  authorized: { en: 'authorized', pcm: 'dem don approve am', sw: 'imeidhinishwa', fr: 'autorisé', pt: 'autorizado', es: 'autorizado', hi: 'manzoor hua', tl: 'aprubado' },
  captured: { en: 'captured', pcm: 'dem don collect the money', sw: 'imechukuliwa', fr: 'encaissé', pt: 'capturado', es: 'capturado', hi: 'le liya gaya', tl: 'nakuha na' },
  voided: { en: 'voided', pcm: 'dem don void am', sw: 'imebatilishwa', fr: 'invalidé', pt: 'anulado', es: 'anulado', hi: 'radd hua', tl: 'pinawalang-bisa' },
};

/** The template an entry is phrased with. */
export function shapeOf(e: PhrasedEntry): ActivityShape {
  if (e.kind === 'bill') return 'bill';
  if (e.kind === 'stake') return 'stake';
  if (e.kind === 'payment') return e.reference ? 'linkFor' : 'link';
  if (e.direction === 'out') return e.claim_link ? 'sentByLink' : 'sent';
  if (e.claim_link) return 'receivedByLink';
  return e.counterparty ? 'receivedFrom' : 'received';
}

/** "5,000.00 KES": the amount as every reply shows it (grouped; the decimals as the entry has them). */
export const shownAmount = (e: Pick<ActivityEntry, 'amount' | 'currency'>): string => formatAmount(e.amount, e.currency, 0);

/** One entry, without its date and status, in `lang`. */
export function entryText(e: PhrasedEntry, lang: Lang): string {
  const v: Record<string, string> = { a: shownAmount(e), c: e.counterparty ?? '', r: e.reference ?? '' };
  return SHAPES[shapeOf(e)][lang].replace(/\{(\w)\}/g, (_, k: string) => v[k] ?? '');
}

/** A status in `lang`; one no module gives yet is shown as the service wrote it. */
export const statusText = (status: string, lang: Lang): string => ACTIVITY_STATUS[status]?.[lang] ?? status;

/** The whole list in `lang`, newest first as given. */
export function activityText(entries: readonly PhrasedEntry[], lang: Lang): string {
  if (!entries.length) return NONE[lang];
  return [HEAD[lang], ...entries.map((e) => `• ${e.at.slice(0, 10)} ${entryText(e, lang)} — ${statusText(e.status, lang)}`)].join('\n');
}
