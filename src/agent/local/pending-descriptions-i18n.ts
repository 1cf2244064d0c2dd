import { parseUnits } from 'viem';
import { formatUsdc, STABLECOIN_DECIMALS } from '../../lib/money.js';
import { accountLabel } from './account-labels-i18n.js';
import type { Lang } from './language.js';
import { FIRM } from './replies-read.js';

/**
 * A held action's description (the preview's "Send 500.00 KES to @amina: …") in the message's
 * language, built from the preview's own `details` (the same figures, formatted by the tool:
 * `amount_text`, `recipient_amount_text`, `rate_text`, the USDC decimals, the quote's id and
 * expiry). Undefined for English (the tool's own sentence is kept) and when the details lack a
 * field a template needs: then the English description stays, never a half-translated one.
 */

type Tr = Readonly<Record<Exclude<Lang, 'en'>, string>>;
type Rec = Record<string, unknown>;

const fill = (t: string, v: Record<string, string>): string => t.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

function pick<K extends string>(r: Rec, keys: readonly K[]): Record<K, string> | undefined {
  const out = {} as Record<K, string>;
  for (const k of keys) {
    const v = str(r[k]);
    if (v === undefined) return undefined;
    out[k] = v;
  }
  return out;
}

/** "3.850000" (a USDC decimal from the details) as the tool writes it ("3.85 USDC"). */
const usdc = (decimal: string): string => formatUsdc(parseUnits(decimal, STABLECOIN_DECIMALS));

const TRANSFER: Tr = {
  pcm: 'Send {sent} give {to}: dem go receive {received}. {onchain} go move on-chain{rate}{fee}.',
  sw: 'Tuma {sent} kwa {to}: atapokea {received}. {onchain} zitahamishwa kwenye blockchain{rate}{fee}.',
  fr: 'Envoyer {sent} à {to} : il ou elle reçoit {received}. {onchain} passent sur la blockchain{rate}{fee}.',
  pt: 'Enviar {sent} para {to}: recebe {received}. {onchain} vão pela blockchain{rate}{fee}.',
  es: 'Enviar {sent} a {to}: recibe {received}. {onchain} se mueven en la blockchain{rate}{fee}.',
  hi: '{to} ko {sent} bhejna: unhe {received} milenge. {onchain} on-chain jayenge{rate}{fee}.',
  tl: 'Ipadala ang {sent} kay {to}: matatanggap niya ang {received}. {onchain} ang lilipat on-chain{rate}{fee}.',
};
const RATE: Tr = { pcm: ' for rate {r}', sw: ' kwa kiwango cha {r}', fr: ' au taux de {r}', pt: ' à taxa de {r}', es: ' a una tasa de {r}', hi: ', rate {r}', tl: ' sa rate na {r}' };
const FEE: Tr = {
  pcm: ' plus {fee} charge (total {total})', sw: ' pamoja na ada ya {fee} (jumla {total})', fr: ' plus {fee} de frais (total {total})',
  pt: ' mais uma tarifa de {fee} (total {total})', es: ' más una comisión de {fee} (total {total})', hi: ' aur {fee} fee (kul {total})', tl: ' kasama ang singil na {fee} (kabuuan {total})',
};
const NO_FEE: Tr = { pcm: ', no charge', sw: ', bila ada', fr: ', sans frais', pt: ', sem tarifa', es: ', sin comisión', hi: ', koi fee nahi', tl: ', walang singil' };

