import type { Lang } from './language.js';

/**
 * Replies to the read-only tools (balance, quote) in the message's language, whole: never
 * opening with a word that means "done" (nothing was done), and carrying the tool's own
 * figures exactly as its summary states them. When a summary does not have the shape these
 * read it in, the tool's own summary is used unchanged.
 */

type Texts = Readonly<Record<Lang, string>>;

const BALANCE: Texts = {
  en: 'Your balance is {usdc}{local}.',
  pcm: 'Your balance na {usdc}{local}.',
  sw: 'Salio lako ni {usdc}{local}.',
  fr: 'Votre solde est de {usdc}{local}.',
  pt: 'Seu saldo é {usdc}{local}.',
  es: 'Tu saldo es {usdc}{local}.',
  hi: 'Aapka balance {usdc}{local} hai.',
  tl: 'Ang balance mo ay {usdc}{local}.',
};
const LOCAL_AT: Texts = { en: ' ({amt} at {rate})', pcm: ' ({amt} for {rate})', sw: ' ({amt} kwa {rate})', fr: ' ({amt} au taux de {rate})', pt: ' ({amt} à taxa de {rate})', es: ' ({amt} a {rate})', hi: ' ({amt}, rate {rate})', tl: ' ({amt} sa rate na {rate})' };

const QUOTE: Texts = {
  en: 'Quote, nothing sent: {sent} to {to} arrives as {got}{rate}{fee}.',
  pcm: 'Na quote be this, I no send anything: {sent} to {to} go land as {got}{rate}{fee}.',
  sw: 'Bei tu, hakuna kilichotumwa: {sent} kwa {to} itafika kama {got}{rate}{fee}.',
  fr: "Devis, rien n'a été envoyé : {sent} vers {to} arrive en {got}{rate}{fee}.",
  pt: 'Cotação, nada foi enviado: {sent} para {to} chega como {got}{rate}{fee}.',
  es: 'Cotización, no se envió nada: {sent} a {to} llega como {got}{rate}{fee}.',
  hi: 'Sirf quote, kuch nahi bheja: {sent} {to} ko {got} pahunchega{rate}{fee}.',
  tl: 'Quote lang, walang naipadala: ang {sent} papunta sa {to} ay darating bilang {got}{rate}{fee}.',
};
const RATE: Texts = { en: ' at {r}', pcm: ' for rate {r}', sw: ' kwa kiwango {r}', fr: ' au taux {r}', pt: ' à taxa {r}', es: ' a una tasa de {r}', hi: ', rate {r}', tl: ' sa rate na {r}' };
const FEE: Texts = {
  en: '; fee {fee} (total {total} from your wallet)',
  pcm: '; fee na {fee} (total {total} from your wallet)',
  sw: '; ada {fee} (jumla {total} kutoka pochi yako)',
  fr: ' ; frais {fee} (total {total} depuis votre portefeuille)',
  pt: '; tarifa {fee} (total {total} da sua carteira)',
  es: '; comisión {fee} (total {total} de tu cartera)',
  hi: '; fee {fee} (kul {total} aapke wallet se)',
  tl: '; bayad {fee} (kabuuang {total} mula sa wallet mo)',
};
const NO_FEE: Texts = { en: '; no fee', pcm: '; no fee', sw: '; bila ada', fr: ' ; sans frais', pt: '; sem tarifa', es: '; sin comisión', hi: '; koi fee nahi', tl: '; walang bayad' };

export const FIRM: Texts = {
  en: ' Held until {until} UTC (quote {id}).',
  pcm: ' This price go hold reach {until} UTC (quote {id}).',
  sw: ' Bei hii inashikiliwa hadi {until} UTC (quote {id}).',
  fr: ' Ce prix est garanti jusqu’à {until} UTC (devis {id}).',
  pt: ' Valores garantidos até {until} UTC (cotação {id}).',
  es: ' Precio garantizado hasta las {until} UTC (cotización {id}).',
  hi: ' Yeh rate {until} UTC tak pakka hai (quote {id}).',
  tl: ' Hawak ang presyong ito hanggang {until} UTC (quote {id}).',
};

