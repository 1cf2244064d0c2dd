import type { Lang } from './language.js';

/**
 * Sentence templates for the money-moving tools' results in the eight corridor languages.
 * `{name}` slots are filled by ./outcome-replies-i18n.ts with the outcome's own figures, ids
 * and hashes, verbatim. The `en` row reproduces the tool's English summary (a test holds them
 * equal), so every language states the same facts; English turns still get the summary itself.
 */

export type Texts = Readonly<Record<Lang, string>>;

/** " at 1 KES = 11.9 NGN (129.25 KES/USDC)": the rate as the English summary states it. */
export const RATE_AT: Texts = { en: ' at {r}', pcm: ' for rate {r}', sw: ' kwa kiwango cha {r}', fr: ' au taux de {r}', pt: ' à taxa de {r}', es: ' a una tasa de {r}', hi: ', rate {r}', tl: ' sa rate na {r}' };
export const FEE: Texts = { en: '; fee {f}', pcm: '; charge {f}', sw: '; ada {f}', fr: ' ; frais {f}', pt: '; tarifa {f}', es: '; comisión {f}', hi: '; fee {f}', tl: '; singil {f}' };
export const NO_FEE: Texts = { en: '; no fee', pcm: '; no charge', sw: '; bila ada', fr: ' ; sans frais', pt: '; sem tarifa', es: '; sin comisión', hi: '; koi fee nahi', tl: '; walang singil' };
export const TX: Texts = { en: ' (tx {tx})', pcm: ' (tx {tx})', sw: ' (tx {tx})', fr: ' (tx {tx})', pt: ' (tx {tx})', es: ' (tx {tx})', hi: ' (tx {tx})', tl: ' (tx {tx})' };

export const TRANSFER_SETTLED: Texts = {
  en: 'Sent {sent} to {to}, who receives {received}. {onchain} on-chain{rate}{fee}. Settled on-chain (tx {tx}).',
  pcm: 'I don send {sent} give {to}, dem go receive {received}. {onchain} on-chain{rate}{fee}. E don land for chain (tx {tx}).',
  sw: 'Umetuma {sent} kwa {to}, atapokea {received}. {onchain} kwenye blockchain{rate}{fee}. Imekamilika kwenye blockchain (tx {tx}).',
  fr: 'Envoyé : {sent} à {to}, qui reçoit {received}. {onchain} sur la blockchain{rate}{fee}. Réglé sur la blockchain (tx {tx}).',
  pt: 'Enviado: {sent} para {to}, que recebe {received}. {onchain} na blockchain{rate}{fee}. Liquidado na blockchain (tx {tx}).',
  es: 'Enviado: {sent} a {to}, que recibe {received}. {onchain} en la blockchain{rate}{fee}. Liquidado en la blockchain (tx {tx}).',
  hi: '{to} ko {sent} bhej diye, unhe {received} milenge. {onchain} on-chain{rate}{fee}. Chain par pakka ho gaya (tx {tx}).',
  tl: 'Naipadala na ang {sent} kay {to}, matatanggap niya ang {received}. {onchain} on-chain{rate}{fee}. Pasok na sa blockchain (tx {tx}).',
};

export const TRANSFER_SUBMITTED: Texts = {
  en: 'Submitted {sent} to {to}, who receives {received}. {onchain} on-chain{rate}{fee}. Waiting for the network to confirm{txp}; it is safe, nothing will be sent twice.',
  pcm: 'E dey process: {sent} to {to}, dem go receive {received}. {onchain} on-chain{rate}{fee}. We dey wait make network confirm{txp}; no worry, e no go send two times.',
  sw: 'Inashughulikiwa: {sent} kwa {to}, atapokea {received}. {onchain} kwenye blockchain{rate}{fee}. Tunasubiri mtandao uthibitishe{txp}; usijali, haitatumwa mara mbili.',
  fr: "Transfert en cours : {sent} à {to}, qui recevra {received}. {onchain} sur la blockchain{rate}{fee}. En attente de confirmation du réseau{txp} ; pas d'inquiétude, rien ne sera envoyé deux fois.",
  pt: 'Em processamento: {sent} para {to}, que vai receber {received}. {onchain} na blockchain{rate}{fee}. Aguardando a confirmação da rede{txp}; fique tranquilo, nada será enviado duas vezes.',
  es: 'En proceso: {sent} a {to}, que recibirá {received}. {onchain} en la blockchain{rate}{fee}. Esperando la confirmación de la red{txp}; tranquilo, nada se enviará dos veces.',
  hi: 'Process ho raha hai: {to} ko {sent}, unhe {received} milenge. {onchain} on-chain{rate}{fee}. Network confirmation ka intezaar hai{txp}; chinta mat kijiye, do baar nahi jayega.',
  tl: 'Pinoproseso na: {sent} kay {to}, matatanggap niya ang {received}. {onchain} on-chain{rate}{fee}. Hinihintay ang kumpirmasyon ng network{txp}; huwag mag-alala, hindi ito maipapadala nang dalawang beses.',
};