const CLAIM: Tr = {
  pcm: 'Send {sent} give {to}, wey never get account: {onchain} plus {fee} charge (total {total}) go comot from your wallet enter claim wey dem go collect, and I go give you link to send dem. If dem no claim am on time (or you cancel), {onchain} go come back to you, but we go keep the {fee} charge.',
  sw: 'Tuma {sent} kwa {to}, ambaye bado hana akaunti: {onchain} pamoja na ada ya {fee} (jumla {total}) zinatoka kwenye pochi yako kwenda kwenye dai analoshikiliwa, na utapata kiungo cha kumtumia. Asipodai kwa wakati (au ukighairi), {onchain} zinarudi kwako na ada yetu ya {fee} inabaki kwetu.',
  fr: "Envoyer {sent} à {to}, qui n'a pas encore de compte : {onchain} plus {fee} de frais (total {total}) quittent votre portefeuille vers une réclamation gardée pour cette personne, et vous recevez un lien à lui envoyer. Si rien n'est réclamé à temps (ou si vous annulez), {onchain} vous reviennent et nos frais de {fee} sont conservés.",
  pt: 'Enviar {sent} para {to}, que ainda não tem conta: {onchain} mais uma tarifa de {fee} (total {total}) saem da sua carteira para um resgate guardado para a pessoa, e você recebe um link para mandar a ela. Se não for resgatado a tempo (ou se você cancelar), {onchain} voltam para você e a nossa tarifa de {fee} fica retida.',
  es: 'Enviar {sent} a {to}, que aún no tiene cuenta: {onchain} más una comisión de {fee} (total {total}) salen de tu cartera a un cobro reservado para esa persona, y recibes un enlace para mandárselo. Si no lo cobra a tiempo (o cancelas), te regresan {onchain} y nuestra comisión de {fee} se queda.',
  hi: '{to} ko {sent} bhejna, jinka abhi account nahi hai: {onchain} aur {fee} fee (kul {total}) aapke wallet se unke liye rakhe claim mein jayenge, aur aapko unhe bhejne ke liye link milega. Time par claim na ho (ya aap cancel karein) to {onchain} aapko wapas milenge, hamari {fee} fee nahi lautegi.',
  tl: 'Ipadala ang {sent} kay {to}, na wala pang account: {onchain} kasama ang singil na {fee} (kabuuan {total}) ay lalabas sa wallet mo papunta sa claim na nakalaan sa kanya, at bibigyan ka ng link na ipapadala mo. Kung hindi ma-claim sa oras (o mag-cancel ka), babalik sa iyo ang {onchain} at hindi na ibabalik ang singil namin na {fee}.',
};

const BILL: Tr = {
  pcm: 'Pay {amount} give {biller} for {label} {acct} ({customer}): {usdc} for rate {rate} {cur}/USDC, no charge.',
  sw: 'Lipa {amount} kwa {biller} kwa {label} {acct} ({customer}): {usdc} kwa kiwango cha {rate} {cur}/USDC, bila ada.',
  fr: 'Payer {amount} à {biller} pour le {label} {acct} ({customer}) : {usdc} au taux de {rate} {cur}/USDC, sans frais.',
  pt: 'Pagar {amount} para {biller}, {label} {acct} ({customer}): {usdc} à taxa de {rate} {cur}/USDC, sem tarifa.',
  es: 'Pagar {amount} a {biller}, {label} {acct} ({customer}): {usdc} a una tasa de {rate} {cur}/USDC, sin comisión.',
  hi: '{biller} ko {amount} pay karna, {label} {acct} ({customer}): {usdc}, rate {rate} {cur}/USDC, koi fee nahi.',
  tl: 'Magbayad ng {amount} sa {biller} para sa {label} {acct} ({customer}): {usdc} sa rate na {rate} {cur}/USDC, walang singil.',
};

const STAKE: Tr = {
  pcm: 'Stake {amount} ({usdc} for rate {rate} {cur}/USDC) on "{outcome}" for "{q}" ({id}); staking go close {closes}.',
  sw: 'Weka {amount} ({usdc} kwa kiwango cha {rate} {cur}/USDC) kwenye "{outcome}" katika "{q}" ({id}); ubashiri unafungwa {closes}.',
  fr: 'Miser {amount} ({usdc} au taux de {rate} {cur}/USDC) sur « {outcome} » dans « {q} » ({id}) ; les mises ferment le {closes}.',
  pt: 'Apostar {amount} ({usdc} à taxa de {rate} {cur}/USDC) em "{outcome}" em "{q}" ({id}); as apostas fecham em {closes}.',
  es: 'Apostar {amount} ({usdc} a una tasa de {rate} {cur}/USDC) a "{outcome}" en "{q}" ({id}); las apuestas cierran el {closes}.',
  hi: '"{q}" ({id}) mein "{outcome}" par {amount} lagana ({usdc}, rate {rate} {cur}/USDC); staking {closes} ko band hogi.',
  tl: 'Itaya ang {amount} ({usdc} sa rate na {rate} {cur}/USDC) sa "{outcome}" sa "{q}" ({id}); sarado ang taya sa {closes}.',
};