/** The activity list (list_activity's summary), line by line: each kind of entry, and its status. */
const ACTIVITY_HEAD: Texts = { en: 'Your recent activity:', pcm: 'Wetin you don do recently:', sw: 'Shughuli zako za karibuni:', fr: 'Vos opérations récentes :', pt: 'Suas movimentações recentes:', es: 'Tus movimientos recientes:', hi: 'Aapki haal ki activity:', tl: 'Mga huling transaksyon mo:' };
const ACTIVITY_NONE: Texts = { en: 'You have no activity yet.', pcm: 'You never do anything yet.', sw: 'Bado huna shughuli yoyote.', fr: "Vous n'avez encore aucune opération.", pt: 'Você ainda não tem movimentações.', es: 'Todavía no tienes movimientos.', hi: 'Abhi tak koi activity nahi hai.', tl: 'Wala ka pang transaksyon.' };
/** Entry shapes (src/agent/tools/list-activity.ts), in order: the first that matches a line's text is used. */
const ENTRIES: ReadonlyArray<[RegExp, Texts]> = [
  [/^Sent (.+?) to (.+) by claim link$/, { en: 'Sent {1} to {2} by claim link', pcm: 'You send {1} give {2} by claim link', sw: 'Ulituma {1} kwa {2} kwa kiungo cha kudai', fr: 'Envoyé {1} à {2} par lien de retrait', pt: 'Enviado {1} para {2} por link de resgate', es: 'Enviaste {1} a {2} por link de cobro', hi: '{2} ko {1} claim link se bheje', tl: 'Nagpadala ng {1} kay {2} sa claim link' }],
  [/^Received (.+?) from (.+) \(claim link\)$/, { en: 'Received {1} from {2} (claim link)', pcm: 'You collect {1} from {2} (claim link)', sw: 'Ulipokea {1} kutoka kwa {2} (kiungo cha kudai)', fr: 'Reçu {1} de {2} (lien de retrait)', pt: 'Recebido {1} de {2} (link de resgate)', es: 'Recibiste {1} de {2} (link de cobro)', hi: '{2} se {1} mile (claim link)', tl: 'Natanggap ang {1} mula kay {2} (claim link)' }],
  [/^Sent (.+?) to (.+)$/, { en: 'Sent {1} to {2}', pcm: 'You send {1} give {2}', sw: 'Ulituma {1} kwa {2}', fr: 'Envoyé {1} à {2}', pt: 'Enviado {1} para {2}', es: 'Enviaste {1} a {2}', hi: '{2} ko {1} bheje', tl: 'Nagpadala ng {1} kay {2}' }],
  [/^Received (.+)$/, { en: 'Received {1}', pcm: 'You collect {1}', sw: 'Ulipokea {1}', fr: 'Reçu {1}', pt: 'Recebido {1}', es: 'Recibiste {1}', hi: '{1} mile', tl: 'Natanggap ang {1}' }],
  [/^Paid (.+?) to (.+)$/, { en: 'Paid {1} to {2}', pcm: 'You pay {1} give {2}', sw: 'Ulilipa {1} kwa {2}', fr: 'Payé {1} à {2}', pt: 'Pago {1} para {2}', es: 'Pagaste {1} a {2}', hi: '{2} ko {1} bhare', tl: 'Nagbayad ng {1} sa {2}' }],
  [/^Staked (.+?) on (".+")$/, { en: 'Staked {1} on {2}', pcm: 'You stake {1} for {2}', sw: 'Uliweka dau la {1} kwa {2}', fr: 'Misé {1} sur {2}', pt: 'Apostado {1} em {2}', es: 'Apostaste {1} a {2}', hi: '{2} pe {1} lagaye', tl: 'Tumaya ng {1} sa {2}' }],
  [/^Payment link (.+)$/, { en: 'Payment link {1}', pcm: 'Payment link {1}', sw: 'Kiungo cha malipo {1}', fr: 'Lien de paiement {1}', pt: 'Link de pagamento {1}', es: 'Link de pago {1}', hi: 'Payment link {1}', tl: 'Payment link {1}' }],
];
/** Status words of the entries; a status not here is shown as the service wrote it. */
const STATUS: Readonly<Record<string, Texts>> = {
  settled: { en: 'settled', pcm: 'e don land', sw: 'imekamilika', fr: 'réglé', pt: 'concluído', es: 'completado', hi: 'pura hua', tl: 'tapos na' },
  completed: { en: 'completed', pcm: 'e don complete', sw: 'imekamilika', fr: 'terminé', pt: 'concluído', es: 'completado', hi: 'pura hua', tl: 'tapos na' },
  paid: { en: 'paid', pcm: 'e don pay', sw: 'imelipwa', fr: 'payé', pt: 'pago', es: 'pagado', hi: 'paid', tl: 'bayad na' },
  pending: { en: 'pending', pcm: 'e still dey process', sw: 'inasubiri', fr: 'en attente', pt: 'pendente', es: 'pendiente', hi: 'pending', tl: 'pending pa' },
  failed: { en: 'failed', pcm: 'e fail', sw: 'imeshindwa', fr: 'échoué', pt: 'falhou', es: 'falló', hi: 'fail hua', tl: 'pumalya' },
  open: { en: 'open', pcm: 'e dey open', sw: 'wazi', fr: 'ouvert', pt: 'aberto', es: 'abierto', hi: 'khula hai', tl: 'bukas' },
  claimed: { en: 'claimed', pcm: 'dem don collect am', sw: 'imedaiwa', fr: 'retiré', pt: 'resgatado', es: 'cobrado', hi: 'claim hua', tl: 'na-claim na' },
  expired: { en: 'expired', pcm: 'e don expire', sw: 'imeisha muda', fr: 'expiré', pt: 'expirado', es: 'vencido', hi: 'expire hua', tl: 'expired na' },
  refunded: { en: 'refunded', pcm: 'dem don refund am', sw: 'imerudishwa', fr: 'remboursé', pt: 'reembolsado', es: 'reembolsado', hi: 'refund hua', tl: 'na-refund' },
};