export const BILL_WHAT: Texts = {
  en: '{amount} to {biller} for {acct} ({customer}): {usdc}{at}',
  pcm: '{amount} to {biller} for {acct} ({customer}): {usdc}{at}',
  sw: '{amount} kwa {biller}, akaunti {acct} ({customer}): {usdc}{at}',
  fr: '{amount} à {biller} pour {acct} ({customer}) : {usdc}{at}',
  pt: '{amount} para {biller}, conta {acct} ({customer}): {usdc}{at}',
  es: '{amount} a {biller}, cuenta {acct} ({customer}): {usdc}{at}',
  hi: '{amount} {biller} ko, account {acct} ({customer}): {usdc}{at}',
  tl: '{amount} sa {biller} para sa {acct} ({customer}): {usdc}{at}',
};
export const BILL_COMPLETED: Texts = {
  en: 'Paid {what}. Receipt {rn}.{token} Tx {tx}.',
  pcm: 'I don pay {what}. Receipt number {rn}.{token} Tx {tx}.',
  sw: 'Umelipa {what}. Risiti {rn}.{token} Tx {tx}.',
  fr: 'Payé : {what}. Reçu n° {rn}.{token} Tx {tx}.',
  pt: 'Pago: {what}. Comprovante {rn}.{token} Tx {tx}.',
  es: 'Pagado: {what}. Recibo {rn}.{token} Tx {tx}.',
  hi: 'Bill bhar diya: {what}. Rasid {rn}.{token} Tx {tx}.',
  tl: 'Bayad na: {what}. Resibo {rn}.{token} Tx {tx}.',
};
export const TOKEN: Texts = {
  en: ' Token: {t}{units}.',
  pcm: ' Token: {t}{units}.',
  sw: ' Tokeni: {t}{units}.',
  fr: ' Code de recharge : {t}{units}.',
  pt: ' Código de recarga: {t}{units}.',
  es: ' Código de recarga: {t}{units}.',
  hi: ' Token: {t}{units}.',
  tl: ' Token: {t}{units}.',
};
export const BILL_PAID: Texts = {
  en: 'Paid {what} (tx {tx}). {biller} has not issued the receipt yet; it will follow.',
  pcm: 'I don pay {what} (tx {tx}). {biller} never send receipt yet; e go come soon.',
  sw: 'Umelipa {what} (tx {tx}). {biller} bado haijatoa risiti; itafuata.',
  fr: "Payé : {what} (tx {tx}). {biller} n'a pas encore émis le reçu ; il arrivera bientôt.",
  pt: 'Pago: {what} (tx {tx}). {biller} ainda não emitiu o comprovante; ele chega em breve.',
  es: 'Pagado: {what} (tx {tx}). {biller} todavía no emite el recibo; llegará pronto.',
  hi: 'Bill bhar diya: {what} (tx {tx}). {biller} ne abhi rasid nahi di hai; thodi der mein aa jayegi.',
  tl: 'Bayad na: {what} (tx {tx}). Wala pang resibo mula sa {biller}; susunod ito.',
};
export const BILL_SUBMITTED: Texts = {
  en: 'Submitted {what}. Waiting for the network to confirm; nothing will be paid twice.',
  pcm: 'Payment dey process: {what}. We dey wait make network confirm; e no go pay two times.',
  sw: 'Malipo yanashughulikiwa: {what}. Tunasubiri mtandao uthibitishe; hakuna kitakacholipwa mara mbili.',
  fr: 'Paiement en cours : {what}. En attente de confirmation du réseau ; rien ne sera payé deux fois.',
  pt: 'Pagamento em processamento: {what}. Aguardando a confirmação da rede; nada será pago duas vezes.',
  es: 'Pago en proceso: {what}. Esperando la confirmación de la red; nada se pagará dos veces.',
  hi: 'Payment process ho raha hai: {what}. Network confirmation ka intezaar hai; do baar pay nahi hoga.',
  tl: 'Pinoproseso ang bayad: {what}. Hinihintay ang kumpirmasyon ng network; hindi ito mababayaran nang dalawang beses.',
};