const RESOLVE_PAY: Tr = {
  pcm: 'Resolve "{q}" ({id}) as "{o}" and share the {pool} pool give {n} winning stake(s) according to wetin each person put.',
  sw: 'Maliza "{q}" ({id}) kama "{o}" na ugawe dimbwi la {pool} kwa dau {n} zilizoshinda kwa uwiano.',
  fr: 'Clore « {q} » ({id}) sur « {o} » et verser la cagnotte de {pool} aux {n} mise(s) gagnante(s), au prorata.',
  pt: 'Resolver "{q}" ({id}) como "{o}" e pagar o bolo de {pool} às {n} aposta(s) vencedora(s), proporcionalmente.',
  es: 'Resolver "{q}" ({id}) como "{o}" y pagar el bote de {pool} a {n} apuesta(s) ganadora(s), a prorrata.',
  hi: '"{q}" ({id}) ko "{o}" ke roop mein resolve karna aur {pool} ka pool {n} jeetne wale stake(s) mein hisse ke hisaab se baantna.',
  tl: 'I-resolve ang "{q}" ({id}) bilang "{o}" at ibigay ang {pool} na pool sa {n} nanalong taya, ayon sa laki ng bawat isa.',
};
const RESOLVE_REFUND: Tr = {
  pcm: 'Resolve "{q}" ({id}) as "{o}" and refund all {s} stakes (nobody back "{o}").',
  sw: 'Maliza "{q}" ({id}) kama "{o}" na urudishe dau zote {s} (hakuna aliyeunga mkono "{o}").',
  fr: 'Clore « {q} » ({id}) sur « {o} » et rembourser les {s} mises (personne n\'a misé sur « {o} »).',
  pt: 'Resolver "{q}" ({id}) como "{o}" e devolver todas as {s} apostas (ninguém apostou em "{o}").',
  es: 'Resolver "{q}" ({id}) como "{o}" y devolver las {s} apuestas (nadie apostó a "{o}").',
  hi: '"{q}" ({id}) ko "{o}" ke roop mein resolve karna aur sabhi {s} stakes wapas karna (kisi ne "{o}" par nahi lagaya).',
  tl: 'I-resolve ang "{q}" ({id}) bilang "{o}" at ibalik ang lahat ng {s} taya (walang tumaya sa "{o}").',
};
const CANCEL: Tr = {
  pcm: 'Cancel "{q}" ({id}) and refund all {s} stakes ({pool}).',
  sw: 'Ghairi "{q}" ({id}) na urudishe dau zote {s} ({pool}).',
  fr: 'Annuler « {q} » ({id}) et rembourser les {s} mises ({pool}).',
  pt: 'Cancelar "{q}" ({id}) e devolver todas as {s} apostas ({pool}).',
  es: 'Cancelar "{q}" ({id}) y devolver las {s} apuestas ({pool}).',
  hi: '"{q}" ({id}) cancel karna aur sabhi {s} stakes ({pool}) wapas karna.',
  tl: 'I-cancel ang "{q}" ({id}) at ibalik ang lahat ng {s} taya ({pool}).',
};