/** list_activity's summary in `lang`, or undefined when a line has a shape not known here. */
function activityReply(summary: string, lang: Lang): string | undefined {
  if (summary === 'You have no activity yet.') return ACTIVITY_NONE[lang];
  const [head, ...lines] = summary.split('\n');
  if (head !== 'Your recent activity:') return undefined;
  const out = [ACTIVITY_HEAD[lang]];
  for (const line of lines) {
    const m = /^• (\S+) (.+) — (\S+)$/.exec(line);
    if (!m) return undefined;
    const text = m[2]!;
    const shape = ENTRIES.find(([re]) => re.test(text));
    if (!shape) return undefined;
    const parts = shape[0].exec(text)!;
    const entry = shape[1][lang].replace(/\{(\d)\}/g, (_, k: string) => parts[Number(k)] ?? '');
    out.push(`• ${m[1]} ${entry} — ${STATUS[m[3]!]?.[lang] ?? m[3]}`);
  }
  return out.join('\n');
}

const fill = (t: string, v: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');

/** The reply for a read-only tool's summary in `lang`, or undefined to keep the tool's own. */
export function readReply(tool: string, summary: string, lang: Lang): string | undefined {
  if (tool === 'get_balance') {
    const m = /^Your balance is (.+?)(?: \((.+) at (.+)\))?\.$/.exec(summary);
    if (!m) return undefined;
    return fill(BALANCE[lang], { usdc: m[1]!, local: m[2] ? fill(LOCAL_AT[lang], { amt: m[2], rate: m[3]! }) : '' });
  }
  if (tool === 'quote_transfer') {
    const m = /^Quote \(nothing sent\): (.+?) to (.+?) arrives as (.+?)(?: at (1 \S+ = \S+ \S+))?(?:; fee (.+?) \(total (.+?) from your wallet\)|; no fee)\.(?: Held until (\d\d:\d\d:\d\d) UTC \(quote (\S+)\)\.)?$/.exec(summary);
    if (!m) return undefined;
    const fee = m[5] ? fill(FEE[lang], { fee: m[5], total: m[6]! }) : NO_FEE[lang];
    // A firm quote: its figures are held until a time, under its id (src/quotes).
    const firm = m[7] ? fill(FIRM[lang], { until: m[7], id: m[8]! }) : '';
    return fill(QUOTE[lang], { sent: m[1]!, to: m[2]!, got: m[3]!, rate: m[4] ? fill(RATE[lang], { r: m[4] }) : '', fee }) + firm;
  }
  if (tool === 'list_activity') return activityReply(summary, lang);
  return undefined;
}