export const STAKE_WHAT: Texts = {
  en: '{amount} ({usdc}{at}) on "{outcome}" in "{q}"',
  pcm: '{amount} ({usdc}{at}) on "{outcome}" for "{q}"',
  sw: '{amount} ({usdc}{at}) kwa "{outcome}" kwenye "{q}"',
  fr: '{amount} ({usdc}{at}) sur « {outcome} » dans « {q} »',
  pt: '{amount} ({usdc}{at}) em "{outcome}" no mercado "{q}"',
  es: '{amount} ({usdc}{at}) al "{outcome}" en "{q}"',
  hi: '{amount} ({usdc}{at}) "{outcome}" par, "{q}" mein',
  tl: '{amount} ({usdc}{at}) sa "{outcome}" sa "{q}"',
};
export const STAKE_SETTLED: Texts = {
  en: 'Staked {what}. Held in escrow (tx {tx}); the pool is now {pool}.',
  pcm: 'I don stake {what}. E dey escrow (tx {tx}); the pool don reach {pool}.',
  sw: 'Dau limewekwa: {what}. Limehifadhiwa kwenye escrow (tx {tx}); jumla ya dau sasa ni {pool}.',
  fr: 'Mise placée : {what}. Gardée en séquestre (tx {tx}) ; la cagnotte est maintenant de {pool}.',
  pt: 'Aposta feita: {what}. Guardada em custódia (tx {tx}); o total apostado agora é {pool}.',
  es: 'Apuesta hecha: {what}. En custodia (tx {tx}); el pozo ahora es de {pool}.',
  hi: 'Bet lag gayi: {what}. Escrow mein rakhi hai (tx {tx}); pool ab {pool} hai.',
  tl: 'Naitaya na: {what}. Nasa escrow (tx {tx}); ang pool ay {pool} na ngayon.',
};
export const STAKE_SUBMITTED: Texts = {
  en: 'Submitted a stake of {what}. Waiting for the network to confirm; nothing will be moved twice.',
  pcm: 'Your stake dey process: {what}. We dey wait make network confirm; e no go move two times.',
  sw: 'Dau linashughulikiwa: {what}. Tunasubiri mtandao uthibitishe; hakuna kitakachohamishwa mara mbili.',
  fr: 'Mise en cours : {what}. En attente de confirmation du réseau ; rien ne sera débité deux fois.',
  pt: 'Aposta em processamento: {what}. Aguardando a confirmação da rede; nada será movido duas vezes.',
  es: 'Apuesta en proceso: {what}. Esperando la confirmación de la red; nada se moverá dos veces.',
  hi: 'Bet process ho rahi hai: {what}. Network confirmation ka intezaar hai; do baar nahi katega.',
  tl: 'Pinoproseso ang taya: {what}. Hinihintay ang kumpirmasyon ng network; hindi ito magagalaw nang dalawang beses.',
};

export const MARKET_CREATED: Texts = {
  en: 'Created the market "{q}" ({id}) with outcomes {outcomes}; staking closes {closes}. Stakes are held in escrow at {escrow}.',
  pcm: 'I don open the market "{q}" ({id}), options {outcomes}; staking go close {closes}. All stakes dey escrow for {escrow}.',
  sw: 'Soko limeundwa: "{q}" ({id}), chaguo {outcomes}; dau zinafungwa {closes}. Dau zote zinahifadhiwa kwenye escrow {escrow}.',
  fr: 'Marché créé : « {q} » ({id}), issues {outcomes} ; les mises ferment le {closes}. Les mises sont gardées en séquestre à {escrow}.',
  pt: 'Mercado criado: "{q}" ({id}), opções {outcomes}; as apostas fecham em {closes}. As apostas ficam em custódia em {escrow}.',
  es: 'Mercado creado: "{q}" ({id}), opciones {outcomes}; las apuestas cierran el {closes}. Las apuestas quedan en custodia en {escrow}.',
  hi: 'Market ban gaya: "{q}" ({id}), options {outcomes}; bets {closes} ko band hongi. Saari bets escrow {escrow} mein rehti hain.',
  tl: 'Nagawa na ang market na "{q}" ({id}), mga pagpipilian: {outcomes}; magsasara ang taya sa {closes}. Nasa escrow ang mga taya sa {escrow}.',
};

