import { z } from 'zod';
import type { Lang } from './language.js';
import { activityText } from './activity-i18n.js';

/** list_activity's result, as this reply reads it (the tool's own shape, src/agent/tools/list-activity.ts). */
const ListedActivity = z.object({
  entries: z.array(
    z.looseObject({
      kind: z.enum(['transfer', 'bill', 'stake', 'payment']),
      at: z.string(),
      status: z.string(),
      direction: z.enum(['out', 'in']),
      amount: z.string(),
      currency: z.string(),
      counterparty: z.string().optional(),
      claim_link: z.boolean().optional(),
      reference: z.string().optional(),
    }),
  ),
});

/**
 * Replies to the read-only tools (balance, quote, activity) in the message's language, whole: never
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

const fill = (t: string, v: Record<string, string>) => t.replace(/\{(\w+)\}/g, (_, k: string) => v[k] ?? '');

/**
 * The reply for a read-only tool's outcome in `lang`, or undefined to keep the tool's own summary.
 * The activity list is phrased from its result's entries (./activity-i18n.ts), not its summary.
 */
export function readReply(tool: string, summary: string, lang: Lang, result?: unknown): string | undefined {
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
  if (tool === 'list_activity') {
    const listed = ListedActivity.safeParse(result);
    return listed.success ? activityText(listed.data.entries, lang) : undefined;
  }
  return undefined;
}
