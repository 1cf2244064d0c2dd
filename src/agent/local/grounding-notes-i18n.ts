import { AMBIGUOUS, INFERRED } from '../grounding/grounding-reasons.js';
import type { Lang } from './language.js';

/**
 * Grounding's notes before a held action (an argument the engine inferred, a message that names
 * two amounts, currencies or recipients) in the message's language. The English sentences are
 * grounding's own (src/agent/grounding/grounding-reasons.ts); a test holds every one to a row here.
 */
type Tr = Readonly<Record<Exclude<Lang, 'en'>, string>>;

export const NOTES: Readonly<Record<keyof typeof INFERRED | keyof typeof AMBIGUOUS, Tr>> = {
  currency_from_account: {
    pcm: 'I use your account currency; your message no talk any currency.', sw: 'Nimetumia sarafu ya akaunti yako; ujumbe hautaji sarafu yoyote.',
    fr: "J'ai pris la devise de votre compte ; le message n'en nomme aucune.", pt: 'Usei a moeda da sua conta; a mensagem não cita nenhuma.',
    es: 'Usé la moneda de tu cuenta; el mensaje no menciona ninguna.', hi: 'Maine aapke account ki currency li; message mein koi currency nahi hai.',
    tl: 'Ginamit ko ang currency ng account mo; walang currency sa mensahe.',
  },
  network_from_phone: {
    pcm: 'I pick the network from the phone number first digits.', sw: 'Nimechagua mtandao wa simu kutokana na mwanzo wa namba ya simu.',
    fr: "J'ai choisi le réseau mobile d'après le préfixe du numéro.", pt: 'Escolhi a operadora pelo prefixo do número.',
    es: 'Elegí la compañía móvil por el prefijo del número.', hi: 'Maine phone number ke prefix se mobile network chuna.',
    tl: 'Pinili ko ang mobile network batay sa unang mga numero ng telepono.',
  },
  biller_from_category_and_country: {
    pcm: 'I pick the only biller of that kind for your country.', sw: 'Nimechagua mtoa huduma pekee wa aina hiyo katika nchi yako.',
    fr: "J'ai pris le seul facturier de ce type dans votre pays.", pt: 'Escolhi a única empresa desse tipo no seu país.',
    es: 'Elegí la única empresa de ese tipo en tu país.', hi: 'Maine aapke desh mein us tarah ka akela biller chuna.',
    tl: 'Pinili ko ang nag-iisang biller na ganoon sa bansa mo.',
  },
  peso_from_recipient: {
    pcm: 'Your message talk "pesos" but e no talk which one: I use the pesos wey the person go receive.', sw: 'Ujumbe wako unasema "pesos" bila kusema ni zipi: nimetumia pesos anazopokea mpokeaji.',
    fr: 'Votre message dit « pesos » sans préciser lesquels : j\'ai pris ceux que reçoit le destinataire.', pt: 'Sua mensagem diz "pesos" sem dizer quais: usei os pesos que o destinatário recebe.',
    es: 'Tu mensaje dice "pesos" sin decir cuáles: usé los pesos que recibe el destinatario.', hi: 'Aapke message mein "pesos" hai par kaunse nahi: maine wahi pesos liye jo recipient ko milte hain.',
    tl: 'Sinabi ng mensahe mo ang "pesos" pero hindi kung alin: ginamit ko ang pesos na natatanggap ng recipient.',
  },
  several_amounts: {
    pcm: 'Your message get more than one amount; check say na this one you mean.', sw: 'Ujumbe wako una kiasi zaidi ya kimoja; hakikisha ndicho unachomaanisha.',
    fr: 'Votre message contient plus d\'un montant ; vérifiez que c\'est bien celui-ci.', pt: 'Sua mensagem tem mais de um valor; confira se é este.',
    es: 'Tu mensaje tiene más de un monto; revisa que sea este.', hi: 'Aapke message mein ek se zyada amount hain; check kijiye ki yahi wala hai.',
    tl: 'Higit sa isang halaga ang nasa mensahe mo; tiyaking ito ang ibig mong sabihin.',
  },
  several_currencies: {
    pcm: 'Your message get more than one currency for that amount; check say na this one you mean.', sw: 'Ujumbe wako una sarafu zaidi ya moja kwa kiasi hicho; hakikisha ndiyo unayomaanisha.',
    fr: 'Votre message donne plus d\'une devise pour ce montant ; vérifiez que c\'est bien celle-ci.', pt: 'Sua mensagem tem mais de uma moeda para esse valor; confira se é esta.',
    es: 'Tu mensaje tiene más de una moneda para ese monto; revisa que sea esta.', hi: 'Is amount ke liye aapke message mein ek se zyada currency hain; check kijiye ki yahi hai.',
    tl: 'Higit sa isang currency ang nasa mensahe mo para sa halagang iyon; tiyaking ito ang ibig mong sabihin.',
  },
  several_recipients: {
    pcm: 'Your message get more than one person to receive; check say na this one you mean.', sw: 'Ujumbe wako una wapokeaji zaidi ya mmoja; hakikisha ndiye unayemaanisha.',
    fr: 'Votre message nomme plus d\'un destinataire ; vérifiez que c\'est bien celui-ci.', pt: 'Sua mensagem tem mais de um destinatário; confira se é este.',
    es: 'Tu mensaje tiene más de un destinatario; revisa que sea este.', hi: 'Aapke message mein ek se zyada recipient hain; check kijiye ki yahi hai.',
    tl: 'Higit sa isang recipient ang nasa mensahe mo; tiyaking ito ang ibig mong sabihin.',
  },
};

const ENGLISH: ReadonlyArray<[string, Tr]> = Object.entries(NOTES).map(([k, tr]) => [
  (INFERRED as Record<string, string>)[k] ?? (AMBIGUOUS as Record<string, string>)[k]!,
  tr,
]);

/** Grounding's `note` (its English sentences joined by spaces) in `lang`, or undefined when one is not known. */
export function groundingNote(note: string, lang: Lang): string | undefined {
  if (lang === 'en') return undefined;
  let rest = note;
  const out: string[] = [];
  while (rest.trim()) {
    rest = rest.trimStart();
    const hit = ENGLISH.find(([en]) => rest.startsWith(en));
    if (!hit) return undefined;
    out.push(hit[1][lang]);
    rest = rest.slice(hit[0].length);
  }
  return out.join(' ');
}