export const PAYMENT_LINK: Texts = {
  en: 'Payment link for {amount} ({usdc} USDC{at}): {url} (valid for {min} minutes).',
  pcm: 'Your payment link for {amount} ({usdc} USDC{at}) don ready: {url} (e go work for {min} minutes).',
  sw: 'Kiungo cha malipo cha {amount} ({usdc} USDC{at}): {url} (kinatumika kwa dakika {min}).',
  fr: 'Lien de paiement pour {amount} ({usdc} USDC{at}) : {url} (valable {min} minutes).',
  pt: 'Link de pagamento de {amount} ({usdc} USDC{at}): {url} (válido por {min} minutos).',
  es: 'Link de pago por {amount} ({usdc} USDC{at}): {url} (válido por {min} minutos).',
  hi: '{amount} ka payment link ({usdc} USDC{at}): {url} ({min} minute tak chalega).',
  tl: 'Ito ang payment link para sa {amount} ({usdc} USDC{at}): {url} (gagana nang {min} minuto).',
};

export const RESOLVED: Texts = {
  en: 'Resolved "{q}" as "{w}".',
  pcm: 'Market "{q}" don resolve: na "{w}" win.',
  sw: 'Soko "{q}" limeamuliwa: "{w}" imeshinda.',
  fr: 'Marché « {q} » tranché : « {w} » l’emporte.',
  pt: 'Mercado "{q}" encerrado: deu "{w}".',
  es: 'Mercado "{q}" resuelto: ganó "{w}".',
  hi: '"{q}" ka faisla ho gaya: "{w}".',
  tl: 'Naresolba na ang "{q}": "{w}" ang nanalo.',
};
export const CANCELLED: Texts = {
  en: 'Cancelled "{q}"; refunds:',
  pcm: 'Market "{q}" don cancel; refunds:',
  sw: 'Soko "{q}" limeghairiwa; marejesho:',
  fr: 'Marché « {q} » annulé ; remboursements :',
  pt: 'Mercado "{q}" cancelado; reembolsos:',
  es: 'Mercado "{q}" cancelado; reembolsos:',
  hi: '"{q}" market cancel ho gaya; refund:',
  tl: 'Kinansela na ang "{q}"; mga refund:',
};
export const PAID_OUT: Texts = {
  en: ' {total} paid from escrow to {n} {stakes}',
  pcm: ' {total} don comot from escrow go {n} {stakes}',
  sw: ' {total} zimelipwa kutoka escrow kwa {stakes} {n}',
  fr: ' {total} versés depuis le séquestre pour {n} {stakes}',
  pt: ' {total} pagos da custódia para {n} {stakes}',
  es: ' {total} pagados desde la custodia a {n} {stakes}',
  hi: ' {total} escrow se {n} {stakes} ko diye gaye',
  tl: ' {total} ang naibayad mula sa escrow sa {n} na {stakes}',
};
/** [one, many] */
export const STAKE_NOUN: Readonly<Record<Lang, readonly [string, string]>> = {
  en: ['stake', 'stakes'],
  pcm: ['stake', 'stakes'],
  sw: ['dau', 'dau'],
  fr: ['mise', 'mises'],
  pt: ['aposta', 'apostas'],
  es: ['apuesta', 'apuestas'],
  hi: ['bet', 'bets'],
  tl: ['taya', 'taya'],
};
export const UNPAID: Texts = {
  en: '; {u} {payouts} still being confirmed and will be retried',
  pcm: '; {u} payout still dey wait confirmation, we go try again',
  sw: '; malipo {u} bado yanathibitishwa na yatajaribiwa tena',
  fr: ' ; {u} versement(s) encore en confirmation, ils seront relancés',
  pt: '; {u} pagamento(s) ainda em confirmação, serão tentados de novo',
  es: '; {u} pago(s) aún en confirmación, se reintentarán',
  hi: '; {u} payout abhi confirm ho rahe hain, dobara try honge',
  tl: '; {u} payout ang kinukumpirma pa, susubukan ulit',
};
export const POOL: Texts = {
  en: '. Pool {pool}.',
  pcm: '. Pool: {pool}.',
  sw: '. Jumla ya dau: {pool}.',
  fr: '. Cagnotte : {pool}.',
  pt: '. Total apostado: {pool}.',
  es: '. Pozo: {pool}.',
  hi: '. Pool: {pool}.',
  tl: '. Pool: {pool}.',
};