// The merchant's own payments (refund_payment, capture_payment, void_payment); {amt} is
// "3 USD (3.00 USDC)" as the English sentence writes it.
const REFUND: Tr = {
  pcm: 'Refund {amt} of payment {id} give the person wey pay, from your settlement wallet.{reason}',
  sw: 'Rudisha {amt} za malipo {id} kwa aliyelipa, kutoka kwenye pochi yako ya malipo.{reason}',
  fr: 'Rembourser {amt} du paiement {id} au payeur, depuis votre portefeuille de règlement.{reason}',
  pt: 'Reembolsar {amt} do pagamento {id} a quem pagou, da sua carteira de liquidação.{reason}',
  es: 'Reembolsar {amt} del pago {id} a quien pagó, desde tu cartera de liquidación.{reason}',
  hi: 'Payment {id} ke {amt} payer ko wapas karna, aapke settlement wallet se.{reason}',
  tl: 'I-refund ang {amt} ng bayad na {id} sa nagbayad, mula sa settlement wallet mo.{reason}',
};
const REASON: Tr = { pcm: ' Reason: "{r}".', sw: ' Sababu: "{r}".', fr: ' Motif : « {r} ».', pt: ' Motivo: "{r}".', es: ' Motivo: "{r}".', hi: ' Wajah: "{r}".', tl: ' Dahilan: "{r}".' };
const CAPTURE: Tr = {
  pcm: 'Collect {amt} wey dem hold for payment {id} enter your wallet.',
  sw: 'Chukua {amt} zilizoshikiliwa kwa malipo {id} kwenda kwenye pochi yako.',
  fr: 'Encaisser {amt} retenus pour le paiement {id}, vers votre portefeuille.',
  pt: 'Capturar {amt} retidos para o pagamento {id}, para a sua carteira.',
  es: 'Capturar {amt} retenidos del pago {id}, a tu cartera.',
  hi: 'Payment {id} ke liye hold kiye gaye {amt} capture karke aapke wallet mein lana.',
  tl: 'Kunin ang {amt} na naka-hold para sa bayad na {id}, papunta sa wallet mo.',
};
const VOID: Tr = {
  pcm: 'Release the {amt} wey still dey hold for payment {id} back to the person wey pay. After that, nothing again fit collect.',
  sw: 'Achilia {amt} zilizobaki zimeshikiliwa kwa malipo {id} zirudi kwa aliyelipa. Baada ya hapo hakuna kitakachoweza kuchukuliwa tena.',
  fr: 'Libérer les {amt} encore retenus pour le paiement {id} et les rendre au payeur. Plus rien ne pourra être encaissé ensuite.',
  pt: 'Liberar os {amt} ainda retidos para o pagamento {id} de volta a quem pagou. Depois disso, nada mais pode ser capturado.',
  es: 'Liberar los {amt} aún retenidos del pago {id} y devolverlos a quien pagó. Después ya no se podrá capturar nada.',
  hi: 'Payment {id} ke liye abhi bhi hold {amt} payer ko wapas chhodna. Uske baad kuch aur capture nahi ho sakega.',
  tl: 'Ibalik sa nagbayad ang {amt} na naka-hold pa para sa bayad na {id}. Pagkatapos nito, wala nang makukuha.',
};

/** "3 USD (3.00 USDC)" from a merchant tool's details, or undefined when a figure is missing. */
function paymentAmount(d: Rec): { amt: string; id: string } | undefined {
  const f = pick(d, ['payment_id', 'amount', 'currency', 'stablecoin_amount_base_units']);
  if (!f || !/^\d+$/.test(f.stablecoin_amount_base_units)) return undefined;
  const onchain = formatUsdc(BigInt(f.stablecoin_amount_base_units));
  return { id: f.payment_id, amt: f.currency.toUpperCase() === 'USDC' ? onchain : `${f.amount} ${f.currency} (${onchain})` };
}

function merchantStep(t: Tr, d: Rec, lang: Exclude<Lang, 'en'>): string | undefined {
  const f = paymentAmount(d);
  if (!f) return undefined;
  const reason = str(d.reason);
  return fill(t[lang], { ...f, reason: reason ? fill(REASON[lang], { r: reason }) : '' });
}

/** A firm quote's tail: its figures held until a time, under its id. */
function firmTail(d: Rec, lang: Exclude<Lang, 'en'>): string {
  const id = str(d.quote_id);
  const until = str(d.quote_expires_at);
  return id && until ? fill(FIRM[lang], { until: until.slice(11, 19), id }) : '';
}