/** A transfer to a phone or email with no account: a claim held for them, and its link (claim-tools.ts, the `en` row is its summary). */
export const CLAIM_SENT: Texts = {
  en: '{who} has no account yet, so {sent} ({usdc}) {state} until {until}. Send them this link (shown only once): {url} . They sign up or sign in with {contact} to receive it. You can cancel until it is claimed; if you cancel or nobody claims it, {usdc} comes back to you and our fee is kept.',
  pcm: '{who} never get account, so {sent} ({usdc}) {state} till {until}. Send dem this link (I go show am only once): {url} . Make dem sign up or sign in with {contact} to collect am. You fit cancel before dem collect am; if you cancel or nobody collect am, {usdc} go come back to you, but we go keep our charge.',
  sw: '{who} bado hana akaunti, kwa hiyo {sent} ({usdc}) {state} hadi {until}. Mtumie kiungo hiki (kinaonyeshwa mara moja tu): {url} . Ajisajili au aingie kwa {contact} ili kupokea. Unaweza kughairi kabla hakijachukuliwa; ukighairi au kisipochukuliwa, {usdc} zinarudi kwako na ada yetu inabaki kwetu.',
  fr: "{who} n'a pas encore de compte, donc {sent} ({usdc}) {state} jusqu'au {until}. Envoyez-lui ce lien (affiché une seule fois) : {url} . Il ou elle s'inscrit ou se connecte avec {contact} pour le recevoir. Vous pouvez annuler tant que ce n'est pas réclamé ; si vous annulez ou si personne ne le réclame, {usdc} vous reviennent et nos frais sont conservés.",
  pt: '{who} ainda não tem conta, então {sent} ({usdc}) {state} até {until}. Mande este link (mostrado só uma vez): {url} . A pessoa se cadastra ou entra com {contact} para receber. Você pode cancelar até ser resgatado; se você cancelar ou ninguém resgatar, {usdc} voltam para você e a nossa tarifa fica retida.',
  es: '{who} todavía no tiene cuenta, así que {sent} ({usdc}) {state} hasta el {until}. Mándale este link (se muestra una sola vez): {url} . Se registra o inicia sesión con {contact} para recibirlo. Puedes cancelar mientras no lo reclame; si cancelas o nadie lo reclama, te regresan {usdc} y nuestra comisión se queda.',
  hi: '{who} ka abhi account nahi hai, isliye {sent} ({usdc}) {until} tak {state}. Unhe yeh link bhejiye (sirf ek baar dikhega): {url} . Woh {contact} se sign up ya sign in karke paise le sakte hain. Claim hone tak aap cancel kar sakte hain; cancel karein ya koi claim na kare to {usdc} aapko wapas aa jayenge, hamari fee nahi lautegi.',
  tl: 'Wala pang account si {who}, kaya ang {sent} ({usdc}) ay {state} hanggang {until}. Ipadala sa kanya ang link na ito (isang beses lang ipapakita): {url} . Mag-sign up o mag-sign in siya gamit ang {contact} para matanggap ito. Puwede mong i-cancel hangga\'t hindi pa nakukuha; kung mag-cancel ka o walang kumuha, babalik sa iyo ang {usdc} at hindi na ibabalik ang singil namin.',
};
/** The claim's state: [open, being funded]. */
export const CLAIM_STATE: Readonly<Record<Lang, readonly [string, string]>> = {
  en: ['is held for them', 'is on its way into a claim for them'],
  pcm: ['dey hold for dem', 'dey go inside claim for dem'],
  sw: ['imehifadhiwa kwa ajili yake', 'inaingia kwenye dai lake'],
  fr: ['est réservé pour lui ou elle', 'est en route vers une réclamation à son nom'],
  pt: ['fica reservado para a pessoa', 'está indo para um resgate em nome dela'],
  es: ['queda apartado para esa persona', 'va en camino a un cobro a su nombre'],
  hi: ['unke liye rakhe gaye hain', 'unke claim mein ja rahe hain'],
  tl: ['nakalaan para sa kanya', 'papunta na sa claim para sa kanya'],
};
/** What they sign in with: [a phone, an email]. */
export const CLAIM_CONTACT: Readonly<Record<Lang, readonly [string, string]>> = {
  en: ['that phone number', 'that email'],
  pcm: ['that phone number', 'that email'],
  sw: ['namba hiyo ya simu', 'barua pepe hiyo'],
  fr: ['ce numéro de téléphone', 'cet e-mail'],
  pt: ['esse número de telefone', 'esse e-mail'],
  es: ['ese número de teléfono', 'ese correo'],
  hi: ['usi phone number', 'usi email'],
  tl: ['numerong iyon', 'email na iyon'],
};