function transfer(d: Rec, lang: Exclude<Lang, 'en'>): string | undefined {
  if (d.claim === true) {
    const f = pick(d, ['amount_text', 'recipient', 'stablecoin_amount', 'fee', 'total_debit']);
    if (!f) return undefined;
    return fill(CLAIM[lang], { sent: f.amount_text, to: f.recipient, onchain: usdc(f.stablecoin_amount), fee: usdc(f.fee), total: usdc(f.total_debit) }) + firmTail(d, lang);
  }
  const f = pick(d, ['amount_text', 'recipient', 'recipient_amount_text', 'stablecoin_amount', 'fee', 'total_debit']);
  if (!f || typeof d.rate_text !== 'string') return undefined;
  const fee = parseUnits(f.fee, STABLECOIN_DECIMALS) > 0n ? fill(FEE[lang], { fee: usdc(f.fee), total: usdc(f.total_debit) }) : NO_FEE[lang];
  const rate = d.rate_text ? fill(RATE[lang], { r: d.rate_text }) : '';
  return fill(TRANSFER[lang], { sent: f.amount_text, to: f.recipient, received: f.recipient_amount_text, onchain: usdc(f.stablecoin_amount), rate, fee }) + firmTail(d, lang);
}

function bill(d: Rec, lang: Exclude<Lang, 'en'>): string | undefined {
  const f = pick(d, ['amount_text', 'biller', 'account_label', 'account_number', 'customer_name', 'stablecoin_amount', 'rate', 'currency']);
  if (!f) return undefined;
  return fill(BILL[lang], {
    amount: f.amount_text, biller: f.biller, label: accountLabel(f.account_label, lang), acct: f.account_number,
    customer: f.customer_name, usdc: usdc(f.stablecoin_amount), rate: f.rate, cur: f.currency,
  });
}

function stake(d: Rec, lang: Exclude<Lang, 'en'>): string | undefined {
  const f = pick(d, ['amount_text', 'stablecoin_amount', 'rate', 'currency', 'outcome', 'question', 'market_id', 'closes_at']);
  if (!f) return undefined;
  return fill(STAKE[lang], { amount: f.amount_text, usdc: usdc(f.stablecoin_amount), rate: f.rate, cur: f.currency, outcome: f.outcome, q: f.question, id: f.market_id, closes: f.closes_at });
}

function resolve(d: Rec, lang: Exclude<Lang, 'en'>): string | undefined {
  const f = pick(d, ['question', 'market_id', 'outcome', 'winning_stakes', 'stakes', 'pool_text']);
  if (!f) return undefined;
  const vars = { q: f.question, id: f.market_id, o: f.outcome, n: f.winning_stakes, s: f.stakes, pool: f.pool_text };
  return fill(Number(f.winning_stakes) > 0 ? RESOLVE_PAY[lang] : RESOLVE_REFUND[lang], vars);
}

function cancel(d: Rec, lang: Exclude<Lang, 'en'>): string | undefined {
  const f = pick(d, ['question', 'market_id', 'stakes', 'pool_text']);
  return f ? fill(CANCEL[lang], { q: f.question, id: f.market_id, s: f.stakes, pool: f.pool_text }) : undefined;
}

/** The description of a held `tool` call in `lang` from its preview's details, or undefined to keep the tool's own. */
export function pendingDescription(tool: string, details: unknown, lang: Lang): string | undefined {
  if (lang === 'en' || !details || typeof details !== 'object') return undefined;
  const d = details as Rec;
  switch (tool) {
    case 'send_transfer':
      return transfer(d, lang);
    case 'pay_bill':
      return bill(d, lang);
    case 'stake_market':
      return stake(d, lang);
    case 'resolve_market':
      return resolve(d, lang);
    case 'cancel_market':
      return cancel(d, lang);
    case 'refund_payment':
      return merchantStep(REFUND, d, lang);
    case 'capture_payment':
      return merchantStep(CAPTURE, d, lang);
    case 'void_payment':
      return merchantStep(VOID, d, lang);
    default:
      return undefined;
  }
}
